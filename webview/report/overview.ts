// The head of the page and the Overview tab: what was run, the load and event-loop figures (from
// the window without the profiler), where the CPU went, and the one line and hint to look at first.
// Figures and wording follow the terminal report (src/cli/render.ts).
import { intervalPct, type ReportV1, signedPct, timeoutHint } from '../../src/core/report/index.ts';
import {
  type Change,
  profilerCostOf,
  tooShortText,
  windowsCpuApart,
  windowsCpuApartText,
} from '../../src/core/verdicts/index.ts';
import { CATEGORY_LABELS, CPU_CATEGORIES, deltaView, type ViewContext } from './context.ts';
import { h, type Child } from './dom.ts';
import { dateTime, fmt, ms, num, pct, pctOf, seconds } from './format.ts';
import { externalNote, missingFigure } from './external-load.ts';
import { hasWorkers, threadsSection } from './threads.ts';
import { badge, button, divider } from './toolkit.ts';
import { firstLook } from './first-look.ts';
import { processesSection } from './processes.ts';
import { requestTimeSection } from './request-time.ts';

export function header(ctx: ViewContext): HTMLElement {
  const r = ctx.report;
  const s = r.settings;
  const warmup = s.warmupS ? `, ${seconds(s.warmupS)} warm-up` : '';
  const title = h(
    'div',
    { class: 'title-row' },
    h('h1', null, 'Hotline run ', h('span', { class: 'mono', data: { field: 'run-id' } }, r.id)),
    r.partial ? badge('PARTIAL', { class: 'partial-badge' }) : null,
    ctx.cmp ? h('span', { class: 'muted vs' }, 'compared with ', h('span', { class: 'mono' }, ctx.cmp.baseId)) : null,
    ctx.notCompared
      ? h(
          'span',
          { class: 'muted vs', data: { field: 'not-compared' } },
          'not compared with ',
          h('span', { class: 'mono' }, ctx.notCompared.baseId),
          `: the runs loaded something different (${ctx.notCompared.differences.join('; ')})`,
        )
      : null,
    h('span', { class: 'spacer' }),
    button('Open flame graph', () => ctx.post({ type: 'openFlameGraph' }), { attrs: { id: 'open-flame' } }),
  );
  const ext = r.load?.external;
  const sub = h(
    'div',
    { class: 'subtitle' },
    // The user's own load tool chose the method and the connections, not the settings.
    // A request mix: its size and routes, not its first request's URL.
    s.requests && s.requests.length > 1
      ? h(
          'span',
          { class: 'request', data: { field: 'mix' } },
          `a mix of ${s.requests.length} requests, ${r.routes?.filter((x) => x.requests > 0).length ?? '?'} routes`,
        )
      : h('span', { class: 'mono request' }, ext ? r.app.url || s.url : `${s.method} ${r.app.url || s.url}`),
    ext
      ? h('span', { data: { field: 'load-tool' } }, `load by ${ext.tool ?? 'your command'}`)
      : h('span', null, `${s.connections} connections`),
    h('span', null, `${seconds(s.durationS)} measured + ${seconds(s.durationS)} profiled${warmup}`),
    s.attach
      ? h(
          'span',
          {
            class: 'attached',
            data: { field: 'attach' },
            title: `Hotline attached to an app that was already running (${s.attach}) and left it running`,
          },
          `attached to pid ${r.app.pid}, not started by Hotline`,
        )
      : null,
    h('span', { title: r.startedAt }, dateTime(r.startedAt)),
  );
  const out = h('header', { class: 'head' }, title, sub);
  if (r.partial) {
    out.appendChild(
      h(
        'div',
        { class: 'callout error', attrs: { role: 'alert' }, data: { field: 'partial' } },
        h('strong', null, 'Partial run: '),
        r.partial.reason.replace(/\.\s*$/, ''),
        '. The figures cover what was measured before it ended.',
      ),
    );
  }
  if (r.notes.length > 0) {
    const list = h('ul', null, ...r.notes.map((n) => h('li', null, n)));
    out.appendChild(h('details', { class: 'notes' }, h('summary', null, `Notes (${r.notes.length})`), list));
  }
  return out;
}

