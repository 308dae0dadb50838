// The Hot lines, Functions, Hints and Compare tabs. Rows that point at a file on disk open it at
// the line (click or Enter); every name and path is a text node.
import { functionLabel } from '../../src/names.ts';
import type { CallLink, FunctionCost, Hint, LineCost } from '../../src/core/analysis/model.ts';
import type { CostChange } from './compare.ts';
import { intervalPct } from '../../src/core/report/index.ts';
import { isRemovedLine } from '../../src/core/verdicts/index.ts';
import { CATEGORY_LABELS, type ViewContext } from './context.ts';
import { codeText, h, share, type Child } from './dom.ts';
import { canOpen, fmt, num, pct, signed, where } from './format.ts';
import { hasWorkers, workerTag } from './threads.ts';
import { processTag } from './processes.ts';
import { capacityOf, formatCostMs } from '../../src/capacity.ts';
import { badge, dataGrid, divider, link, type Column, type GridRow } from './toolkit.ts';

/** Enough rows for any real hunt; report.json keeps the rest. */
export const MAX_ROWS = 200;
const MAX_CALLEES = 3;
/** Wide enough for "Own, worker CPU"; the main and worker grids keep the same columns. */
const SHARE_WIDTH = '170px';
/** "Own" and "Self" need less: the share and its bar. */
const MAIN_SHARE_WIDTH = '128px';

function rowData(kind: string, file: string, line: number, fn: string): Record<string, string> {
  return { kind, file, line: String(line), fn };
}

function more(total: number, shown: number, what: string): HTMLElement | null {
  return total > shown ? h('p', { class: 'muted' }, `${total - shown} more ${what} in report.json.`) : null;
}

export function hotLines(ctx: ViewContext): HTMLElement {
  const r = ctx.report;
  const lines = r.lines.filter((l) => l.ownMs > 0 || l.totalMs > 0);
  const intro = h(
    'p',
    { class: 'muted intro' },
    'Own time: each sample counted once, on the deepest line of your code. Self: the line itself at the top of the stack. Total: the line and the calls made from it.',
  );
  if (lines.length === 0)
    return h('div', null, intro, h('p', { class: 'empty' }, 'No samples in your code: see the Functions tab.'));
  return h(
    'div',
    null,
    intro,
    ...byThread(ctx, lines, {
      grid: lineGrid,
      what: 'lines',
      workerNote: workerNote(ctx),
      emptyMain: 'No samples in your code on the main thread.',
    }),
  );
}

/**
 * Rows of the main thread, then (when the run had workers) the workers' in their own group with
 * a link down to it: their percentages are of another whole, so they never share one list.
 */
function byThread<T extends { thread?: 'worker' | 'process' }>(
  ctx: ViewContext,
  rows: T[],
  o: {
    grid: (ctx: ViewContext, rows: T[], thread: RowGroup) => HTMLElement;
    what: string;
    workerNote: string;
    emptyMain: string;
  },
): Child[] {
  const main = rows.filter((x) => x.thread === undefined);
  const worker = rows.filter((x) => x.thread === 'worker');
  const list = (xs: T[], thread: RowGroup, empty: string): Child[] => [
    xs.length > 0 ? o.grid(ctx, xs, thread) : h('p', { class: 'empty' }, empty),
    more(xs.length, Math.min(xs.length, MAX_ROWS), o.what),
  ];
  // The app's child processes (cluster workers, forks): a group of their own, after the rest.
  const child = rows.filter((x) => x.thread === 'process');
  const children: Child[] =
    child.length > 0
      ? [divider(), group('Child processes', processNote(ctx), 'process', ...list(child, 'process', ''))]
      : [];
  if (!hasWorkers(ctx))
    return [o.grid(ctx, main, 'main'), more(main.length, Math.min(main.length, MAX_ROWS), o.what), ...children];
  const mainGroup = group(
    'Main thread',
    `% of the main thread's non-idle CPU (${fmt(ctx.report.nonIdleMs)} ms)`,
    'main',
    ...list(main, 'main', o.emptyMain),
  );
  // No row of the workers' (their time was all in dependencies or Node's code): no heading with
  // nothing under it; the Overview's Threads section still lists each worker's busy time.
  if (worker.length === 0) return [mainGroup, ...children];
  const workerGroup = group('Worker threads', o.workerNote, 'worker', ...list(worker, 'worker', ''));
  return [jump(workerGroup, worker.length, o.what), mainGroup, divider(), workerGroup, ...children];
}

