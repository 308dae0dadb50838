// Each route's main-thread time per request in one window, from the route probe's timeline alone
// (in-app/scripts/route-probe.ts), no profiler needed: the probe notes from which moment the
// thread serves which request (the before/after of every callback), so the time a route's
// requests held the thread is the sum of the spans labelled with them. Divided by the requests
// of the route that finished in the window (a ratio of rates, as a sub-window's CPU per request:
// requests in flight at the edges cancel out on average). It is wall time on the thread: a busy
// machine that takes the app's core mid-callback lengthens it, as it lengthens CPU samples'
// weights, and a busy machine does that by tens of % from one second to the next. So each
// route's CPU per request is the app's CPU in the window (measured: /proc, or the app's own
// reading) split among the routes by their shares of that thread time: the machine's stretch
// hits every route's share alike and cancels out of it, and the app's CPU is what the whole's
// verdict reads. The CPU no request holds (GC, timers, the loop itself) goes with the shares.
// Keyed as the load keys its routes (the path with ids folded, common/routes.ts), so a window's
// rows meet the load generator's. Pure.
import { routeKey, routeOf } from '../../common/index.ts';
import type { RouteTrace } from '../../inspector/index.ts';
import type { SubWindowRoute } from '../../report/index.ts';

export interface RouteThreadTime {
  method: string;
  route: string;
  /** Requests of the route that finished while the probe was on. */
  finished: number;
  /** ms the thread spent in the route's callbacks. */
  threadMs: number;
  /** In-app latencies (begun → finished) of the finished ones, ms. */
  latenciesMs: number[];
  /** Each finished request's own thread time, ms. */
  requestMs: number[];
}

/** Per route; undefined when the timeline is incomplete (its buffer filled: the times would be short). */
export function routeThreadTimes(t: RouteTrace): RouteThreadTime[] | undefined {
  if (t.fullAtUs > 0 || t.droppedRequests > 0) return undefined;
  const rows = new Map<string, RouteThreadTime>();
  const rowOfId = new Map<number, RouteThreadTime>();
  const r = t.requests;
  for (let i = 0; i + 6 < r.length; i += 7) {
    const method = (t.strings[r[i + 4]] ?? 'GET').toUpperCase();
    const route = routeOf(t.strings[r[i + 5]] ?? '/');
    const key = routeKey(method, route);
    let row = rows.get(key);
    if (!row) {
      row = { method, route, finished: 0, threadMs: 0, latenciesMs: [], requestMs: [] };
      rows.set(key, row);
    }
    rowOfId.set(r[i], row);
    if (r[i + 2] >= 0) {
      row.finished++;
      row.latenciesMs.push((r[i + 2] - r[i + 1]) / 1000);
    }
  }
  const c = t.changes;
  const ownMs = new Map<number, number>();
  for (let i = 0; i + 1 < c.length; i += 2) {
    const label = c[i + 1];
    if (label <= 0) continue;
    const end = i + 2 < c.length ? c[i + 2] : t.takenUs;
    const row = rowOfId.get(label);
    // A label of a request begun before the probe went on (not noted): no route to give it.
    if (!row || !(end > c[i])) continue;
    row.threadMs += (end - c[i]) / 1000;
    ownMs.set(label, (ownMs.get(label) ?? 0) + (end - c[i]) / 1000);
  }
  for (let i = 0; i + 6 < r.length; i += 7) if (r[i + 2] >= 0) rowOfId.get(r[i])?.requestMs.push(ownMs.get(r[i]) ?? 0);
  return [...rows.values()];
}

/**
 * A window's rows with each route's thread time per request and, given the app's CPU ms over the
 * probe's span (`cpuMs`), its CPU per request: the load's rows where it has them, else the probe's.
 */
export function withThreadTime(
  load: readonly SubWindowRoute[] | undefined,
  times: readonly RouteThreadTime[],
  durationS: number,
  cpuMs?: number,
): SubWindowRoute[] {
  const byKey = new Map(times.map((x) => [routeKey(x.method, x.route), x]));
  const threadMs = times.reduce((t, x) => t + x.threadMs, 0);
  const perRequest = (
    x: RouteThreadTime | undefined,
  ): Pick<SubWindowRoute, 'threadMsPerRequest' | 'threadMsP50' | 'cpuMsPerRequest'> =>
    x && x.finished > 0 && x.threadMs > 0
      ? {
          threadMsPerRequest: round(x.threadMs / x.finished, 4),
          ...(x.requestMs.length > 0 ? { threadMsP50: round(median(x.requestMs), 4) } : {}),
          ...(cpuMs !== undefined && cpuMs > 0 && threadMs > 0
            ? { cpuMsPerRequest: round((cpuMs * (x.threadMs / threadMs)) / x.finished, 4) }
            : {}),
        }
      : {};
  if (load && load.length > 0)
    return load.map((row) => ({ ...row, ...perRequest(byKey.get(routeKey(row.method, row.route))) }));
  return times
    .filter((x) => x.finished > 0)
    .map((x) => ({
      method: x.method,
      route: x.route,
      requests: x.finished,
      perSecond: durationS > 0 ? round(x.finished / durationS, 3) : 0,
      latencyMs: { p50: quantile(x.latenciesMs, 0.5), p99: quantile(x.latenciesMs, 0.99) },
      ...perRequest(x),
    }));
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return round(s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)], 3);
}

const round = (v: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};
