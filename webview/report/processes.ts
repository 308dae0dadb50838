// An app of several Node processes on the page (node:cluster workers, child_process.fork): the
// Overview's "Processes" section (each process's busy time and share of all of them, its hottest
// line), the child processes' hottest line under the main one, and the tag of their rows in the
// tables. A child process row's percentages are of the children's CPU (report.childProcesses):
// src/cli/render-processes.ts reads the report the same way.
import type { ProcessSummary } from '../../src/core/report/index.ts';
import type { ViewContext } from './context.ts';
import { h, share } from './dom.ts';
import { canOpen, fmt, pct, where } from './format.ts';
import { type Column, dataGrid, type GridRow, link } from './toolkit.ts';
import { busyCell, hottestCell } from './threads.ts';

/** "process": on a row whose figures come from the child processes; its title says which ones. */
export function processTag(split: Array<{ pid: number; ownMs: number }> | undefined): HTMLElement {
  const which = split && split.length > 0 ? ` (${split.map((p) => `${p.pid}: ${fmt(p.ownMs)} ms`).join(', ')})` : '';
  return h(
    'span',
    {
      class: 'thread-tag',
      title: `Ran in child processes${which}: its percentages are of their CPU, not the primary's`,
    },
    'process',
  );
}

/** Under the primary's hottest line: the child processes' own, whose share is of their CPU. */
export function childProcessTop(ctx: ViewContext): HTMLElement | null {
  const r = ctx.report;
  const c = r.lines.find((l) => l.thread === 'process' && l.ownMs > 0);
  if (!c) return null;
  return h(
    'div',
    { class: 'worker-top', data: { field: 'process-top-line' } },
    'In child processes: ',
    link([h('span', { class: 'mono' }, where(c.file, c.line, r.app.cwd))], () => ctx.openSource(c.file, c.line), {
      title: 'Open in the editor',
    }),
    ' in ',
    h('span', { class: 'mono fn' }, c.function),
    h('span', { class: 'muted' }, `, ${pct(c.ownPct)} of child process CPU`),
  );
}

function what(p: ProcessSummary): string {
  if (p.role === 'primary') return 'primary';
  const script = p.script ? ` ${p.script.split(/[\\/]/).pop()}` : '';
  return `${p.kind ?? 'child'}${script}`;
}

/** Overview: one row per process, the primary first. Absent when the app had no child processes. */
export function processesSection(ctx: ViewContext): HTMLElement | null {
  const r = ctx.report;
  const list = r.processes ?? [];
  if (list.length < 2 || !r.childProcesses) return null;
  const columns: Column[] = [
    { title: 'Process', width: 'minmax(160px, 1.2fr)' },
    { title: 'Share', width: '150px', help: 'Its non-idle CPU time as a share of all processes together' },
    { title: 'Busy / profiled ms', width: '180px', numeric: true },
    {
      title: 'Hottest line of your code',
      width: 'minmax(200px, 2fr)',
      help: "Own time, as a share of this process's non-idle time",
    },
  ];
  const rows: GridRow[] = list.map((p) => {
    const top = p.topLine;
    const flags = [p.joinedLate ? 'started in the window' : '', p.exitedEarly ? 'exited in the window' : ''].filter(
      Boolean,
    );
    return {
      cells: [
        [
          h(
            'span',
            { class: 'thread-name' },
            h('span', { class: 'mono' }, `${p.pid} ${what(p)}`),
            flags.length > 0
              ? h(
                  'span',
                  { class: 'thread-flags' },
                  ...flags.map((f) =>
                    h('span', { class: 'thread-flag', title: 'Its profile covers only part of the window' }, f),
                  ),
                )
              : null,
          ),
        ],
        [share(p.sharePct)],
        [busyCell(p)],
        [hottestCell(top, r.app.cwd)],
      ],
      props: {
        data: { kind: 'process', pid: String(p.pid), ...(top ? { file: top.file, line: String(top.line) } : {}) },
        title: top && canOpen(top.file, top.line) ? `Open ${where(top.file, top.line, r.app.cwd)}` : '',
      },
      onOpen: top && canOpen(top.file, top.line) ? () => ctx.openSource(top.file, top.line) : undefined,
    };
  });
  const c = r.childProcesses;
  const note = `${c.count} child process${c.count === 1 ? '' : 'es'} \u00b7 ${fmt(c.allNonIdleMs)} ms CPU, all processes together`;
  return h(
    'section',
    { class: 'block', data: { field: 'processes' } },
    h('h2', null, 'Processes', h('span', { class: 'muted note' }, note)),
    dataGrid(columns, rows, { class: 'grid processes', title: 'Processes' }),
    h(
      'p',
      { class: 'muted' },
      "The load figures are the app's; the CPU and loop sections above are the primary's (the CPU per request adds the children's). The Hot lines and Functions tabs list the child processes' apart, with shares of their CPU.",
    ),
  );
}