/** Which rows a table shows: the main thread's, the worker threads', the child processes'. */
type RowGroup = 'main' | 'worker' | 'process';

/** "% of child process CPU (all processes together, 4166 ms)": what a child process row's share is of. */
function processNote(ctx: ViewContext): string {
  const c = ctx.report.childProcesses;
  return `% of child process CPU (all ${c?.count ?? ''} processes together${c ? `, ${fmt(c.nonIdleMs)} ms` : ''})`;
}

/** Below a long main-thread list the workers' group is out of sight: a link scrolls to it. */
function jump(target: HTMLElement, n: number, what: string): HTMLElement {
  return h(
    'p',
    { class: 'jump' },
    link([`Worker threads (${n} ${what}) \u2193`], () => target.scrollIntoView({ block: 'start' }), {
      attrs: { 'data-field': 'jump-workers' },
    }),
  );
}

/** "% of worker CPU (all workers together, 1676 ms)": what a worker row's share is of. */
function workerNote(ctx: ViewContext): string {
  const w = ctx.report.workers;
  return `% of worker CPU (all workers together${w ? `, ${fmt(w.nonIdleMs)} ms` : ''})`;
}

function group(title: string, note: string, thread: RowGroup, ...children: Child[]): HTMLElement {
  return h(
    'section',
    { class: 'block thread-group', data: { thread } },
    h('h2', null, title, h('span', { class: 'muted note' }, note)),
    ...children,
  );
}

/** Time that belongs to one of several lines, which one not measured (no stack captures in this profile). */
function oneOfTag(lines: number[]): HTMLElement {
  return h(
    'span',
    {
      class: 'muted one-of',
      title: 'Nothing measured which of these lines made the call: the time is theirs together, not split.',
    },
    ` one of lines ${lines.join(', ')}`,
  );
}

