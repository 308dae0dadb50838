// Waits per route: each wait the wait probe noted is labelled with the HTTP request the app served
// when it was made, from the same sub-window's route timeline (capture/extras/wait-labels.ts), the labels
// survive the merge of sub-windows (capture/extras/wait-traces.ts), and a route's waits are its requests'
// waits by awaiting line, per request of the route (analyze-run/analyze-routes.ts, routeFigures).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TimelineV1 } from '../../../src/core/analysis/index.ts';
import { routeFigures } from '../../../src/core/analyze-run/analyze-routes.ts';
import { labelWaits } from '../../../src/core/capture/extras/wait-labels.ts';
import { mergeWaitTraces } from '../../../src/core/capture/extras/wait-traces.ts';
import type { RouteTrace, WaitTrace } from '../../../src/core/inspector/index.ts';
import type { RoutesFile } from '../../../src/core/store/index.ts';

const routeTrace = (changes: number[], o: Partial<RouteTrace> = {}): RouteTrace => ({
  changes,
  requests: [],
  strings: [],
  merged: [0, 0],
  fullAtUs: 0,
  droppedRequests: 0,
  sinceUs: 50,
  takenUs: 1000,
  ...o,
});

const waitTrace = (made: number[]): WaitTrace => ({
  poolSize: 4,
  cores: 2,
  sites: [['/app/server.js', 12, 5, 'handler']],
  types: ['pg:127.0.0.1:5432 SELECT 1'],
  requests: made.map((m) => [0, 0, m, m + 40] as [number, number, number, number]),
  pending: [],
  dropped: 0,
  activeUs: 950,
});

test('labelWaits: the request served when each call was made, none between requests, unknown outside the probe', () => {
  // Request 1 from 100.4 µs, none from 200, request 2 from 300.7, to the end.
  const labelled = labelWaits(
    waitTrace([40, 99, 100, 150, 250, 300, 301, 999, 1001]),
    routeTrace([100.4, 1, 200, 0, 300.7, 2]),
  );
  // 40: before the probe started; 99: before the first change; 100: within the microsecond the
  // label changed (the call is made inside the callback that changed it); 300 likewise.
  assert.deepEqual(labelled.labels, [-1, 0, 1, 1, 0, 2, 2, 2, -1]);
  assert.deepEqual(labelled.requests, waitTrace([40, 99, 100, 150, 250, 300, 301, 999, 1001]).requests);
});

test('labelWaits: after the route probe’s buffer filled, a call’s request is unknown', () => {
  const labelled = labelWaits(waitTrace([150, 600]), routeTrace([100, 1], { fullAtUs: 500 }));
  assert.deepEqual(labelled.labels, [1, -1]);
});

test('mergeWaitTraces: labels follow their requests; a sub-window without the route probe has none', () => {
  const a = labelWaits(waitTrace([150]), routeTrace([100, 7]));
  const b = waitTrace([160, 170]);
  const c = labelWaits(waitTrace([180]), routeTrace([100, 9]));
  const merged = mergeWaitTraces([b, a, c])!;
  assert.equal(merged.requests.length, 4);
  assert.deepEqual(merged.labels, [-1, -1, 7, 9]);
  assert.equal(mergeWaitTraces([b])!.labels, undefined, 'no route probe anywhere: no labels');
});

test('routeFigures: each route’s waits by awaiting line, per request of that route; unlabelled waits in none', () => {
  const timeline: TimelineV1 = {
    version: 1,
    firstUs: 500,
    endUs: 2500,
    intervalUs: 1000,
    lines: [{ file: '/app/server.js', line: 5, function: 'h' }],
    kinds: [{ category: 'user', owners: [[0, 1]] }],
    sampleUs: [1000, 1000],
    sampleKind: [0, 0],
  };
  // Requests 1 and 2 are GET /orders/{n}, request 3 GET /users/{n}.
  const file: RoutesFile = {
    version: 1,
    changes: [0, 1, 1000, 3],
    requests: [...[1, 0, 900, 200, 0, 1, -1], ...[2, 0, 950, 200, 0, 2, -1], ...[3, 1000, 1900, 200, 0, 3, -1]],
    strings: ['GET', '/orders/1', '/orders/2', '/users/5'],
    merged: [0, 0],
    activeUs: 2000,
    droppedRequests: 0,
    moved: 0,
  };
  const waits = {
    poolSize: 4,
    cores: 2,
    sites: [
      ['/app/server.js', 12, 5, 'orders'],
      ['/app/server.js', 30, 5, 'users'],
    ] as const,
    types: ['pg:127.0.0.1:5432 SELECT 1', 'redis:127.0.0.1:6379 GET'],
    requests: [
      [0, 0, 10, 30_010], // request 1: 30 ms on :12 (pg)
      [0, 0, 20, 10_020], // request 2: 10 ms on :12 (pg)
      [1, 1, 30, 4_030], // request 2: 4 ms on :30 (redis)
      [1, 1, 1010, 6_010], // request 3: 5 ms on :30 (redis)
      [0, 0, 1020, 99_020], // no request's: in no route
      [-1, 0, 40, 50_040], // no line of the user's code: left out, as from the run's waits
    ] as Array<[number, number, number, number]>,
    labels: [1, 2, 2, 3, 0, 1],
  };
  const { routes } = routeFigures(file, timeline, [], waits);
  const by = new Map(routes.map((r) => [`${r.method} ${r.route}`, r]));
  assert.deepEqual(by.get('GET /orders/{n}')?.waits, [
    { file: '/app/server.js', line: 12, kind: 'pg', msPerRequest: 20 },
    { file: '/app/server.js', line: 30, kind: 'redis', msPerRequest: 2 },
  ]);
  assert.deepEqual(by.get('GET /users/{n}')?.waits, [
    { file: '/app/server.js', line: 30, kind: 'redis', msPerRequest: 5 },
  ]);
  assert.equal(routes.find((r) => r.method === '')?.waits, undefined, '(no request) lists no waits per request');
  assert.equal(routeFigures(file, timeline, [], { ...waits, labels: undefined }).routes[0].waits, undefined);
});

test('mergeWaitTraces: a sub-window of 200,000 noted requests (the probe’s bound) merges, labels and all', () => {
  // Spread into push, 200,000 arguments overflowed V8's stack (about 120,000 fit).
  const big = labelWaits(waitTrace(Array.from({ length: 200_000 }, (_, i) => 100 + (i % 800))), routeTrace([100, 3]));
  const merged = mergeWaitTraces([big, waitTrace([150])])!;
  assert.equal(merged.requests.length, 200_001);
  assert.equal(merged.labels?.length, 200_001);
  assert.equal(merged.labels?.[0], 3);
  assert.equal(merged.labels?.[200_000], -1);
});