export function overview(ctx: ViewContext): HTMLElement {
  const first = firstLook(ctx);
  return h(
    'div',
    { class: 'overview' },
    first,
    first ? divider() : null,
    loadSection(ctx),
    requestTimeSection(ctx),
    eventLoopSection(ctx),
    cpuSection(ctx),
    threadsSection(ctx),
    processesSection(ctx),
  );
}

function stat(label: string, value: string, unit: string, ...extra: Child[]): HTMLElement {
  return h(
    'div',
    { class: 'stat', data: { stat: label } },
    h('div', { class: 'stat-label' }, label),
    h('div', { class: 'stat-value' }, value, unit ? h('span', { class: 'unit' }, unit) : null),
    ...extra.filter((x) => x !== null && x !== undefined).map((x) => h('div', { class: 'stat-sub' }, x)),
  );
}

/** A figure the load tool did not print: a dash, never a 0. */
function absent(label: string): HTMLElement {
  const el = stat(label, '\u2013', '', 'not in the output');
  el.classList.add('absent');
  return el;
}

/** A count that should be 0: shown in the warning colour when it is not. */
function count(label: string, n: number, ...extra: Child[]): HTMLElement {
  const el = stat(label, String(n), '', ...extra);
  if (n !== 0) el.classList.add('warn');
  return el;
}

function section(title: string, note: string, ...children: Child[]): HTMLElement {
  return h(
    'section',
    { class: 'block' },
    h('h2', null, title, note ? h('span', { class: 'muted note' }, note) : null),
    ...children,
  );
}

function loadSection(ctx: ViewContext): HTMLElement {
  const r = ctx.report;
  const l = r.load;
  if (!l)
    return section(
      'Load',
      '',
      h('p', { class: 'muted' }, 'No load figures: this report comes from a profile without a load test.'),
    );
  const ext = l.external;
  if (ext && !ext.parsed) {
    const out = section(
      'Load',
      `profiler off \u00b7 ${l.durationS.toFixed(1)} s`,
      h(
        'p',
        { class: 'callout info', data: { field: 'not-parsed' } },
        'Load figures not parsed (see ',
        h('span', { class: 'mono' }, ext.log),
        ').',
      ),
    );
    out.appendChild(externalNote(ext));
    return out;
  }
  const c = ctx.cmp?.load;
  const lat = l.latencyMs;
  const timeoutsNote = l.timeouts > 0 && !ext;
  const lb = timeoutsNote ? '\u2265 ' : '';
  // A figure the user's tool did not print is a dash, not a made-up 0 (and has no delta).
  const missing = (name: string): boolean => missingFigure(ext, name);
  // Nor a change against a baseline whose tool did not print it (its 0 is no figure).
  const baseMissing = (name: string): boolean =>
    missingFigure(ctx.baseline?.load?.external, name) || ctx.baseline?.load?.external?.parsed === false;
  const latency = (k: 'p50' | 'p90' | 'p99' | 'max'): HTMLElement =>
    missing(`latency ${k}`)
      ? absent(k)
      : stat(
          k,
          lb + fmt(lat[k]),
          'ms',
          deltaView(baseMissing(`latency ${k}`) ? undefined : c?.latencyMs[k], 'lower', fmt, ' ms'),
        );
  const counted = (label: string, key: string, n: number, d: Parameters<typeof deltaView>[0]): HTMLElement =>
    missing(key) ? absent(label) : count(label, n, deltaView(baseMissing(key) ? undefined : d, 'lower', String));
  const tiles = h(
    'div',
    { class: 'stats' },
    stat(
      'req/s',
      fmt(l.requests.perSecond),
      '',
      `${l.requests.total} requests`,
      deltaView(ctx.baseline?.load?.external?.parsed === false ? undefined : c?.requestsPerSecond, 'higher', fmt),
    ),
    latency('p50'),
    latency('p90'),
    latency('p99'),
    latency('max'),
    counted('errors', 'errors', l.errors, c?.errors),
    counted('timeouts', 'timeouts', l.timeouts, c?.timeouts),
    counted('non-2xx', 'non-2xx', l.non2xx, c?.non2xx),
  );
  const codes = Object.entries(l.statusCodes);
  const out = section(
    'Load',
    `profiler off \u00b7 ${l.durationS.toFixed(1)} s${ext ? '' : ` \u00b7 ${l.connections} connections`}`,
    tiles,
  );
  const facts = h('div', { class: 'facts' });
  if (codes.length > 0)
    facts.appendChild(
      h(
        'span',
        null,
        'status ',
        ...codes.flatMap(([k, v], i) => [i ? ' ' : '', h('span', { class: 'mono' }, `${k}\u00d7${v}`)]),
      ),
    );
  const profiledP99 = missing('latency p99') ? '\u2013' : ms(l.profiled.latencyMs.p99);
  facts.appendChild(
    h(
      'span',
      { data: { field: 'profiled' } },
      `profiled window: ${fmt(l.profiled.requests.perSecond)} req/s, p99 ${profiledP99} (against profiler off: ${profilerCostWords(l, ctx.report.eventLoop)})`,
    ),
  );
  out.appendChild(facts);
  if (ext) out.appendChild(externalNote(ext));
  if (timeoutsNote)
    out.appendChild(
      h(
        'p',
        { class: 'muted', data: { field: 'lower-bounds' } },
        `${l.timeouts} timed-out requests are counted at the ${r.settings.timeoutS ?? '?'} s timeout: the percentiles are lower bounds.`,
      ),
    );
  if (ext && l.timeouts > 0)
    out.appendChild(
      h(
        'p',
        { class: 'muted', data: { field: 'lower-bounds' } },
        `${l.timeouts} requests timed out and ${ext.tool ?? 'the tool'} leaves them out of its percentiles: they are lower bounds.`,
      ),
    );
  const warn = (text: string, field: string): void =>
    void out.appendChild(h('div', { class: 'callout warning', data: { field } }, text));
  if (l.non2xx > 0)
    warn(
      `${l.non2xx} of ${l.requests.total} responses were not 2xx: the profile shows that path; check the URL, method, headers and body.`,
      'non2xx',
    );
  if (l.timeouts > 0) warn(timeoutHint(r, ext ? 'the load' : `${l.connections} connections`), 'timeouts');
  const socketErrors = l.errors - l.timeouts;
  if (socketErrors > 0)
    warn(`${socketErrors} connection errors: the app closed or refused connections.`, 'socket-errors');
  if (l.loadLimited)
    warn(
      `The load generator was the limit (it used ${Math.round((l.loadCpu ?? 0) * 100)}% of a core): the app could serve more.`,
      'load-limited',
    );
  return out;
}