function lineGrid(ctx: ViewContext, lines: LineCost[], thread: RowGroup): HTMLElement {
  const r = ctx.report;
  const worker = thread === 'worker';
  const child = thread === 'process';
  // Per request only where the requests are the main thread's: a worker's CPU is not one request's.
  const requests = thread === 'main' ? capacityOf(r).requests : undefined;
  // The line, its share and its cost come first: beside the code (~520 px) they are what fits.
  const columns: Column[] = [
    { title: 'Line', width: worker || child ? 'minmax(200px, 1.2fr)' : 'minmax(180px, 1.2fr)' },
    worker
      ? {
          title: 'Own, worker CPU',
          width: SHARE_WIDTH,
          help: "Share of the worker threads' non-idle CPU whose deepest line of your code is this one",
        }
      : child
        ? {
            title: 'Own, child CPU',
            width: SHARE_WIDTH,
            help: "Share of the child processes' non-idle CPU whose deepest line of your code is this one",
          }
        : {
            title: 'Own',
            width: MAIN_SHARE_WIDTH,
            help: 'Share of non-idle CPU whose deepest line of your code is this one',
          },
    requests !== undefined
      ? { title: 'ms/request', width: '110px', numeric: true, help: 'Own time per request served while profiling' }
      : { title: 'Own ms', width: '88px', numeric: true },
    ...(requests !== undefined ? [{ title: 'Own ms', width: '88px', numeric: true }] : []),
    { title: 'Self ms', width: '88px', numeric: true },
    { title: 'Total ms', width: '88px', numeric: true },
    {
      title: 'Calls from this line',
      width: 'minmax(180px, 1.6fr)',
      help: 'Total time of the calls made from the line',
    },
  ];
  const rows: GridRow[] = lines.slice(0, MAX_ROWS).map((l) => ({
    cells: [
      [
        h(
          'span',
          { class: 'loc-cell' },
          location(l.file, l.line, r.app.cwd),
          l.oneOf ? oneOfTag(l.oneOf) : null,
          worker ? workerTag() : null,
          child ? processTag(l.processes) : null,
        ),
        h('span', { class: 'mono fn cell-sub muted' }, l.function),
      ],
      [share(l.ownPct, 'hot', l.ownPctPm)],
      ...(requests !== undefined ? [[formatCostMs(l.ownMs / requests)], [fmt(l.ownMs)]] : [[fmt(l.ownMs)]]),
      [fmt(l.selfMs)],
      [fmt(l.totalMs)],
      [callees(l, r.app.cwd)],
    ],
    props: {
      data: { ...rowData('line', l.file, l.line, l.function), thread },
      title: canOpen(l.file, l.line) ? `Open ${where(l.file, l.line, r.app.cwd)}` : '',
    },
    onOpen: canOpen(l.file, l.line) ? () => ctx.openSource(l.file, l.line) : undefined,
  }));
  return dataGrid(columns, rows, {
    class: `grid hot-lines ${thread}`,
    title: worker
      ? 'Hot lines of your code in worker threads'
      : child
        ? 'Hot lines of your code in child processes'
        : 'Hot lines of your code',
  });
}

/** file:line, in link colour when a click opens it. */
function location(file: string, line: number, cwd: string): HTMLElement {
  return h('span', { class: `mono ${canOpen(file, line) ? 'loc' : 'muted'}` }, where(file, line, cwd));
}

function callees(l: LineCost, cwd: string): Child {
  if (l.callees.length === 0) return null;
  const list = h('span', { class: 'callees' });
  for (const c of l.callees.slice(0, MAX_CALLEES)) list.appendChild(callee(c, cwd));
  if (l.callees.length > MAX_CALLEES)
    list.appendChild(h('span', { class: 'muted' }, `+${l.callees.length - MAX_CALLEES} more`));
  return list;
}

function callee(c: CallLink, cwd: string): HTMLElement {
  return h(
    'span',
    { class: 'callee', title: where(c.file, c.line, cwd) },
    h('span', { class: 'mono' }, functionLabel(c.name, c.file)),
    h('span', { class: 'muted' }, ` ${fmt(c.totalMs)} ms`),
    c.inferred
      ? h(
          'span',
          {
            class: 'inferred',
            title: 'Call site found by reading the source: V8 gives line numbers only for the top frame',
          },
          'inferred',
        )
      : null,
  );
}

export function functions(ctx: ViewContext): HTMLElement {
  const r = ctx.report;
  const list = yourCodeFirst(r.functions.filter((f) => f.category !== 'idle' && (f.selfMs > 0 || f.totalMs > 0)));
  if (list.length === 0) return h('p', { class: 'empty' }, 'No functions were sampled.');
  const intro = h(
    'p',
    { class: 'muted intro' },
    'Every function by self time: your code first, then everything else (dependencies, Node internals, native code).',
  );
  return h(
    'div',
    null,
    intro,
    ...byThread(ctx, list, {
      grid: functionGrid,
      what: 'functions',
      workerNote: `your code only, ${workerNote(ctx)}`,
      emptyMain: 'No functions were sampled on the main thread.',
    }),
  );
}

/**
 * Your code's functions, then the rest, each part in the report's order (by self time): a user
 * looks for their own code first, not for the native "run" that sits on top of everyone's stack.
 */
