// One request's time (src/core/report/request-time.ts) on a constructed report whose answer
// follows by construction: 1000 requests served while a 2 s profile ran (500/s), 3 s of your
// code's CPU (3 ms a request), 1 s of dependencies' (1 ms), 1 s of Node internals, GC, native
// and (program) together (1 ms); one pbkdf2 a request waiting 20 ms on average, one downstream
// HTTP call waiting 50 ms and two PostgreSQL queries waiting 10 ms each: 95 ms of the profiled
// window's 100 ms p50, so the inferred rest is 5 ms.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isReportV1, requestTimeOf, type ReportV1 } from '../../../src/core/report/index.ts';
import { loginApiReport } from '../../helpers/fixtures.ts';
import { renderReport } from '../../../src/cli/render.ts';

const latency = (p50: number) => ({ mean: p50, p50, p90: p50 * 1.5, p99: p50 * 2, max: p50 * 3 });

function constructed(p50: number): ReportV1 {
  const base = loginApiReport();
  return {
    ...base,
    settings: { ...base.settings, method: 'GET', url: 'http://127.0.0.1:3000/login' },
    profile: { ...base.profile, durationMs: 2000 },
    categories: { user: 3000, dependencies: 1000, nodeInternals: 500, gc: 200, native: 200, program: 100, idle: 900 },
    load: {
      durationS: 4,
      connections: 10,
      requests: { total: 2400, perSecond: 600 },
      latencyMs: latency(p50 * 0.8),
      errors: 0,
      timeouts: 0,
      non2xx: 0,
      statusCodes: { '200': 2400 },
      loadLimited: false,
      profiled: { durationS: 2, requests: { perSecond: 500, total: 1000 }, latencyMs: latency(p50) },
    },
    waits: [
      {
        file: '/ws/server.js',
        line: 18,
        function: 'hashPassword',
        api: 'crypto.pbkdf2',
        count: 1000,
        perRequest: 1,
        waitMs: { p50: 19, p99: 40, total: 20_000 },
        queuedMs: { p50: 5, p99: 20 },
      },
      {
        file: '/ws/server.js',
        line: 30,
        function: 'fetchDownstream',
        api: 'http.request',
        target: 'GET 127.0.0.1:4000',
        count: 500,
        perRequest: 0.5,
        waitMs: { p50: 100, p99: 120, total: 50_000 },
        queuedMs: { p50: 0, p99: 0 },
      },
      {
        file: '/ws/server.js',
        line: 41,
        function: 'loadOrders',
        api: 'pg',
        target: '127.0.0.1:5432 SELECT * FROM orders WHERE user_id = $1',
        count: 2000,
        perRequest: 2,
        waitMs: { p50: 9, p99: 30, total: 20_000 },
        queuedMs: { p50: 0, p99: 0 },
      },
    ],
    threadpool: { size: 4, cores: 2 },
  };
}

test('the latency p50 split: CPU derived per category, waits measured, the rest inferred', () => {
  const t = requestTimeOf(constructed(100));
  assert.ok(t);
  assert.equal(t.url, 'GET http://127.0.0.1:3000/login');
  assert.equal(t.latencyMs, 100, "the profiled window's p50, where the parts were measured");
  assert.equal(t.measuredLatencyMs, 80);
  assert.equal(t.requestsProfiled, 1000);
  assert.deepEqual(
    t.parts.map((p) => [p.key, p.ms, p.how]),
    [
      ['user', 3, 'derived'],
      ['dependencies', 1, 'derived'],
      ['runtime', 1, 'derived'],
      ['threadpool', 20, 'measured'],
      // 500 calls of 100 ms on average, one every other request: 50 ms a request.
      ['http', 50, 'measured'],
      // 2000 queries of 10 ms on average, two a request: 20 ms a request.
      ['datastore', 20, 'measured'],
      ['rest', 5, 'inferred'],
    ],
  );
  assert.equal(t.overMs, 0);
  assert.ok(t.parts.every((p) => p.label.length > 0));
  assert.ok(isReportV1({ ...constructed(100), requestTime: t }), 'the report with it passes its own check');
});

test('parts above the p50 (waits side by side): the rest is 0 and the excess is said', () => {
  const t = requestTimeOf(constructed(50))!;
  assert.equal(t.parts.at(-1)!.ms, 0);
  assert.equal(t.overMs, 45);
});

test('without waits measured there are no wait parts; without a load there is no split', () => {
  const t = requestTimeOf({ ...constructed(100), waits: undefined })!;
  assert.deepEqual(
    t.parts.map((p) => p.key),
    ['user', 'dependencies', 'runtime', 'rest'],
  );
  assert.equal(t.parts.at(-1)!.ms, 95);
  assert.equal(requestTimeOf({ ...constructed(100), load: undefined }), undefined);
  const bad = { ...constructed(100), requestTime: { ...t, parts: [{ ...t.parts[0], how: 'guessed' }] } };
  assert.equal(isReportV1(bad), false, 'a part of unknown provenance fails the check');
});

test('the CLI report says it in one line, with what is measured and what is inferred', () => {
  const r = constructed(100);
  const text = renderReport({ ...r, requestTime: requestTimeOf(r) }, { cwd: '/ws', color: false });
  const lines = text.split('\n').filter((l) => l.includes('one request'));
  assert.deepEqual(lines, [
    '  one request (profiled p50 100 ms): your code 3.0 ms · dependencies 1.0 ms · Node/GC/native 1.0 ms · threadpool wait 20 ms · HTTP wait 50 ms · data-store wait 20 ms · rest 5.0 ms (CPU derived from the profile, waits measured, rest inferred)',
  ]);
  assert.ok(!renderReport(r, { cwd: '/ws', color: false }).includes('one request'), 'no line without requestTime');
  // The waits section names the HTTP call's target and has no queued part for it.
  assert.match(text, /^Waits \(threadpool: UV_THREADPOOL_SIZE=4/m);
  assert.match(
    text,
    /\s100 ms\s+-\s+120 ms\s+500\s+http\.request\s.*server\.js:30\s+fetchDownstream\s+→ GET 127\.0\.0\.1:4000$/m,
  );
});
