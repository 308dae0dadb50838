// Which HTTP request each wait was made for: the route probe's timeline of one profiled sub-window
// says which request the main thread served from which moment (in-app/scripts/route-probe.ts), on
// the app's monotonic clock, the clock the wait probe notes each call's start on. A call is made by
// the code running then, so the request served at that moment is the one it waits for — looked up,
// never guessed. Both probes run in the same sub-windows; each pair is labelled before merging.
import type { RouteTrace, WaitTrace } from '../../inspector/index.ts';

/** The wait trace with `labels`: per request noted, the HTTP request's id (0: none; -1: not recorded). */
export function labelWaits(waits: WaitTrace, routes: RouteTrace): WaitTrace {
  const labelAt = labelsOf(routes);
  return { ...waits, labels: waits.requests.map((r) => labelAt(r[2])) };
}

/**
 * The label at a moment: the last change at or before it. The wait probe's µs are whole (the
 * clock's nanoseconds cut), the route probe's fractional: a change within the same microsecond as
 * the call counts as before it (the call was made inside the callback that changed the label).
 */
function labelsOf(routes: RouteTrace): (us: number) => number {
  const c = routes.changes;
  const n = c.length >> 1;
  return (us: number): number => {
    if (routes.fullAtUs > 0 && us >= routes.fullAtUs) return -1;
    if (us < routes.sinceUs || us > routes.takenUs) return -1;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (c[mid * 2] < us + 1) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? 0 : c[(lo - 1) * 2 + 1];
  };
}