export function yourCodeFirst(list: FunctionCost[]): FunctionCost[] {
  return [...list.filter((f) => f.category === 'user'), ...list.filter((f) => f.category !== 'user')];
}

function functionGrid(ctx: ViewContext, list: FunctionCost[], thread: RowGroup): HTMLElement {
  const r = ctx.report;
  const worker = thread === 'worker';
  const child = thread === 'process';
  const requests = thread === 'main' ? capacityOf(r).requests : undefined;
  // The function (and where it is, under its name), its share and its cost first: they fit at ~520 px.
  const columns: Column[] = [
    { title: 'Function', width: 'minmax(180px, 1.6fr)' },
    worker
      ? {
          title: 'Self, worker CPU',
          width: SHARE_WIDTH,
          help: "Share of the worker threads' non-idle CPU spent in the function itself",
        }
      : child
        ? {
            title: 'Self, child CPU',
            width: SHARE_WIDTH,
            help: "Share of the child processes' non-idle CPU spent in the function itself",
          }
        : { title: 'Self', width: MAIN_SHARE_WIDTH, help: 'Share of non-idle CPU spent in the function itself' },
    requests !== undefined
      ? { title: 'ms/request', width: '110px', numeric: true, help: 'Self time per request served while profiling' }
      : { title: 'Self ms', width: '88px', numeric: true },
    ...(requests !== undefined ? [{ title: 'Self ms', width: '88px', numeric: true }] : []),
    { title: 'Total', width: '72px', numeric: true, help: 'The function and everything it called (each sample once)' },
    { title: 'Total ms', width: '88px', numeric: true },
    { title: 'Category', width: '150px' },
  ];
  const rows: GridRow[] = list.slice(0, MAX_ROWS).map((f) => ({
    cells: [
      [
        h('span', { class: 'mono fn' }, functionLabel(f.name, f.file)),
        worker ? workerTag() : null,
        child ? processTag(undefined) : null,
        h('span', { class: 'cell-sub' }, location(f.file, f.line, r.app.cwd)),
      ],
      [share(f.selfPct, '', f.selfPctPm)],
      ...(requests !== undefined ? [[formatCostMs(f.selfMs / requests)], [fmt(f.selfMs)]] : [[fmt(f.selfMs)]]),
      [pct(f.totalPct)],
      [fmt(f.totalMs)],
      [h('span', { class: 'category' }, h('span', { class: `swatch cat-${f.category}` }), CATEGORY_LABELS[f.category])],
    ],
    props: {
      data: { ...rowData('function', f.file, f.line, f.name), thread },
      title: canOpen(f.file, f.line) ? `Open ${where(f.file, f.line, r.app.cwd)}` : '',
    },
    onOpen: canOpen(f.file, f.line) ? () => ctx.openSource(f.file, f.line) : undefined,
  }));
  return dataGrid(columns, rows, {
    class: `grid functions ${thread}`,
    title: worker
      ? 'Functions of your code in worker threads'
      : child
        ? 'Functions of your code in child processes'
        : 'Functions',
  });
}

export function hints(ctx: ViewContext): HTMLElement {
  const r = ctx.report;
  const workerHints = r.workers?.hints ?? [];
  if (r.hints.length === 0 && workerHints.length === 0)
    return h('p', { class: 'empty' }, 'No hints: no rule matched a hot path in this run.');
  if (workerHints.length === 0) return hintList(ctx, r.hints, false);
  return h(
    'div',
    null,
    r.hints.length > 0 ? group('Main thread', '', 'main', hintList(ctx, r.hints, false)) : null,
    group('Worker threads', "shares of the workers' CPU", 'worker', hintList(ctx, workerHints, true)),
  );
}

