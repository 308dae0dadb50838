// The Timeline tab: the sub-second heat map of the profile, and beside it the hot lines of the
// selected range, ranked in the page from timeline.json (no round trip to the extension), with a
// button that opens the flame graph of just that range.
import {
  cellRangeMs,
  heatMap,
  rankRange,
  sampleStarts,
  type RangeRanking,
  type TimelineV1,
} from '../../src/core/analysis/time/timeline.ts';
import type { ViewContext } from './context.ts';
import { clear, h, share } from './dom.ts';
import { canOpen, fmt, where } from './format.ts';
import { heatMapView, type Selection } from './heatmap.ts';
import { button } from './toolkit.ts';

const ROWS_PER_SECOND = 50;
let themeObserver: MutationObserver | undefined;
const MAX_LINES = 15;

export function timelineTab(ctx: ViewContext, timeline: TimelineV1): HTMLElement {
  const map = heatMap(timeline, ROWS_PER_SECOND);
  const starts = sampleStarts(timeline);
  const cwd = ctx.report.app.cwd;
  let range: { startMs: number; endMs: number } | undefined;

  const status = h('div', {
    class: 'range-status',
    attrs: { role: 'status', 'aria-live': 'polite' },
    data: { field: 'range' },
  });
  const open = button(
    'Open range in flame graph',
    () => {
      if (range) ctx.post({ type: 'openFlameRange', startMs: range.startMs, endMs: range.endMs });
    },
    { attrs: { id: 'open-range', disabled: '' } },
  );
  const lines = h('div', { class: 'range-lines' });

  const show = (r: RangeRanking, label: string): void => {
    clear(status);
    status.append(
      h('strong', null, label),
      h('span', { class: 'muted' }, ` \u00b7 ${r.samples} samples \u00b7 ${fmt(r.nonIdleMs)} ms non-idle`),
    );
    clear(lines);
    lines.appendChild(rangeLines(ctx, r, cwd));
  };
  const onSelect = (sel: Selection, done: boolean): void => {
    const first = cellRangeMs(map, Math.floor(sel.from / map.rows), sel.from % map.rows);
    const last = cellRangeMs(map, Math.floor(sel.to / map.rows), sel.to % map.rows);
    range = { startMs: first.startMs, endMs: Math.min(last.endMs, timeline.endUs / 1000) };
    open.removeAttribute('disabled');
    status.dataset.startMs = String(range.startMs);
    status.dataset.endMs = String(range.endMs);
    show(
      rankRange(timeline, range.startMs, range.endMs, { starts, limit: MAX_LINES }),
      `${seconds(range.startMs)}\u2013${seconds(range.endMs)} s (${fmt(range.endMs - range.startMs)} ms)`,
    );
    if (done) document.body.dataset.rangeDone = `${range.startMs}-${range.endMs}`;
  };
  const stalls = ctx.report.stalls ?? [];
  const marks = stalls.map((s) => ({ startMs: s.startMs, endMs: s.startMs + s.durationMs }));
  const view = heatMapView(map, { onSelect, onOpen: () => open.click(), marks });
  show(rankRange(timeline, 0, timeline.endUs / 1000 + 1, { starts, limit: MAX_LINES }), 'Whole profile');

  // VS Code switches themes by changing <body>'s class: redraw in the new colours. One observer
  // per page: a new report replaces the old map.
  themeObserver?.disconnect();
  themeObserver = new MutationObserver(() => view.redraw());
  themeObserver.observe(document.body, { attributes: true, attributeFilter: ['class'] });

  const intro = h(
    'p',
    { class: 'muted intro' },
    `Each column is one second of the profiled window, each row ${map.rowMs} ms of it (0 ms at the top); the stronger the colour, the more non-idle samples. `,
    'Drag from one cell to another to pick a time range (in time order, down a column and on to the next): the lines beside it are re-ranked for that range.',
  );
  return h(
    'div',
    { class: 'timeline' },
    intro,
    h(
      'div',
      { class: 'timeline-body' },
      h(
        'section',
        { class: 'timeline-map' },
        view.element,
        legend(map.maxNonIdle, map.rowMs),
        stalls.length > 0 ? stallPicker(marks, map, view) : null,
      ),
      h('section', { class: 'timeline-side' }, h('div', { class: 'range-bar' }, status, open), lines),
    ),
  );
}

