// Worker threads on the page: the Overview's "Threads" section (each thread's busy time, its
// hottest line, whether it came or went during the window) and the tag that marks a worker's
// row in the tables. A worker row's percentages are of the workers' CPU (report.workers), never
// of the main thread's: render.ts "Worker threads" reads the report the same way.
import type { ThreadSummary } from '../../src/core/report/index.ts';
import type { ViewContext } from './context.ts';
import { h, share } from './dom.ts';
import { canOpen, fmt, ms, pct, pctOf, relPath, where } from './format.ts';
import { type Column, dataGrid, type GridRow } from './toolkit.ts';

/** The worker lines and functions are in the report only when it profiled workers. */
export function hasWorkers(ctx: ViewContext): boolean {
  return (ctx.report.threads ?? []).some((t) => t.id !== 0) || ctx.report.lines.some((l) => l.thread === 'worker');
}

/** "worker": on a row whose figures come from the worker threads. */
export function workerTag(): HTMLElement {
  return h(
    'span',
    {
      class: 'thread-tag',
      title: "Ran in worker threads: its percentages are of the workers' CPU, not the main thread's",
    },
    'worker',
  );
}

function flags(t: ThreadSummary): HTMLElement | null {
  const partly = 'Its profile covers only part of the window';
  // [text, title, class]: a boot thread is a plain fact (muted); a partial profile is a caution.
  const list: Array<[string, string, string]> = [];
  if (t.startedAtBoot)
    list.push([
      "started at the app's boot",
      'It was running before the app listened: its profile covers the whole window',
      'thread-flag boot',
    ]);
  if (t.joinedLate) list.push(['started in the window', partly, 'thread-flag']);
  if (t.exitedEarly) list.push(['exited in the window', partly, 'thread-flag']);
  if (list.length === 0) return null;
  return h('span', { class: 'thread-flags' }, ...list.map(([f, title, cls]) => h('span', { class: cls, title }, f)));
}

/** "1292 / 2237": busy of profiled ms, the samples in its title (a thread's or a process's row). */
export function busyCell(t: { nonIdleMs: number; durationMs: number; samples: number }): HTMLElement {
  return h(
    'span',
    { title: `${ms(t.nonIdleMs)} busy of ${ms(t.durationMs)} profiled, ${t.samples} samples` },
    `${fmt(t.nonIdleMs)} / ${fmt(t.durationMs)}`,
  );
}

/** "server.js:15 work 62%": a thread's or a process's hottest line of your code. */
export function hottestCell(top: ThreadSummary['topLine'], cwd: string): HTMLElement {
  if (!top) return h('span', { class: 'muted' }, 'none sampled');
  return h(
    'span',
    null,
    h('span', { class: `mono ${canOpen(top.file, top.line) ? 'loc' : 'muted'}` }, where(top.file, top.line, cwd)),
    ' ',
    h('span', { class: 'mono fn' }, top.function),
    h('span', { class: 'muted' }, ` ${pct(top.ownPct)}`),
  );
}

/** Overview: one row per thread, main first. Absent when the run had no worker threads. */
export function threadsSection(ctx: ViewContext): HTMLElement | null {
  const r = ctx.report;
  const threads = r.threads ?? [];
  const workers = threads.filter((t) => t.id !== 0);
  if (workers.length === 0) return null;
  const columns: Column[] = [
    { title: 'Thread', width: 'minmax(140px, 1.2fr)' },
    { title: 'Busy', width: '150px', help: 'Non-idle CPU time as a share of the time the thread was profiled' },
    { title: 'Busy / profiled ms', width: '180px', numeric: true },
    {
      title: 'Hottest line of your code',
      width: 'minmax(200px, 2fr)',
      help: "Own time, as a share of this thread's non-idle time",
    },
  ];
  const rows: GridRow[] = threads.map((t) => {
    const top = t.topLine;
    return {
      cells: [
        [
          h(
            'span',
            { class: 'thread-name' },
            h('span', { class: 'mono' }, t.id === 0 ? 'main' : t.title),
            // A worker given no name: its script says what it is (esbuild's service thread, a logger's transport).
            t.id !== 0 && t.script && /^\[worker \d+\]\s*$/.test(t.title)
              ? h(
                  'span',
                  { class: 'mono muted', title: t.script },
                  /[\\/]node_modules[\\/]/.test(t.script)
                    ? t.script.replace(/^.*[\\/]node_modules[\\/]/, '')
                    : relPath(t.script, r.app.cwd),
                )
              : null,
            flags(t),
          ),
        ],
        [share(pctOf(t.nonIdleMs, t.durationMs))],
        [busyCell(t)],
        [hottestCell(top, r.app.cwd)],
      ],
      props: {
        data: { kind: 'thread', thread: String(t.id), ...(top ? { file: top.file, line: String(top.line) } : {}) },
        title: top && canOpen(top.file, top.line) ? `Open ${where(top.file, top.line, r.app.cwd)}` : '',
      },
      onOpen: top && canOpen(top.file, top.line) ? () => ctx.openSource(top.file, top.line) : undefined,
    };
  });
  const w = r.workers;
  const note = `${workers.length} worker${workers.length === 1 ? '' : 's'}${w ? ` \u00b7 ${fmt(w.nonIdleMs)} ms worker CPU together` : ''}`;
  return h(
    'section',
    { class: 'block', data: { field: 'threads' } },
    h('h2', null, 'Threads', h('span', { class: 'muted note' }, note)),
    dataGrid(columns, rows, { class: 'grid threads', title: 'Threads' }),
    h(
      'p',
      { class: 'muted' },
      r.lines.some((l) => l.thread === 'worker')
        ? "Busy: non-idle CPU of the time each thread was profiled. The sections above are the main thread's; the Hot lines, Functions and Hints tabs list the workers' apart."
        : "Busy: non-idle CPU of the time each thread was profiled. The sections above are the main thread's; no line of your code ran in the workers.",
    ),
  );
}