function hintList(ctx: ViewContext, list: Hint[], worker: boolean): HTMLElement {
  const r = ctx.report;
  return h(
    'div',
    { class: 'hints' },
    ...list.map((hint) => {
      const loc = hint.file ? where(hint.file, hint.line, r.app.cwd) : '';
      return h(
        'article',
        { class: 'hint', data: rowData('hint', hint.file, hint.line, hint.function ?? '') },
        h(
          'div',
          { class: 'hint-head' },
          h('code', null, hint.api),
          badge(`${pct(hint.totalPct)} of ${worker ? 'worker ' : ''}CPU`, {
            title: `${fmt(hint.totalMs ?? 0)} ms, ${pct(hint.totalPct)} of ${worker ? "the workers' " : ''}non-idle samples`,
          }),
          worker ? workerTag() : null,
          h('span', { class: 'spacer' }),
          loc && canOpen(hint.file, hint.line)
            ? link([h('span', { class: 'mono' }, loc)], () => ctx.openSource(hint.file, hint.line), {
                title: 'Open in the editor',
              })
            : h('span', { class: 'mono muted' }, loc),
        ),
        h('div', { class: 'hint-message' }, codeText(hint.message)),
        h('div', { class: 'hint-fix' }, h('strong', null, 'Fix: '), codeText(hint.fix)),
      );
    }),
  );
}

/** "cheaper", "costlier", "within noise", "too short to tell" or "moved", with why on hover. */
function verdictTag(x: CostChange, cwd: string): HTMLElement {
  if (x.moved) {
    // The work left this function for another (or came from one): no saving, no new cost.
    const m = x.moved;
    const word = m.verdict === undefined ? 'not judged' : m.verdict === 'too short' ? 'too short to tell' : m.verdict;
    const interval = m.lowPct !== undefined && m.highPct !== undefined ? ` ${intervalPct(m.lowPct, m.highPct, 0)}` : '';
    return h(
      'span',
      {
        class: `tag ${m.verdict === 'better' ? 'good' : m.verdict === 'worse' ? 'bad' : ''}`,
        title: `${movedText(m, cwd)}: the same work, ${num(m.base)} \u2192 ${num(m.current)} (${word}${interval}); not a saving, nor a new cost`,
        data: { verdict: m.verdict ?? '', moved: m.to ? 'to' : 'from' },
      },
      m.verdict === undefined ? 'moved' : `moved, ${word}`,
    );
  }
  if (x.verdict === 'within noise' || x.verdict === 'too short')
    return h(
      'span',
      {
        class: 'tag',
        title:
          x.verdict === 'too short'
            ? 'too few sub-windows a side to tell a change from noise'
            : x.heldBack
              ? "the request's figures did not move with it: no change is claimed on this line"
              : "the change is inside the noise inferred from its samples and the runs' spread",
        data: { verdict: x.verdict },
      },
      x.verdict === 'too short' ? 'too short to tell' : 'within noise',
    );
  return h('span', { class: `tag ${x.change < 0 ? 'good' : 'bad'}` }, x.change < 0 ? 'cheaper' : 'costlier');
}

/**
 * "rewritten, was :35" / "removed, was :63": a row whose code changed says so, so that a removed
 * line and the line that has its number now never read as the same place. The code is the title.
 */
function codeChange(x: CostChange): Child {
  const c = x.codeChanged;
  if (!c) return null;
  const removed = isRemovedLine(x);
  const text = `${removed ? 'removed' : 'rewritten'}${removed || c.baseLine !== x.line ? `, was :${c.baseLine}` : ''}`;
  const title = [
    c.before !== undefined ? `was${c.baseFunction ? ` (in ${c.baseFunction})` : ''}: ${c.before}` : '',
    c.after !== undefined ? `now: ${c.after}` : '',
  ]
    .filter(Boolean)
    .join('\n');
  return h('span', { class: 'cell-sub muted', title, data: { codeChange: removed ? 'removed' : 'rewritten' } }, text);
}