function eventLoopSection(ctx: ViewContext): HTMLElement | null {
  const e = ctx.report.eventLoop;
  if (!e) return null;
  const c = ctx.cmp?.eventLoop;
  const lb = e.blockedThroughout ? '\u2265 ' : '';
  const tiles = h(
    'div',
    { class: 'stats' },
    stat('delay p50', lb + fmt(e.delayMs.p50), 'ms', deltaView(c?.p50, 'lower', fmt, ' ms')),
    stat('delay p99', lb + fmt(e.delayMs.p99), 'ms', deltaView(c?.p99, 'lower', fmt, ' ms')),
    stat('delay max', lb + fmt(e.delayMs.max), 'ms', deltaView(c?.max, 'lower', fmt, ' ms')),
    stat(
      'busy',
      String(Math.round(e.utilization * 100)),
      '%',
      deltaView(c?.utilization, 'lower', (v) => `${Math.round(v * 100)}%`),
    ),
    e.cpu !== undefined ? stat('app CPU', String(Math.round(e.cpu * 100)), '%', 'of one core') : null,
  );
  const out = section('Event loop', 'how late a 10 ms timer ran; busy = utilization', tiles);
  if (e.blockedThroughout) {
    out.appendChild(
      h(
        'div',
        { class: 'callout error', data: { field: 'blocked' } },
        h('strong', null, 'Blocked for the whole window: '),
        `no 10 ms timer ran in ${ms(e.delayMs.max)}. The delays are the window's length, a lower bound.`,
      ),
    );
  }
  return out;
}

