// The Stalls tab: every event-loop stall of the profiled window (report.stalls), when it began,
// how long the loop could not run, and the lines of your code that ran in it. A stall is
// measured by a timer in the app that could not run; its lines come from the profile's samples.
import type { ReportV1 } from '../../src/core/report/index.ts';
import { tile } from './allocations.ts';
import type { ViewContext } from './context.ts';
import { codeText, h, meter } from './dom.ts';
import { canOpen, ms, where } from './format.ts';
import { MAX_ROWS } from './tables.ts';
import { type Column, dataGrid, type GridRow } from './toolkit.ts';

export function stallsTab(ctx: ViewContext, stalls: NonNullable<ReportV1['stalls']>): HTMLElement {
  const r = ctx.report;
  const summary = r.eventLoop?.stalls;
  const longest = Math.max(1, ...stalls.map((s) => s.durationMs));
  // The line first, then how long: at the report's opening width (~520 px) these are what fit.
  const columns: Column[] = [
    {
      title: 'Line of your code',
      width: 'minmax(180px, 2fr)',
      help: 'The line of your code that ran most in the stall, and its function',
    },
    { title: 'Length', width: '130px', help: 'How long the event loop could not run a timer' },
    { title: 'Its time', width: '90px', numeric: true, help: "That line's own time in the stall" },
    { title: 'At', width: '72px', numeric: true, help: "From the profiled window's start" },
  ];
  const rows: GridRow[] = stalls.slice(0, MAX_ROWS).map((s) => {
    const top = s.lines[0];
    const open = top !== undefined && canOpen(top.file, top.line);
    return {
      cells: [
        [
          top
            ? h('span', { class: `mono loc-cell ${open ? 'loc' : 'muted'}` }, where(top.file, top.line, r.app.cwd))
            : h('span', { class: 'muted' }, 'no line of your code ran in it'),
          top ? h('span', { class: 'mono fn cell-sub muted' }, top.function || '(anonymous)') : null,
        ],
        [
          h(
            'span',
            { class: 'share' },
            h('span', { class: 'num share-pct' }, ms(s.durationMs)),
            meter((s.durationMs / longest) * 100, 'stall'),
          ),
        ],
        [top ? ms(top.ownMs) : '\u2013'],
        [`${(s.startMs / 1000).toFixed(2)} s`],
      ],
      props: {
        data: { kind: 'stall', ...(top ? { file: top.file, line: String(top.line), fn: top.function } : {}) },
        title: open ? `Open ${where(top.file, top.line, r.app.cwd)}` : '',
      },
      onOpen: open ? () => ctx.openSource(top.file, top.line) : undefined,
    };
  });
  const periodic = r.hints.find((x) => x.rule === 'periodic-stall');
  return h(
    'div',
    { class: 'stalls' },
    h(
      'section',
      { class: 'block' },
      h('h2', null, 'Event-loop stalls', h('span', { class: 'muted note' }, 'main thread, profiled window')),
      summary
        ? h(
            'div',
            { class: 'stats' },
            tile('stalls', String(summary.count), `of ${ms(summary.thresholdMs)} or more`),
            tile('longest', ms(summary.maxMs)),
            tile('in all', ms(summary.totalMs)),
          )
        : null,
      periodic
        ? h('div', { class: 'callout warning', data: { field: 'periodic-stall' } }, codeText(periodic.message))
        : null,
    ),
    h(
      'section',
      { class: 'block' },
      stalls.length > 0
        ? dataGrid(columns, rows, { class: 'grid stall-list', title: 'Event-loop stalls' })
        : h('p', { class: 'empty' }, `No stall of ${ms(summary?.thresholdMs ?? 0)} or more in the profiled window.`),
      stalls.length > MAX_ROWS
        ? h('p', { class: 'muted' }, `The first ${MAX_ROWS} of ${stalls.length}; all are in report.json.`)
        : null,
    ),
  );
}
