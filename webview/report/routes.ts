// The Routes tab: a run of several routes (a request mix, or requests labelled in the app), one row
// per route with its own figures (report.routes): CPU per request and its share measured in the
// app, requests, latency and errors from the load (or from the app when the load was not
// Hotline's), and the route's hottest line, which a click opens.
import { type RouteFigures, routeRows } from '../../src/core/report/index.ts';
import type { ViewContext } from './context.ts';
import { h, share } from './dom.ts';
import { canOpen, ms, where } from './format.ts';
import { type Column, dataGrid, type GridRow } from './toolkit.ts';

const nameOf = (r: RouteFigures): string => (r.method ? `${r.method} ${r.route}` : r.route);

export function routesTab(ctx: ViewContext, routes: readonly RouteFigures[]): HTMLElement {
  const cwd = ctx.report.app.cwd;
  const withWaits = routes.some((r) => (r.waits?.length ?? 0) > 0);
  const columns: Column[] = [
    { title: 'Route', width: 'minmax(150px, 2fr)' },
    { title: 'CPU/request', width: '120px', numeric: true, help: 'Main-thread CPU per request, measured in the app' },
    { title: 'Of CPU', width: '130px', help: "The route's share of the main thread's CPU in the profiled window" },
    { title: 'Requests', width: '100px', numeric: true },
    { title: 'p50', width: '90px', numeric: true },
    { title: 'p99', width: '90px', numeric: true },
    { title: 'Errors', width: '80px', numeric: true },
    // Where the wait probe ran: what its requests waited for (threadpool, HTTP, data stores).
    ...(withWaits
      ? [
          {
            title: 'Waits',
            width: '90px',
            numeric: true,
            help: 'Time its requests waited on the threadpool, outgoing HTTP calls and data stores, per request (measured in the app)',
          },
        ]
      : []),
    { title: 'Hottest line', width: 'minmax(180px, 2fr)' },
  ];
  const rows: GridRow[] = routeRows(routes).map((r) => {
    const top = r.lines?.[0];
    const open = top !== undefined && canOpen(top.file, top.line);
    return {
      cells: [
        [h('code', null, nameOf(r))],
        [r.cpuMsPerRequest !== undefined ? ms(r.cpuMsPerRequest) : '\u2013'],
        [r.cpuPct !== undefined ? share(r.cpuPct) : '\u2013'],
        [String(r.requests)],
        [r.latencyMs ? ms(r.latencyMs.p50) : '\u2013'],
        [r.latencyMs ? ms(r.latencyMs.p99) : '\u2013'],
        [String(r.errors)],
        ...(withWaits ? [[waitsCell(r, cwd)]] : []),
        [
          top
            ? h(
                'span',
                { class: `mono ${open ? 'loc' : 'muted'}` },
                `${where(top.file, top.line, cwd)}  ${top.function}`,
              )
            : h('span', { class: 'muted' }, '\u2013'),
        ],
      ],
      props: {
        data: { kind: 'route', route: nameOf(r) },
        title: open ? `Open ${where(top.file, top.line, cwd)}, the route's hottest line` : '',
      },
      onOpen: open ? () => ctx.openSource(top.file, top.line) : undefined,
    };
  });
  const byLoad = routes.some((r) => r.source === 'load');
  return h(
    'div',
    { class: 'routes' },
    h(
      'section',
      { class: 'block' },
      h(
        'h2',
        null,
        'Routes',
        h('span', { class: 'muted note' }, `${routes.filter((r) => r.requests > 0).length} served`),
      ),
      dataGrid(columns, rows, { class: 'grid route-list', title: 'Routes' }),
      h(
        'p',
        { class: 'muted' },
        `CPU per request and each route's lines are measured in the app: every profile sample goes to the request it served (the route probe, profiled window). ${byLoad ? 'Requests and latency are the load generator’s, measured window.' : 'Requests and latency are the app’s own.'}${withWaits ? ' Waits: what its requests waited on the threadpool, outgoing HTTP calls and data stores, per request, each wait given to the request it was made for.' : ''} "(no request)" is CPU that served no request (timers, GC, start-up).`,
      ),
    ),
  );
}

/** A route's waits per request, all lines together; each awaiting line in its title. */
function waitsCell(r: RouteFigures, cwd: string): HTMLElement {
  const waits = r.waits ?? [];
  if (waits.length === 0) return h('span', { class: 'muted' }, '\u2013');
  const cell = h('span', null, ms(waits.reduce((t, w) => t + w.msPerRequest, 0)));
  cell.title = waits.map((w) => `${where(w.file, w.line, cwd)} ${w.kind}: ${ms(w.msPerRequest)}/request`).join('\n');
  return cell;
}
