// The top of the Overview tab: the hottest line of your code (and of the workers') and the first hint.
import { codeText, h } from './dom.ts';
import { functionLabel } from '../../src/names.ts';
import { type ViewContext } from './context.ts';
import { ms, pct, where } from './format.ts';
import { hasWorkers } from './threads.ts';
import { childProcessTop } from './processes.ts';
import { link } from './toolkit.ts';
import {
  capacityOf,
  corePct,
  formatCorePct,
  formatCostMs,
  perRequestMs,
  type CapacityBasis,
} from '../../src/capacity.ts';

/** The hottest line and the first hint: what a person should read before anything else. */
export function firstLook(ctx: ViewContext): HTMLElement | null {
  const r = ctx.report;
  // Main-thread lines only: a worker line's share is of the workers' CPU, another whole.
  const top = r.lines.find((l) => l.thread === undefined && l.ownMs > 0);
  const workers = hasWorkers(ctx);
  const hint = r.hints[0];
  // A cluster primary may have no line of its own: its children's hottest line still shows.
  const childTop = childProcessTop(ctx);
  if (!top && !hint && !childTop) return null;
  const box = h('section', { class: 'first-look' });
  const capacity = capacityOf(r);
  if (top) {
    const callee = top.callees[0];
    box.appendChild(
      h(
        'div',
        { class: 'top-line', data: { field: 'top-line' } },
        h(
          'div',
          { class: 'label' },
          workers ? 'Hottest line of your code on the main thread' : 'Hottest line of your code',
        ),
        h(
          'div',
          { class: 'top-line-main' },
          // What the line costs of the app's capacity: a mostly idle app's top line reads as cool.
          h(
            'span',
            {
              class: `big-pct${corePct(top.ownMs, capacity) < COOL_CORE_PCT ? ' cool' : ''}`,
              data: { field: 'top-core' },
            },
            formatCorePct(corePct(top.ownMs, capacity)),
            h('span', { class: 'big-unit' }, ' of a core'),
          ),
          h(
            'span',
            { class: 'top-line-what' },
            link(
              [h('span', { class: 'mono' }, where(top.file, top.line, r.app.cwd))],
              () => ctx.openSource(top.file, top.line),
              { title: 'Open in the editor' },
            ),
            ' in ',
            h('span', { class: 'mono fn' }, top.function),
            callee
              ? h(
                  'span',
                  { class: 'muted' },
                  ' \u2192 calls ',
                  h('span', { class: 'mono' }, functionLabel(callee.name, callee.file)),
                )
              : null,
          ),
        ),
        h(
          'div',
          { class: 'muted', data: { field: 'top-cost' } },
          topCost(top.ownMs, top.ownPct, capacity, r.nonIdleMs, workers),
        ),
        workers ? workerTop(ctx) : null,
        childTop,
      ),
    );
  } else if (childTop) box.appendChild(h('div', { class: 'top-line' }, childTop));
  if (hint) {
    box.appendChild(
      h(
        'div',
        { class: 'top-hint', data: { field: 'top-hint' } },
        h('div', { class: 'label' }, 'Hint'),
        h('div', { class: 'hint-message' }, codeText(hint.message)),
        h('div', { class: 'hint-fix' }, h('strong', null, 'Fix: '), codeText(hint.fix)),
      ),
    );
  }
  return box;
}

/** Below this share of a core the hottest line is no bottleneck: its figure is not painted hot. */
const COOL_CORE_PCT = 10;

/** "0.42 ms per request · own 336 ms = 66% of the 512 ms of busy CPU (the line and the calls it makes)". */
function topCost(ownMs: number, ownPct: number, capacity: CapacityBasis, nonIdleMs: number, workers: boolean): string {
  const per = perRequestMs(ownMs, capacity);
  return `${per !== undefined ? `${formatCostMs(per)} per request · ` : ''}own ${ms(ownMs)} = ${pct(ownPct)} of the ${ms(nonIdleMs)} of ${workers ? "the main thread's " : ''}busy CPU (the line and the calls it makes)`;
}

/** Under the main thread's hottest line: the workers' own, whose share is of the workers' CPU. */
function workerTop(ctx: ViewContext): HTMLElement | null {
  const r = ctx.report;
  const w = r.lines.find((l) => l.thread === 'worker' && l.ownMs > 0);
  if (!w) return null;
  return h(
    'div',
    { class: 'worker-top', data: { field: 'worker-top-line' } },
    'In worker threads: ',
    link([h('span', { class: 'mono' }, where(w.file, w.line, r.app.cwd))], () => ctx.openSource(w.file, w.line), {
      title: 'Open in the editor',
    }),
    ' in ',
    h('span', { class: 'mono fn' }, w.function),
    h('span', { class: 'muted' }, `, ${pct(w.ownPct)} of worker CPU`),
  );
}
