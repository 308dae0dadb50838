// The Waits tab: requests your code handed to libuv's threadpool, its outgoing HTTP calls and its
// data-store statements (report.waits), per calling line
// and API: how long a call waited for its callback (measured) and how much of it was queued for
// one of the pool's threads (inferred from the order of the calls and callbacks).
import type { ReportV1 } from '../../src/core/report/index.ts';
import type { ViewContext } from './context.ts';
import { codeText, h, meter } from './dom.ts';
import { canOpen, ms, where } from './format.ts';
import { MAX_ROWS } from './tables.ts';
import { type Column, dataGrid, type GridRow } from './toolkit.ts';

export function waitsTab(ctx: ViewContext, waits: NonNullable<ReportV1['waits']>): HTMLElement {
  const r = ctx.report;
  const pool = r.threadpool;
  const columns: Column[] = [
    { title: 'Wait p50', width: '110px', numeric: true, help: 'From the call to its callback, measured' },
    {
      title: 'Queued p50',
      width: '160px',
      help: "Of the wait, queued for a free thread (inferred from the threadpool's size and the order of calls and callbacks) or for a connection of the app's database pool (measured)",
    },
    { title: 'Wait p99', width: '110px', numeric: true },
    { title: 'Calls', width: '80px', numeric: true },
    { title: 'Per request', width: '120px', numeric: true },
    { title: 'API', width: 'minmax(170px, 1fr)' },
    { title: 'Line', width: 'minmax(160px, 2fr)' },
  ];
  const rows: GridRow[] = waits.slice(0, MAX_ROWS).map((w) => {
    const open = canOpen(w.file, w.line);
    const queuedShare = w.waitMs.p50 > 0 ? (w.queuedMs.p50 / w.waitMs.p50) * 100 : 0;
    return {
      cells: [
        [ms(w.waitMs.p50)],
        [
          // An outgoing HTTP call waits on the other side: nothing of it queues for the pool (a
          // data store's call may have queued for its pool's connection: measured).
          w.target && !w.poolSize
            ? h('span', { class: 'muted' }, '\u2013')
            : h(
                'span',
                { class: 'share' },
                h('span', { class: 'num share-pct' }, ms(w.queuedMs.p50)),
                meter(queuedShare, 'queued'),
              ),
        ],
        [ms(w.waitMs.p99)],
        [String(w.count)],
        [w.perRequest > 0 ? `${w.perRequest.toFixed(2)}×` : '\u2013'],
        [
          w.target
            ? h('span', null, h('code', null, w.api), ' ', h('span', { class: 'muted' }, w.target))
            : h('code', null, w.api),
        ],
        [h('span', { class: `mono ${open ? 'loc' : 'muted'}` }, `${where(w.file, w.line, r.app.cwd)}  ${w.function}`)],
      ],
      props: {
        data: { kind: 'wait', file: w.file, line: String(w.line), fn: w.function },
        title: open ? `Open ${where(w.file, w.line, r.app.cwd)}` : '',
      },
      onOpen: open ? () => ctx.openSource(w.file, w.line) : undefined,
    };
  });
  const hints = r.hints.filter((x) => x.rule === 'threadpool-queue' || x.rule === 'db-pool-queue');
  // What the tab lists: the threadpool's requests, and any outgoing HTTP calls and data-store statements.
  // (The same split as One request's time: a target not reached over HTTP is a data store.)
  const http = (w: { api: string }): boolean => w.api === 'http.request' || w.api === 'fetch';
  const stores = waits.some((w) => w.target !== undefined && !http(w));
  const calls = waits.some((w) => w.target !== undefined && http(w));
  const kinds = ['threadpool', ...(calls ? ['outgoing HTTP'] : []), ...(stores ? ['data stores'] : [])];
  const title = kinds.length === 1 ? 'Threadpool waits' : `Waits: ${kinds.slice(0, -1).join(', ')} and ${kinds.at(-1)}`;
  return h(
    'div',
    { class: 'waits' },
    h(
      'section',
      { class: 'block' },
      h(
        'h2',
        null,
        title,
        h(
          'span',
          { class: 'muted note' },
          pool ? `UV_THREADPOOL_SIZE=${pool.size}, ${pool.cores} cores · profiled window` : 'profiled window',
        ),
      ),
      ...hints.map((x) =>
        h('div', { class: 'callout warning', data: { field: x.rule } }, codeText(`${x.message} ${x.fix}`)),
      ),
    ),
    h(
      'section',
      { class: 'block' },
      waits.length > 0
        ? dataGrid(columns, rows, { class: 'grid wait-list', title })
        : h(
            'p',
            { class: 'empty' },
            'Your code made no threadpool request (crypto, zlib, fs, dns.lookup) and no outgoing HTTP call in the profiled window.',
          ),
      h(
        'p',
        { class: 'muted' },
        "The wait is measured from each call to its callback (for an outgoing HTTP call, to its response). The queued part is inferred: libuv's pool serves its queue first in, first out, so replaying the calls in order gives when each got a thread. A busy event loop runs callbacks late, which makes it an upper bound.",
        stores
          ? " A data store's wait is measured from the write that sent the statement to the first data of its answer; a statement that waited for a connection of the app's pool is timed from the asking, and its queued part (asked to handed a connection) is measured."
          : '',
      ),
    ),
  );
}
