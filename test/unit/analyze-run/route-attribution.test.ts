// Cost per route from the route probe's labels (src/core/analyze-run/analyze-routes.ts) on a
// constructed timeline: every sample goes to the request running at its timestamp (the last
// change at or before it), idle samples to no one, unlabelled work to "(no request)"; per route
// the requests, CPU per request, share and own lines; the stalls get the route that filled them;
// the load's rows take the app's CPU and lines by route key. And the capture's placing of the
// sub-windows' labels on the merged profile's clock (capture/extras/route-traces.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TimelineV1 } from '../../../src/core/analysis/index.ts';
import type { CpuProfile } from '../../../src/core/profile/index.ts';
import {
  labelsAtSamples,
  mergeRoutes,
  NO_REQUEST,
  routeFigures,
} from '../../../src/core/analyze-run/analyze-routes.ts';
import { mergeRouteTraces } from '../../../src/core/capture/extras/route-traces.ts';
import type { RouteTrace } from '../../../src/core/inspector/index.ts';
import type { RouteFigures } from '../../../src/core/report/schema.ts';
import type { RoutesFile } from '../../../src/core/store/index.ts';

test('labelsAtSamples: the last change at or before each sample, never split; samples near a change counted', () => {
  const starts = [0, 1000, 2000, 3000, 4000, 5000];
  const changes = [0, 0, 900, 7, 2000, 8, 3990, 0];
  const { labels, near } = labelsAtSamples(starts, changes, 50);
  assert.deepEqual([...labels], [0, 7, 8, 8, 0, 0]);
  // 0 and 2000 are on a change; 4000 is 10 µs after one.
  assert.deepEqual([...near], [1, 0, 1, 0, 1, 0]);
  assert.deepEqual([...labelsAtSamples([5, 6], []).labels], [0, 0], 'no changes: no request');
});

/** A timeline of 1 ms samples whose kinds are: 0 idle, 1 line A, 2 line B, 3 line C, 4 GC (no line). */
function timeline(kinds: number[]): TimelineV1 {
  return {
    version: 1,
    firstUs: 500,
    endUs: 500 + kinds.length * 1000,
    intervalUs: 1000,
    lines: [
      { file: '/app/server.js', line: 10, function: 'heavy' },
      { file: '/app/server.js', line: 20, function: 'light' },
      { file: '/app/server.js', line: 30, function: 'tick' },
    ],
    kinds: [
      { category: 'idle', owners: [] },
      { category: 'user', owners: [[0, 1]] },
      { category: 'user', owners: [[1, 1]] },
      { category: 'user', owners: [[2, 1]] },
      { category: 'gc', owners: [] },
    ],
    sampleUs: kinds.map(() => 1000),
    sampleKind: kinds,
  };
}

test('routeFigures: requests, CPU per request, share and own lines per route; the rest is "(no request)"', () => {
  // Samples start at 500, 1500, …; request 1 (/heavy) runs 0–3000 µs, request 2 (/light/7) 3000–4000,
  // request 3 (/light/9) 6000–7000; GC at 4500 and a timer's line at 5500 belong to no request.
  const t = timeline([1, 1, 1, 2, 4, 3, 2, 0, 0]);
  const file: RoutesFile = {
    version: 1,
    changes: [0, 1, 3000, 2, 4000, 0, 6000, 3, 7000, 0],
    requests: [
      ...[1, 100, 3100, 200, 0, 1, -1],
      ...[2, 3100, 4100, 200, 0, 2, -1],
      ...[3, 6100, 9100, 503, 0, 3, -1],
      // begun, never finished: its path folds with the others', not counted as served
      ...[4, 8000, -1, 0, 0, 2, -1],
    ],
    strings: ['GET', '/heavy', '/light/7', '/light/9'],
    merged: [0, 0],
    activeUs: 9000,
    droppedRequests: 0,
    moved: 0,
  };
  const { routes, stallRoutes } = routeFigures(file, t, [{ startMs: 0, durationMs: 3.2 }]);
  const by = new Map(routes.map((r) => [r.route, r]));
  assert.deepEqual(
    routes.map((r) => r.route),
    ['/heavy', '/light/{n}', NO_REQUEST],
  );
  const heavy = by.get('/heavy')!;
  assert.equal(heavy.requests, 1);
  assert.equal(heavy.cpuMsPerRequest, 3);
  assert.equal(heavy.cpuPct, 42.9); // 3 of 7 non-idle ms
  assert.deepEqual(heavy.lines, [{ file: '/app/server.js', line: 10, function: 'heavy', ownMs: 3, ownPct: 100 }]);
  assert.equal(heavy.latencyMs?.p50, 3);
  const light = by.get('/light/{n}')!;
  assert.equal(light.requests, 2);
  assert.equal(light.cpuMsPerRequest, 1);
  assert.equal(light.errors, 1, 'the 503');
  assert.equal(heavy.errors, 0);
  assert.equal(light.reqPerSec, 222.2);
  const none = by.get(NO_REQUEST)!;
  assert.equal(none.cpuMsPerRequest, undefined);
  assert.equal(none.cpuPct, 28.6, 'GC and the timer line: 2 of 7 ms');
  assert.deepEqual(
    none.lines?.map((l) => l.line),
    [30],
  );
  assert.deepEqual(stallRoutes, ['GET /heavy'], 'the stall over 0–3.2 ms was /heavy’s work');
});

