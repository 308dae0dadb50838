// The route probe: async_hooks inside the app, on only in the profiled sub-windows, that label the
// main thread's work with the HTTP request it serves and note each request's method, path, route
// pattern, status and in-app latency (its code, which runs in the app:
// in-app/scripts/route-probe.ts). `takeRouteTrace` turns it off and removes it.
import { inAppCall, type TakenRoutes } from '../in-app/index.ts';
import type { Evaluate } from './loop-probe.ts';

/** What the probe noted over one sub-window (µs of the app's monotonic clock). */
export type RouteTrace = TakenRoutes;

export async function startRouteProbe(evaluate: Evaluate): Promise<void> {
  await evaluate(inAppCall('route-probe', 'start'));
}

/** Disables and removes the probe; what it noted, or undefined when none was installed. */
export async function takeRouteTrace(evaluate: Evaluate): Promise<RouteTrace | undefined> {
  const json = await evaluate(inAppCall('route-probe', 'take'));
  return json ? (JSON.parse(String(json)) as RouteTrace) : undefined;
}
