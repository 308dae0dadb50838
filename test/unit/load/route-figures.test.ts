// report.routes from the load's own figures (src/core/load/route-figures.ts), the runner's route
// grouping (route-stats.ts) and the CLI's Routes table (src/cli/render-routes.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderRoutes } from '../../../src/cli/render-routes.ts';
import type { LoadFigures, ReportV1, RouteLoadFigures } from '../../../src/core/report/index.ts';
import { routesFromLoad } from '../../../src/core/load/route-figures.ts';
import { RouteCounters, routesOfMix } from '../../../src/core/load/route-stats.ts';

const lat = (p50: number) => ({ mean: p50, p50, p90: p50 * 2, p99: p50 * 3, max: p50 * 4 });
const fig = (
  method: string,
  route: string,
  requests: number,
  extra: Partial<RouteLoadFigures> = {},
): RouteLoadFigures => ({
  method,
  route,
  requests,
  reqPerSec: requests / 10,
  latencyMs: lat(2),
  errors: 0,
  timeouts: 0,
  non2xx: 0,
  ...extra,
});

test('routesOfMix: ids folded into one route per method (common/routes.ts), first seen first', () => {
  const { routes, routeOfRequest } = routesOfMix([
    { method: 'GET', path: '/orders/1', headers: {}, weight: 1 },
    { method: 'get', path: '/orders/2?x=1', headers: {}, weight: 1 },
    { method: 'POST', path: '/orders/3', headers: {}, weight: 1 },
    { method: 'GET', path: '/users/3f2504e0-4f89-11d3-9a0c-0305e82c3301', headers: {}, weight: 1 },
  ]);
  assert.deepEqual(routes, [
    { method: 'GET', route: '/orders/{n}' },
    { method: 'POST', route: '/orders/{n}' },
    { method: 'GET', route: '/users/{uuid}' },
  ]);
  assert.deepEqual(routeOfRequest, [0, 0, 1, 2]);
});

test('RouteCounters: per route requests, rate, percentiles, errors; unknown routes ignored', () => {
  const c = new RouteCounters([
    { method: 'GET', route: '/a' },
    { method: 'GET', route: '/b' },
  ]);
  for (let i = 1; i <= 100; i++) c.onResponse(0, 200, i);
  c.onResponse(1, 500, 5);
  c.onTimeout(1);
  c.onSocketError(1);
  c.onResponse(-1, 200, 1); // a response whose request is not known: the totals only
  const [a, b] = c.result(10, 1000);
  assert.equal(a.requests, 100);
  assert.equal(a.reqPerSec, 10);
  assert.ok(Math.abs(a.latencyMs.p50 - 50) < 0.1 && Math.abs(a.latencyMs.p99 - 99) < 0.1, JSON.stringify(a.latencyMs));
  assert.deepEqual([a.errors, a.timeouts, a.non2xx], [0, 0, 0]);
  assert.deepEqual([b.requests, b.errors, b.timeouts, b.non2xx], [1, 2, 1, 1]);
  assert.equal(b.latencyMs.max, 1000, 'the timeout counts at the timeout value');
});

test('routesFromLoad: source load, most requests first, failed statuses are errors', () => {
  const load = {
    routes: [fig('GET', '/a', 10), fig('POST', '/b', 30, { errors: 1, non2xx: 2 }), fig('GET', '/c', 20)],
  } as unknown as LoadFigures;
  assert.deepEqual(routesFromLoad(load), [
    {
      method: 'POST',
      route: '/b',
      source: 'load',
      requests: 30,
      reqPerSec: 3,
      latencyMs: { p50: 2, p90: 4, p99: 6 },
      errors: 3,
    },
    {
      method: 'GET',
      route: '/c',
      source: 'load',
      requests: 20,
      reqPerSec: 2,
      latencyMs: { p50: 2, p90: 4, p99: 6 },
      errors: 0,
    },
    {
      method: 'GET',
      route: '/a',
      source: 'load',
      requests: 10,
      reqPerSec: 1,
      latencyMs: { p50: 2, p90: 4, p99: 6 },
      errors: 0,
    },
  ]);
  assert.equal(routesFromLoad({} as LoadFigures), undefined);
  assert.equal(routesFromLoad(undefined), undefined);
});

test('the Routes table: from two routes on, most requests first, then by CPU when the app measured it', () => {
  const o = { cwd: '/', color: false };
  const routes = routesFromLoad({
    routes: [fig('GET', '/light/{n}', 200), fig('GET', '/heavy', 100)],
  } as unknown as LoadFigures)!;
  assert.deepEqual(renderRoutes({ routes: routes.slice(0, 1) } as ReportV1, o), []);
  assert.deepEqual(renderRoutes({} as ReportV1, o), []);
  const lines = renderRoutes({ routes } as ReportV1, o);
  assert.match(lines[0], /^Routes {2}2 in the mix, most requests first/);
  assert.match(lines[2], /GET \/light\/\{n\}\s+200\s+67%\s+20\.0\s+2\.0 ms\s+6\.0 ms\s+0$/);
  assert.match(lines[3], /GET \/heavy\s+100\s+33%/);
  const withCpu = renderRoutes(
    {
      routes: [
        { ...routes[0], cpuMsPerRequest: 1 },
        { ...routes[1], cpuMsPerRequest: 3 },
      ],
    } as ReportV1,
    o,
  );
  assert.match(withCpu[0], /most CPU first/);
  assert.match(withCpu[2], /GET \/heavy .* 3\.0 ms$/);
  assert.doesNotMatch(withCpu[1], /waits/, 'no wait measured: no column');
  // A route whose requests waited: the column sums its lines, the line it waited on most below it.
  const withWaits = renderRoutes(
    {
      routes: [
        { ...routes[0], cpuMsPerRequest: 1 },
        {
          ...routes[1],
          cpuMsPerRequest: 3,
          waits: [
            { file: '/app/db.js', line: 12, kind: 'pg', msPerRequest: 20 },
            { file: '/app/db.js', line: 30, kind: 'redis', msPerRequest: 2.5 },
          ],
        },
      ],
    } as ReportV1,
    { cwd: '/app', color: false },
  );
  assert.match(withWaits[1], /CPU\/req {2}waits\/req$/);
  assert.match(withWaits[2], /GET \/heavy .* 3\.0 ms +23 ms$/);
  assert.equal(withWaits[3], '      waits most on db.js:12 (pg): 20 ms/request');
  assert.match(withWaits[4], /GET \/light\/\{n\} .* 1\.0 ms +–$/);
});