test('routeFigures: the framework pattern names the route; a request not finished takes its siblings’ pattern', () => {
  const t = timeline([2, 2]);
  const file: RoutesFile = {
    version: 1,
    changes: [0, 1, 1000, 2],
    requests: [...[1, 0, 900, 200, 0, 1, 3], ...[2, 1000, -1, 0, 0, 2, -1]],
    strings: ['GET', '/orders/1', '/orders/2', '/orders/:id'],
    merged: [0, 0],
    activeUs: 2000,
    droppedRequests: 0,
    moved: 0,
  };
  const { routes } = routeFigures(file, t);
  assert.equal(routes[0].route, '/orders/:id');
  assert.deepEqual(routes[0].aliases, ['GET /orders/{n}']);
  assert.equal(routes[0].cpuPct, 100, 'both requests’ samples on the one route');
});

test('mergeRoutes: the load’s requests and latency, the app’s CPU and lines, by key or alias; app-only rows kept', () => {
  const app: RouteFigures[] = [
    {
      method: 'GET',
      route: '/orders/:id',
      source: 'app',
      requests: 90,
      reqPerSec: 9,
      errors: 0,
      cpuMsPerRequest: 2,
      cpuPct: 60,
      lines: [{ file: '/a.js', line: 3, function: 'f', ownMs: 100, ownPct: 50 }],
      aliases: ['GET /orders/{n}'],
    },
    { method: '', route: NO_REQUEST, source: 'app', requests: 0, reqPerSec: 0, errors: 0, cpuPct: 40, lines: [] },
  ];
  const load: RouteFigures[] = [
    {
      method: 'GET',
      route: '/orders/{n}',
      source: 'load',
      requests: 1000,
      reqPerSec: 100,
      errors: 2,
      latencyMs: { p50: 5, p90: 9, p99: 20 },
    },
    { method: 'POST', route: '/login', source: 'load', requests: 10, reqPerSec: 1, errors: 0 },
  ];
  const merged = mergeRoutes(app, load);
  assert.deepEqual(
    merged.map((r) => [r.source, r.method, r.route, r.requests, r.cpuMsPerRequest]),
    [
      ['load', 'GET', '/orders/:id', 1000, 2],
      ['load', 'POST', '/login', 10, undefined],
      ['app', '', NO_REQUEST, 0, undefined],
    ],
  );
  assert.deepEqual(merged[0].latencyMs, { p50: 5, p90: 9, p99: 20 });
  assert.equal(merged[0].lines?.[0].line, 3);
  assert.deepEqual(mergeRoutes(app, []), app, 'no load rows: the app’s as they are');
});

test('mergeRouteTraces: labels placed on the merged clock; a change between segments holds from the next one', () => {
  // Two segments: 1000–1010 µs app clock (samples at 1002, 1005, 1008), 2000–2010 (2003, 2006).
  const seg = (startTime: number, times: number[]): CpuProfile =>
    ({
      nodes: [
        { id: 1, callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 } },
      ],
      startTime,
      endTime: startTime + 10,
      samples: times.map(() => 1),
      timeDeltas: times.map((t, i) => t - (i === 0 ? startTime : times[i - 1])),
    }) as CpuProfile;
  const segments = [seg(1000, [1002, 1005, 1008]), seg(2000, [2003, 2006])];
  const trace = (
    since: number,
    taken: number,
    changes: number[],
    requests: number[],
    strings: string[],
  ): RouteTrace => ({
    changes,
    requests,
    strings,
    merged: [1, 3],
    fullAtUs: 0,
    droppedRequests: 0,
    sinceUs: since,
    takenUs: taken,
  });
  const out = mergeRouteTraces(
    [
      trace(1001, 1500, [1001, 0, 1004, 5, 1500, 0], [5, 1004, 1400, 200, 0, 1, -1], ['GET', '/a']),
      // a change at 1990 (before the second segment began) holds from its start
      trace(1990, 2100, [1990, 0, 1995, 6], [6, 1995, -1, 0, 0, 1, -1], ['GET', '/b']),
    ],
    segments,
  )!;
  // Merged clock: segment 1's samples at 2, 5, 8; segment 2's first sample one step (3 µs) after
  // the last: 11, 14 (its start, 2000, maps to 8: before that last sample).
  // First sub-window: none, request 5, none (its last change and its take, both after its segment);
  // second: none, request 6 (both before its segment: the last holds); its take, after the last
  // segment, is left out.
  // A change before a segment's first sample holds from that sample.
  assert.deepEqual(out.changes, [2, 0, 4, 5, 11, 0, 11, 0, 11, 0, 11, 6]);
  const { labels } = labelsAtSamples([2, 5, 8, 11, 14], out.changes);
  assert.deepEqual([...labels], [0, 5, 5, 6, 6], 'the first segment’s last sample is 5’s, the second’s are 6’s');
  assert.equal(
    out.moved,
    4,
    'the last change and the take of the first, the start and the change of the second were moved',
  );
  assert.deepEqual(out.strings, ['GET', '/a', '/b']);
  assert.deepEqual(out.requests.slice(7), [6, 1995, -1, 0, 0, 2, -1], 'strings renumbered');
  assert.deepEqual(out.merged, [2, 6]);
  assert.equal(out.activeUs, 499 + 110);
});