/** "moved to setImmediate callback server.js:115" (or "moved from …"; "with checkPassword" for a caller). */
function movedText(m: NonNullable<CostChange['moved']>, cwd: string): string {
  const other = m.to ?? m.from;
  if (!other) return 'moved';
  const via = m.via ? ` with ${m.via.name}` : '';
  return `${m.to ? 'moved to' : 'moved from'} ${other.name || '(anonymous)'} ${where(other.file, other.line, cwd)}${via}`;
}

export function comparison(ctx: ViewContext): HTMLElement {
  const c = ctx.cmp!;
  const r = ctx.report;
  const table = (title: string, note: string, list: CostChange[], kind: string): HTMLElement => {
    // Where, the change and base → now first (they fit at ~520 px); the verdict under the change.
    const columns: Column[] = [
      { title: kind === 'compare-line' ? 'Line' : 'Function', width: 'minmax(180px, 2fr)' },
      { title: 'Change', width: '112px', numeric: true },
      { title: 'Base \u2192 now', width: '150px', numeric: true },
    ];
    const name = (x: CostChange): HTMLElement => h('span', { class: 'mono fn' }, x.name || '(anonymous)');
    // Where the work went (or came from), under the row's own place.
    const moved = (x: CostChange): Child =>
      x.moved ? h('span', { class: 'cell-sub muted', data: { movedNote: '' } }, movedText(x.moved, r.app.cwd)) : null;
    const rows: GridRow[] = list.map((x) => ({
      cells: [
        kind === 'compare-line'
          ? [
              h('span', { class: 'loc-cell' }, location(x.file, x.line, r.app.cwd)),
              h('span', { class: 'cell-sub muted' }, name(x)),
              x.thread === 'worker' ? workerTag() : null,
              codeChange(x),
              moved(x),
            ]
          : [
              name(x),
              x.thread === 'worker' ? workerTag() : null,
              h('span', { class: 'cell-sub' }, location(x.file, x.line, r.app.cwd)),
              moved(x),
            ],
        [
          h(
            'span',
            {
              class:
                x.moved || x.verdict === 'within noise' || x.verdict === 'too short'
                  ? ''
                  : x.change < 0
                    ? 'good'
                    : 'bad',
              title:
                x.lowPct !== undefined && x.highPct !== undefined
                  ? `95% interval ${intervalPct(x.lowPct, x.highPct, 0)}`
                  : '',
            },
            signed(x.change),
          ),
          h('span', { class: 'cell-sub' }, verdictTag(x, r.app.cwd)),
        ],
        [`${num(x.base)} \u2192 ${num(x.current)}`],
      ],
      props: { data: { ...rowData(kind, x.file, x.line, x.name), thread: x.thread ?? 'main' } },
      onOpen: canOpen(x.file, x.line) ? () => ctx.openSource(x.file, x.line) : undefined,
    }));
    return h(
      'section',
      { class: 'block' },
      h('h2', null, title, h('span', { class: 'muted note' }, note)),
      list.length > 0
        ? dataGrid(columns, rows, { class: 'grid compare', title })
        : h('p', { class: 'empty' }, 'No change.'),
    );
  };
  const unit = `${c.unit}, base \u2192 now`;
  return h(
    'div',
    { class: 'compare-view' },
    h(
      'p',
      { class: 'muted intro' },
      `This run against the baseline ${c.baseId}. Costs are ${c.unit === 'ms/request' ? 'CPU ms per request served while profiling, so runs of different length and throughput compare fairly' : 'CPU ms (the runs have no load figures)'}. Each change is weighed against the noise inferred from its samples and the runs' spread (95%).`,
      [...c.lines, ...c.functions].some((x) => x.thread === 'worker')
        ? " Rows tagged worker ran in worker threads: their CPU is the workers', not the main thread's."
        : '',
    ),
    table('Lines of your code', `own time, ${unit}`, c.lines, 'compare-line'),
    divider(),
    table('Functions of your code', `total time, ${unit}`, c.functions, 'compare-function'),
  );
}