function cpuSection(ctx: ViewContext): HTMLElement {
  const r = ctx.report;
  const total = r.nonIdleMs;
  const cats = CPU_CATEGORIES.map((k) => ({ k, v: r.categories[k] ?? 0 }));
  const bar = h('div', {
    class: 'stack',
    attrs: {
      role: 'img',
      'aria-label': cats
        .filter((x) => x.v > 0)
        .map((x) => `${CATEGORY_LABELS[x.k]} ${pct(pctOf(x.v, total))}`)
        .join(', '),
    },
  });
  for (const { k, v } of cats) {
    if (v <= 0) continue;
    const seg = h('span', { class: `seg cat-${k}`, title: `${CATEGORY_LABELS[k]}: ${pct(pctOf(v, total))}, ${ms(v)}` });
    seg.style.width = `${pctOf(v, total)}%`;
    bar.appendChild(seg);
  }
  const unit = ctx.cmp?.unit === 'ms/request' ? ' ms/req' : ' ms';
  const legend = h(
    'div',
    { class: 'legend' },
    ctx.cmp
      ? h(
          'div',
          { class: 'legend-row legend-head muted' },
          h('span'),
          h('span'),
          h('span', { class: 'num' }, 'share'),
          h('span', { class: 'num' }, 'CPU'),
          h('span', null, `vs base,${unit}`),
        )
      : null,
    ...cats.map(({ k, v }) => {
      const d = ctx.cmp?.categories[k];
      return h(
        'div',
        { class: `legend-row${v > 0 ? '' : ' zero'}`, data: { category: k } },
        h('span', { class: `swatch cat-${k}` }),
        h('span', { class: 'legend-label' }, CATEGORY_LABELS[k]),
        h('span', { class: 'num legend-pct' }, pct(pctOf(v, total))),
        h('span', { class: 'num muted' }, ms(v)),
        d && d.change !== 0
          ? h(
              'span',
              {
                class: `num delta ${d.change < 0 ? 'good' : 'bad'}`,
                title: `per request: ${num(d.base)} \u2192 ${num(d.current)}${unit}`,
              },
              `${num(d.base)} \u2192 ${num(d.current)}${unit}`,
            )
          : h('span'),
      );
    }),
  );
  const p = r.profile;
  const out = section(
    'Where the CPU went',
    `of ${fmt(total)} ms non-idle${hasWorkers(ctx) ? ' on the main thread' : ''}`,
    bar,
    legend,
  );
  // "your code <0.1%" beside a hottest line of 99% is no contradiction, but it reads like one.
  out.appendChild(
    h(
      'p',
      { class: 'muted', data: { field: 'cpu-note' } },
      'By what ran: “your code” is its own statements only; the hottest line’s own time also counts the Node.js and native code it calls.',
    ),
  );
  out.appendChild(
    h(
      'p',
      { class: 'muted' },
      `idle ${ms(r.categories.idle)} (not in the bar) \u00b7 profile ${(p.durationMs / 1000).toFixed(1)} s, ${p.samples} samples every ${p.intervalUs} \u00b5s`,
    ),
  );
  return out;
}

/** The profiled sub-windows against the measured ones of the same run (render.ts profilerCostText). */
function profilerCostWords(l: NonNullable<ReportV1['load']>, ctxLoop: ReportV1['eventLoop']): string {
  const cost = profilerCostOf(l.subWindows);
  const text = (c: Change): string => {
    const interval = c.lowPct !== undefined && c.highPct !== undefined ? ` ${intervalPct(c.lowPct, c.highPct)}` : '';
    if (c.verdict === 'too short') return `${signedPct(c.changePct)} ${tooShortText(c)}`;
    return c.verdict === 'within noise'
      ? `${signedPct(c.changePct)} within noise${interval}`
      : `${signedPct(c.changePct)}${interval}`;
  };
  const apart = windowsCpuApart({ eventLoop: ctxLoop });
  if (cost?.cpuPerRequest || cost?.requestsPerSecond) {
    return [
      cost.cpuPerRequest ? `CPU/request ${text(cost.cpuPerRequest)}` : '',
      apart ? windowsCpuApartText(apart) : cost.requestsPerSecond ? `req/s ${text(cost.requestsPerSecond)}` : '',
    ]
      .filter(Boolean)
      .join(', ');
  }
  const change =
    l.requests.perSecond > 0
      ? ((l.profiled.requests.perSecond - l.requests.perSecond) / l.requests.perSecond) * 100
      : 0;
  return `req/s ${signedPct(change)}, one window each: no spread`;
}