function legend(max: number, rowMs: number): HTMLElement {
  return h(
    'div',
    { class: 'heat-legend muted' },
    h('span', null, '0'),
    h('span', { class: 'heat-scale', attrs: { 'aria-hidden': 'true' } }),
    h('span', null, `${max} non-idle samples per ${rowMs} ms`),
  );
}

const seconds = (ms: number): string => (ms / 1000).toFixed(2);

/** The report's stalls (marked in red on the map) as buttons: one selects its cells and ranks them. */
function stallPicker(
  marks: ReadonlyArray<{ startMs: number; endMs: number }>,
  map: ReturnType<typeof heatMap>,
  view: { selectCells(from: number, to: number): void },
): HTMLElement {
  const cellOf = (ms: number): number => {
    const col = Math.min(map.columns - 1, Math.floor(ms / 1000));
    return col * map.rows + Math.min(map.rows - 1, Math.floor((ms - col * 1000) / map.rowMs));
  };
  return h(
    'div',
    { class: 'stall-marks', data: { field: 'stall-marks' } },
    h('span', { class: 'muted' }, `Event-loop stalls (the bars down the left of their cells), ${marks.length}: `),
    ...marks.map((m) => {
      const b = h(
        'button',
        { class: 'stall-mark', data: { startMs: String(m.startMs), endMs: String(m.endMs) } },
        `${seconds(m.startMs)} s \u00b7 ${fmt(m.endMs - m.startMs)} ms`,
      );
      b.addEventListener('click', () => view.selectCells(cellOf(m.startMs), cellOf(m.endMs - 1e-6)));
      return b;
    }),
  );
}

/**
 * The ranked lines as a plain table, not the toolkit's data grid: it is rebuilt on every drag
 * step, and the grid's components cost tens of ms to build (bench/heatmap.ts).
 */
function rangeLines(ctx: ViewContext, r: RangeRanking, cwd: string): HTMLElement {
  if (r.lines.length === 0)
    return h(
      'p',
      { class: 'empty' },
      r.samples === 0 ? 'No samples in this range.' : 'No samples in your code in this range.',
    );
  const head = h(
    'tr',
    null,
    h('th', { title: 'Share of the non-idle CPU in the range whose deepest line of your code is this one' }, 'Own'),
    h('th', null, 'Line'),
    h('th', null, 'Function'),
    h('th', { class: 'num' }, 'Own ms'),
  );
  const rows = r.lines.map((l) => {
    const openable = canOpen(l.file, l.line);
    const row = h(
      'tr',
      {
        data: { kind: 'range-line', file: l.file, line: String(l.line), fn: l.function },
        title: openable ? `Open ${where(l.file, l.line, cwd)}` : '',
      },
      h('td', null, share(l.ownPct, 'hot')),
      h('td', null, h('span', { class: `mono ${openable ? 'loc' : 'muted'}` }, where(l.file, l.line, cwd))),
      h('td', null, h('span', { class: 'mono fn' }, l.function)),
      h('td', { class: 'num' }, fmt(l.ownMs)),
    );
    if (openable) {
      row.classList.add('openable');
      row.tabIndex = 0;
      row.addEventListener('click', () => ctx.openSource(l.file, l.line));
      row.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') ctx.openSource(l.file, l.line);
      });
    }
    return row;
  });
  return h(
    'table',
    { class: 'range-table', attrs: { 'aria-label': 'Hot lines of the range' } },
    h('thead', null, head),
    h('tbody', null, ...rows),
  );
}
