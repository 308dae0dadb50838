// The load generator's own figures per route of a request mix: one set of counters per route
// (`GET /orders/{n}`, folded by common/routes.ts), kept beside a phase's totals (runner.ts).
import type { Histogram } from 'hdr-histogram-js';
import { routeKey, routeOf } from '../common/index.ts';
import { latencyHistogram, round3, summarize, US_PER_MS } from './latency.ts';
import type { MixRequest } from './mix-types.ts';
import type { RouteLoadFigures } from './runner-protocol.ts';

export interface RouteId {
  method: string;
  route: string;
}

/** The routes of a mix, in first-seen order, and the route of each request of it. */
export function routesOfMix(requests: readonly MixRequest[]): { routes: RouteId[]; routeOfRequest: number[] } {
  const routes: RouteId[] = [];
  const index = new Map<string, number>();
  const routeOfRequest = requests.map((r) => {
    const route = routeOf(r.path);
    const key = routeKey(r.method, route);
    let i = index.get(key);
    if (i === undefined) {
      i = routes.push({ method: r.method.toUpperCase(), route }) - 1;
      index.set(key, i);
    }
    return i;
  });
  return { routes, routeOfRequest };
}

interface Counts {
  latencies: Histogram;
  latencySum: number;
  responses: number;
  socketErrors: number;
  timeouts: number;
  non2xx: number;
}

/** Every route's counters during one phase (or all sub-windows of a phase kind). */
export class RouteCounters {
  private readonly counts: Counts[];

  constructor(private readonly routes: readonly RouteId[]) {
    this.counts = routes.map(() => ({
      latencies: latencyHistogram(),
      latencySum: 0,
      responses: 0,
      socketErrors: 0,
      timeouts: 0,
      non2xx: 0,
    }));
  }

  onResponse(route: number, statusCode: number, ms: number): void {
    const c = this.counts[route];
    if (!c) return;
    c.responses++;
    c.latencies.recordValue(Math.round(ms * US_PER_MS));
    c.latencySum += ms;
    if (statusCode < 200 || statusCode > 299) c.non2xx++;
  }

  onTimeout(route: number): void {
    const c = this.counts[route];
    if (c) c.timeouts++;
  }

  onSocketError(route: number): void {
    const c = this.counts[route];
    if (c) c.socketErrors++;
  }

  /** Like the phase's totals: timeouts enter the latencies at the timeout value. */
  result(durationS: number, timeoutMs: number): RouteLoadFigures[] {
    return this.routes.map((r, i) => {
      const c = this.counts[i];
      return {
        method: r.method,
        route: r.route,
        requests: c.responses,
        reqPerSec: durationS > 0 ? round3(c.responses / durationS) : 0,
        latencyMs: summarize(c.latencies, c.latencySum, c.timeouts, timeoutMs),
        errors: c.socketErrors + c.timeouts,
        timeouts: c.timeouts,
        non2xx: c.non2xx,
      };
    });
  }
}
