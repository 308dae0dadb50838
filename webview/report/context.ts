// What every view of the page gets: the report, the comparison with the baseline when there is
// one, and the one way out of the page (a validated FromReportView message to the extension).
import { intervalPct, type ReportV1, signedPct } from '../../src/core/report/index.ts';
import { tooShortText } from '../../src/core/verdicts/index.ts';
import type { Category } from '../../src/core/analysis/model.ts';
import type { FromReportView } from '../../src/protocol.ts';
import type { Comparison, Delta } from './compare.ts';
import { h } from './dom.ts';
import { signed } from './format.ts';

export interface ViewContext {
  report: ReportV1;
  baseline?: ReportV1;
  cmp?: Comparison;
  /** A baseline that loaded something different: no deltas, and the differences named. */
  notCompared?: { baseId: string; differences: string[] };
  post(msg: FromReportView): void;
  openSource(file: string, line: number): void;
}

/** The buckets of the CPU bar in the order they stack; idle is shown apart (render.ts wording). */
export const CPU_CATEGORIES: readonly Exclude<Category, 'idle'>[] = [
  'user',
  'dependencies',
  'nodeInternals',
  'native',
  'gc',
  'program',
];

export const CATEGORY_LABELS: Record<Category, string> = {
  user: 'your code',
  dependencies: 'dependencies',
  nodeInternals: 'node internals',
  native: 'native',
  gc: 'GC',
  program: 'program',
  idle: 'idle',
};

/**
 * "↑ 48% · was 25.4": the change against the baseline, green when it is better. `better` says
 * which direction is good (req/s: higher; latency, errors: lower).
 */
export function deltaView(
  d: Delta | undefined,
  better: 'higher' | 'lower',
  show: (v: number) => string,
  unit = '',
): HTMLElement | null {
  if (!d) return null;
  if (d.change === 0)
    return h('span', { class: 'delta same', title: `same as the baseline: ${show(d.base)}${unit}` }, 'same as base');
  const n = d.noise;
  const interval =
    n?.lowPct !== undefined && n.highPct !== undefined ? ` 95% interval ${intervalPct(n.lowPct, n.highPct)}` : '';
  if (n?.verdict === 'too short') {
    // The change as measured, in no colour: too few sub-windows a side to call it either way.
    const pct = d.changePct ?? n.changePct;
    return h(
      'span',
      {
        class: 'delta same',
        title: `${show(d.base)}${unit} \u2192 ${show(d.current)}${unit}: ${tooShortText(n)}`,
        data: { delta: 'too short' },
      },
      `${d.change > 0 ? '\u2191' : '\u2193'} ${signed(pct, Math.abs(pct) >= 10 ? 0 : 1)}%`,
      h('span', { class: 'was' }, `was ${show(d.base)}${unit}`),
      h('span', { class: 'was' }, 'too short to tell'),
    );
  }
  if (n?.verdict === 'within noise') {
    return h(
      'span',
      {
        class: 'delta same',
        title: `${show(d.base)}${unit} \u2192 ${show(d.current)}${unit}: ${signedPct(n.changePct)}, within the runs' noise (${interval.trim()})`,
        data: { delta: 'within noise' },
      },
      `\u2248 within noise`,
      h('span', { class: 'was' }, `was ${show(d.base)}${unit}`),
    );
  }
  const good = better === 'higher' ? d.change > 0 : d.change < 0;
  const arrow = d.change > 0 ? '\u2191' : '\u2193';
  const amount =
    d.changePct !== undefined
      ? `${signed(d.changePct, Math.abs(d.changePct) >= 10 ? 0 : 1)}%`
      : `${signed(d.change)}${unit}`;
  if (!n) {
    // No value per sub-window (p90, max; runs without sub-windows): no test, so no colour and no
    // word — a p90 "↓ −19%" in green beside a p50 "within noise" read as a verdict it never had.
    return h(
      'span',
      {
        class: 'delta same',
        title: `${show(d.base)}${unit} \u2192 ${show(d.current)}${unit}: not weighed against the noise (no value per sub-window)`,
        data: { delta: 'not judged' },
      },
      `${arrow} ${amount}`,
      h('span', { class: 'was' }, `was ${show(d.base)}${unit}`),
      h('span', { class: 'was' }, 'not judged'),
    );
  }
  const word = good ? 'better' : 'worse';
  return h(
    'span',
    {
      class: `delta ${good ? 'good' : 'bad'}`,
      title: `${show(d.base)}${unit} \u2192 ${show(d.current)}${unit} (${word}${interval ? `;${interval}` : ''})`,
      data: { delta: word },
    },
    `${arrow} ${amount}`,
    h('span', { class: 'was' }, `was ${show(d.base)}${unit}`),
  );
}
