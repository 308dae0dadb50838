// The Overview's "One request's time": a typical request's latency (the profiled window's p50)
// split into the main thread's CPU per request (derived from the profile), the waits per request
// (measured by the wait probe) and the rest (inferred), as one stacked bar with its legend.
import type { RequestTime } from '../../src/core/report/index.ts';
import type { ViewContext } from './context.ts';
import { h } from './dom.ts';
import { ms, pct, pctOf } from './format.ts';

const HOW: Record<RequestTime['parts'][number]['how'], string> = {
  derived: 'CPU from the profile ÷ requests',
  measured: 'measured',
  inferred: 'inferred: the p50 less the rest',
};

export function requestTimeSection(ctx: ViewContext): HTMLElement | null {
  const t = ctx.report.requestTime;
  if (!t) return null;
  // The parts may add up to more than the p50 (waits side by side): the bar is then their sum.
  const total = t.latencyMs + t.overMs;
  const shown = t.parts.filter((p) => p.ms > 0);
  const bar = h('div', {
    class: 'stack request-bar',
    attrs: { role: 'img', 'aria-label': shown.map((p) => `${p.label} ${ms(p.ms)}`).join(', ') },
  });
  for (const p of shown) {
    const seg = h('span', { class: `seg rt-${p.key}`, title: `${p.label}: ${ms(p.ms)} (${HOW[p.how]})` });
    seg.style.width = `${pctOf(p.ms, total)}%`;
    bar.appendChild(seg);
  }
  const legend = h(
    'div',
    { class: 'legend request-legend' },
    ...t.parts.map((p) =>
      h(
        'div',
        { class: `legend-row${p.ms > 0 ? '' : ' zero'}`, data: { part: p.key } },
        h('span', { class: `swatch rt-${p.key}` }),
        h('span', { class: 'legend-label' }, p.label),
        h('span', { class: 'num legend-pct' }, ms(p.ms)),
        h('span', { class: 'num muted' }, pct(pctOf(p.ms, t.latencyMs))),
        h('span', { class: 'muted' }, HOW[p.how]),
      ),
    ),
  );
  return h(
    'section',
    { class: 'block request-time' },
    h(
      'h2',
      null,
      "One request's time",
      h(
        'span',
        { class: 'muted note' },
        `${t.url} · latency p50 ${ms(t.latencyMs)} in the profiled window (${ms(t.measuredLatencyMs)} without the profiler)`,
      ),
    ),
    bar,
    legend,
    h(
      'p',
      { class: 'muted', data: { field: 'request-time-note' } },
      `The CPU parts are the main thread's CPU in the profiled window divided by the ${t.requestsProfiled} requests served while it ran, by where each sample was: a call your code makes into Node or native code (a hash, JSON.parse) counts under Node internals, GC, native, while the hot lines put it on the line of your code that makes it. The waits are the wait probe's, per request; the rest — waiting behind other requests on the event loop, idle, anything not measured — is inferred.`,
      t.overMs > 0
        ? ` The parts add up to ${ms(t.overMs)} more than the p50: waits that ran side by side, or the profiler's own cost in the CPU.`
        : '',
    ),
  );
}
