// The Allocations tab (runs with --heap): how many bytes the main thread allocated in the
// profiled window, and which functions of your code allocated them. V8's sampling heap profile
// names functions, not lines: a "line" here is where the allocating function starts (the
// engine's note says so too), so the rows open the function, like render.ts "Allocations".
import type { HeapFigures } from '../../src/core/report/index.ts';
import { CATEGORY_LABELS, type ViewContext } from './context.ts';
import { h, share } from './dom.ts';
import { bytes, canOpen, pct, pctOf, where } from './format.ts';
import { MAX_ROWS } from './tables.ts';
import { type Column, dataGrid, divider, type GridRow } from './toolkit.ts';

/** A figure with its label (and a line under it): the tiles of the Allocations and Stalls tabs. */
export function tile(label: string, value: string, sub?: string): HTMLElement {
  return h(
    'div',
    { class: 'stat', data: { stat: label } },
    h('div', { class: 'stat-label' }, label),
    h('div', { class: 'stat-value' }, value),
    sub ? h('div', { class: 'stat-sub' }, sub) : null,
  );
}

export function allocations(ctx: ViewContext, heap: HeapFigures): HTMLElement {
  const r = ctx.report;
  const perRequest = (b: number): string =>
    heap.bytesPerRequest !== undefined && heap.totalBytes > 0
      ? bytes((b / heap.totalBytes) * heap.bytesPerRequest)
      : '\u2013';
  const tiles = h(
    'div',
    { class: 'stats' },
    tile('allocated', bytes(heap.totalBytes), 'profiled window'),
    heap.bytesPerSecond !== undefined ? tile('per second', bytes(heap.bytesPerSecond)) : null,
    heap.bytesPerRequest !== undefined ? tile('per request', bytes(heap.bytesPerRequest)) : null,
    tile(
      'outside your code',
      bytes(heap.outsideUserBytes),
      `${pct(pctOf(heap.outsideUserBytes, heap.totalBytes))} of all`,
    ),
    tile('sampled every', bytes(heap.samplingIntervalBytes)),
  );
  const lineColumns: Column[] = [
    {
      title: 'Share',
      width: '140px',
      help: 'Share of all bytes allocated in the window whose deepest frame of your code is this function',
    },
    { title: 'Bytes', width: '100px', numeric: true },
    {
      title: 'Per request',
      width: '120px',
      numeric: true,
      help: 'Its bytes divided by the requests served in the profiled window',
    },
    { title: 'Function', width: 'minmax(140px, 1.4fr)' },
    { title: 'Where it starts', width: 'minmax(140px, 2fr)' },
  ];
  const lineRows: GridRow[] = heap.lines.slice(0, MAX_ROWS).map((l) => ({
    cells: [
      [share(l.ownPct, 'alloc')],
      [bytes(l.ownBytes)],
      [perRequest(l.ownBytes)],
      [h('span', { class: 'mono fn' }, l.function || '(anonymous)')],
      [h('span', { class: `mono ${canOpen(l.file, l.line) ? 'loc' : 'muted'}` }, where(l.file, l.line, r.app.cwd))],
    ],
    props: {
      data: { kind: 'heap-line', file: l.file, line: String(l.line), fn: l.function },
      title: canOpen(l.file, l.line) ? `Open ${where(l.file, l.line, r.app.cwd)}` : '',
    },
    onOpen: canOpen(l.file, l.line) ? () => ctx.openSource(l.file, l.line) : undefined,
  }));
  const fnColumns: Column[] = [
    {
      title: 'Self',
      width: '140px',
      help: 'Allocated with this function on top of the stack (built-ins it calls count here too)',
    },
    { title: 'Self bytes', width: '110px', numeric: true },
    { title: 'Total', width: '72px', numeric: true, help: 'Allocated while it was on the stack, each byte once' },
    { title: 'Total bytes', width: '110px', numeric: true },
    { title: 'Function', width: 'minmax(120px, 1.5fr)' },
    { title: 'Where', width: 'minmax(140px, 2fr)' },
    { title: 'Category', width: '150px' },
  ];
  const fnRows: GridRow[] = heap.functions.slice(0, MAX_ROWS).map((f) => ({
    cells: [
      [share(f.selfPct, 'alloc')],
      [bytes(f.selfBytes)],
      [pct(f.totalPct)],
      [bytes(f.totalBytes)],
      [h('span', { class: 'mono fn' }, f.name || '(anonymous)')],
      [h('span', { class: `mono ${canOpen(f.file, f.line) ? 'loc' : 'muted'}` }, where(f.file, f.line, r.app.cwd))],
      [h('span', { class: 'category' }, h('span', { class: `swatch cat-${f.category}` }), CATEGORY_LABELS[f.category])],
    ],
    props: {
      data: { kind: 'heap-function', file: f.file, line: String(f.line), fn: f.name },
      title: canOpen(f.file, f.line) ? `Open ${where(f.file, f.line, r.app.cwd)}` : '',
    },
    onOpen: canOpen(f.file, f.line) ? () => ctx.openSource(f.file, f.line) : undefined,
  }));
  return h(
    'div',
    { class: 'allocations' },
    h(
      'section',
      { class: 'block' },
      h('h2', null, 'Allocations', h('span', { class: 'muted note' }, 'main thread, profiled window')),
      tiles,
      h(
        'div',
        { class: 'callout info', data: { field: 'heap-precision' } },
        h('strong', null, 'Function-level: '),
        "V8's sampling heap profile names functions, not lines, so a function's bytes are shown at the line where it starts. A function V8 inlined into its caller has its bytes counted on the caller.",
      ),
    ),
    h(
      'section',
      { class: 'block' },
      h(
        'h2',
        null,
        'By function of your code',
        h('span', { class: 'muted note' }, 'the deepest frame of your code owns the bytes; % of all bytes'),
      ),
      heap.lines.length > 0
        ? dataGrid(lineColumns, lineRows, { class: 'grid heap-lines', title: 'Allocations by function of your code' })
        : h('p', { class: 'empty' }, 'No allocation was sampled in your code.'),
    ),
    divider(),
    h(
      'section',
      { class: 'block' },
      h(
        'h2',
        null,
        'All functions',
        h('span', { class: 'muted note' }, 'your code and everything else, by bytes allocated on top of the stack'),
      ),
      heap.functions.length > 0
        ? dataGrid(fnColumns, fnRows, { class: 'grid heap-functions', title: 'Allocations by function' })
        : h('p', { class: 'empty' }, 'No allocation was sampled.'),
    ),
  );
}
