// A request mix in run.json's settings (capture/record.ts) and in the check that two runs loaded
// the same thing (verdicts/comparable.ts): another mix refuses the comparison.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadFigures, type Measured, recordedSettings } from '../../../src/core/capture/record.ts';
import type { PhaseResult } from '../../../src/core/load/load-run.ts';
import { withDefaults } from '../../../src/core/capture/run-settings.ts';
import { type ReportV1 } from '../../../src/core/report/index.ts';
import { comparabilityOf } from '../../../src/core/verdicts/index.ts';
import type { MixRequest } from '../../../src/core/load/request-mix.ts';

const MIX: MixRequest[] = [
  { method: 'GET', path: '/orders/1?token=abc', headers: { cookie: 'sid=1' }, weight: 2 },
  { method: 'POST', path: '/orders', headers: {}, body: '{"password":"x"}', weight: 1 },
];

test('run.json keeps the mix: methods, paths (secrets redacted) and weights, no headers or bodies', () => {
  const s = recordedSettings(
    withDefaults({ url: '/orders/1', requests: MIX }),
    { cwd: '/app', entry: 'server.js' },
    undefined,
  );
  assert.deepEqual(s.requests, [
    { method: 'GET', path: '/orders/1?token=%C2%ABredacted%C2%BB', weight: 2 },
    { method: 'POST', path: '/orders', weight: 1 },
  ]);
  assert.equal(
    recordedSettings(withDefaults({ url: '/a' }), { cwd: '/app', entry: 's.js' }, undefined).requests,
    undefined,
  );
});

test('runs of another mix are not comparable; the same mix is', () => {
  const report = (requests?: Array<{ method: string; path: string; weight: number }>): ReportV1 =>
    ({
      app: { command: ['node', 's.js'], cwd: '/app', pid: 1, url: 'http://127.0.0.1:1/a', node: 'v20' },
      settings: {
        entry: 's.js',
        url: 'http://127.0.0.1:1/a',
        method: 'GET',
        headers: {},
        connections: 10,
        pipelining: 1,
        durationS: 10,
        warmupS: 2,
        samplingIntervalUs: 1000,
        timeoutS: 10,
        ...(requests ? { requests } : {}),
      },
    }) as unknown as ReportV1;
  const a = [
    { method: 'GET', path: '/a', weight: 1 },
    { method: 'GET', path: '/b', weight: 1 },
  ];
  assert.deepEqual(comparabilityOf(report(a), report(a)).refusals, []);
  assert.deepEqual(comparabilityOf(report(), report()).refusals, []);
  const refused = comparabilityOf(report(a), report([a[0], { ...a[1], weight: 3 }])).refusals;
  assert.deepEqual(refused, ['request mix 2 requests (GET /a ×1, GET /b ×1) vs 2 requests (GET /a ×1, GET /b ×3)']);
  assert.match(comparabilityOf(report(), report(a)).refusals[0], /^request mix \(none\) vs 2 requests/);
});

test('the load figures keep each window’s routes: measured in load.routes, profiled in load.profiled.routes', () => {
  const lat = { mean: 1, p50: 1, p90: 1, p99: 1, max: 1 };
  const route = (requests: number) => ({
    method: 'GET',
    route: '/a/{n}',
    requests,
    reqPerSec: requests,
    latencyMs: lat,
    errors: 0,
    timeouts: 0,
    non2xx: 0,
  });
  const phase = (phaseName: 'measured' | 'profiled', requests: number, withRoutes: boolean): PhaseResult => ({
    phase: phaseName,
    durationS: 1,
    requests: { total: requests, perSecond: requests },
    latencyMs: lat,
    completedLatencyMs: lat,
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    statusCodes: { '200': requests },
    bytesPerSecond: 0,
    loadCpu: 0.1,
    ...(withRoutes ? { routes: [route(requests)] } : {}),
  });
  const m = (withRoutes: boolean) =>
    ({
      measured: phase('measured', 10, withRoutes),
      profiled: phase('profiled', 7, withRoutes),
      subWindows: { measured: [], profiled: [] },
      loop: { utilization: 0.5 },
    }) as unknown as Measured;
  const s = withDefaults({ url: '/a/1' });
  const f = loadFigures(s, m(true));
  assert.deepEqual(f.routes, [route(10)]);
  assert.deepEqual(f.profiled.routes, [route(7)]);
  const plain = loadFigures(s, m(false));
  assert.ok(!('routes' in plain) && !('routes' in plain.profiled), 'a single URL adds no field');
});
