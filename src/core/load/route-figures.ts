// report.routes[] from the load generator's figures alone (`source: 'load'`): until the app's own
// figures per route are merged in (analyze-run/analyze-routes.ts), and as that merge's load half.
import type { LoadFigures, RouteFigures } from '../report/index.ts';

/**
 * One row per route of the measured window, most requests first; undefined without a mix.
 * `errors` counts what a user calls failed requests: socket errors, timeouts and non-2xx answers.
 */
export function routesFromLoad(load: LoadFigures | undefined): RouteFigures[] | undefined {
  if (!load?.routes || load.routes.length === 0) return undefined;
  return load.routes
    .map((r): RouteFigures => ({
      method: r.method,
      route: r.route,
      source: 'load',
      requests: r.requests,
      reqPerSec: r.reqPerSec,
      latencyMs: { p50: r.latencyMs.p50, p90: r.latencyMs.p90, p99: r.latencyMs.p99 },
      errors: r.errors + r.non2xx,
    }))
    .sort((a, b) => b.requests - a.requests || a.route.localeCompare(b.route));
}
