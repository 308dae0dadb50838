// The order a mixed run's routes are shown in, everywhere (the report page's Routes tab, the MCP
// routes tool): routes that served requests, costliest first (by CPU share, else by requests);
// the rest, "(no request)" among them, after.
import type { RouteFigures } from './schema.ts';

export function routeRows(routes: readonly RouteFigures[]): RouteFigures[] {
  const served = routes.filter((r) => r.requests > 0);
  const key = (r: RouteFigures): number => r.cpuPct ?? -1;
  served.sort((a, b) => key(b) - key(a) || b.requests - a.requests);
  return [...served, ...routes.filter((r) => r.requests === 0)];
}
