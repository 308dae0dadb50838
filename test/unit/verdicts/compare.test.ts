// compareReports (compare.ts): did the fix help? A real pair (login-api with pbkdf2Sync, then
// HASH_MODE=async) built into reports the way a run builds them, and small hand-made reports for
// the arithmetic.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { compareReports, delta } from '../../../src/core/verdicts/compare.ts';
import type { Analysis } from '../../../src/core/analysis/model.ts';
import { buildReport, type ReportV1 } from '../../../src/core/report/schema.ts';
import { FIXTURES_DIR, FIXTURE_SETTINGS as SETTINGS, fixtureReport } from '../../helpers/fixtures.ts';

describe('sync vs async login-api (captured)', () => {
  const base = fixtureReport('login-api', 'sync');
  const current = fixtureReport('login-api-async', 'async');
  const cmp = compareReports(base, current);
  const server = path.join(FIXTURES_DIR, 'login-api', 'server.js');

  test('ids and the per-request unit', () => {
    assert.equal(cmp.baseId, 'sync');
    assert.equal(cmp.currentId, 'async');
    assert.equal(cmp.unit, 'ms/request');
  });

  test('throughput went up, latency and event-loop delay went down', () => {
    const rps = cmp.load!.requestsPerSecond;
    assert.equal(rps.base, base.load!.requests.perSecond);
    assert.equal(rps.current, current.load!.requests.perSecond);
    assert.ok(rps.change > 0 && rps.changePct! > 0, JSON.stringify(rps));
    assert.ok(Math.abs(rps.change - (rps.current - rps.base)) < 0.01);
    assert.ok(cmp.load!.latencyMs.p50.change < 0);
    assert.ok(cmp.eventLoop!.p99.change < 0);
    assert.ok(cmp.eventLoop!.utilization.change < 0);
  });

  test('functions that got cheaper come first, largest saving first, then the costlier ones', () => {
    const changes = cmp.functions.map((f) => f.change);
    const firstCostlier = changes.findIndex((c) => c > 0);
    const cheaper = firstCostlier < 0 ? changes : changes.slice(0, firstCostlier);
    assert.ok(cheaper.length > 0);
    assert.ok(
      cheaper.every((c) => c < 0),
      'no costlier one among the cheaper',
    );
    for (let i = 1; i < cheaper.length; i++) assert.ok(cheaper[i - 1] <= cheaper[i], 'largest saving first');
    if (firstCostlier >= 0) {
      const costlier = changes.slice(firstCostlier);
      assert.ok(costlier.every((c) => c > 0));
      for (let i = 1; i < costlier.length; i++) assert.ok(costlier[i - 1] >= costlier[i]);
    }
    assert.ok(!changes.includes(0));
  });

  test('checkPassword: its ms per request in the sync run, gone in the async one', () => {
    const check = cmp.functions.find((f) => f.name === 'checkPassword');
    assert.ok(check, cmp.functions.map((f) => f.name).join(', '));
    const sync = base.functions.find((f) => f.name === 'checkPassword')!;
    const requests = base.load!.profiled.requests.total!;
    assert.ok(Math.abs(check.base - sync.totalMs / requests) < 0.001);
    assert.equal(check.current, 0);
    assert.ok(check.base > 20, `${check.base} ms/request: pbkdf2 is tens of ms per call`);
    assert.ok(cmp.functions.indexOf(check) < 5, 'among the largest savings');
    const all = compareReports(base, current, 10_000);
    const async = all.functions.find((f) => f.name === 'checkPasswordAsync');
    assert.ok(async && async.base === 0 && async.change > 0, 'the async version is new');
  });

  test('the pbkdf2Sync line (server.js:35) is the largest line saving', () => {
    const first = cmp.lines[0];
    assert.deepEqual([first.file, first.line, first.name], [server, 35, 'checkPassword']);
    assert.equal(first.current, 0);
    assert.ok(first.change < 0);
  });

  test('categories per request: native (the hash) cheaper, idle costlier', () => {
    assert.ok(cmp.categories.native.change < 0);
    assert.ok(cmp.categories.idle.change > 0);
  });

  test('limit: at most N cheaper and N costlier', () => {
    const small = compareReports(base, current, 2);
    assert.ok(small.functions.filter((f) => f.change < 0).length <= 2);
    assert.ok(small.functions.filter((f) => f.change > 0).length <= 2);
    assert.deepEqual(small.functions[0], cmp.functions[0]);
  });
});

describe('hand-made reports', () => {
  const analysis = (
    functions: Array<{ name: string; line: number; totalMs: number }>,
    lines: Array<{ fn: string; line: number; ownMs: number; code?: string }> = [],
  ): Analysis => ({
    durationMs: 1000,
    samples: 1000,
    intervalUs: 1000,
    nonIdleMs: 1000,
    categories: { user: 600, dependencies: 0, nodeInternals: 0, native: 400, gc: 0, idle: 0, program: 0 },
    functions: functions.map((f) => ({
      name: f.name,
      file: '/app/server.js',
      line: f.line,
      column: 0,
      category: 'user',
      selfMs: f.totalMs,
      totalMs: f.totalMs,
      selfPct: 0,
      totalPct: 0,
      callers: [],
      callees: [],
    })),
    lines: lines.map((l) => ({
      file: '/app/server.js',
      line: l.line,
      function: l.fn,
      ownMs: l.ownMs,
      ownPct: 0,
      selfMs: 0,
      totalMs: l.ownMs,
      selfPct: 0,
      totalPct: 0,
      callees: [],
      ...(l.code ? { code: l.code } : {}),
    })),
    hints: [],
    notes: [],
  });
  const report = (id: string, a: Analysis, requests?: number): ReportV1 =>
    buildReport({
      id,
      startedAt: '2026-11-21T12:00:00.000Z',
      app: { command: ['node', 'server.js'], cwd: '/app', pid: 1, url: 'http://127.0.0.1:3000/' },
      settings: SETTINGS,
      load:
        requests === undefined
          ? undefined
          : {
              durationS: 10,
              connections: 10,
              requests: { total: requests, perSecond: requests / 10 },
              latencyMs: { mean: 10, p50: 10, p90: 10, p99: 10, max: 10 },
              errors: 0,
              timeouts: 0,
              non2xx: 0,
              statusCodes: {},
              loadLimited: false,
              profiled: {
                durationS: 10,
                requests: { total: requests, perSecond: requests / 10 },
                latencyMs: { mean: 10, p50: 10, p90: 10, p99: 10, max: 10 },
              },
            },
      profileFile: 'profile.cpuprofile',
      analysis: a,
    });

  test('ms per request: 1000 ms over 10 requests → 100 ms over 20 requests', () => {
    const cmp = compareReports(
      report('a', analysis([{ name: 'checkPassword', line: 34, totalMs: 1000 }]), 10),
      report('b', analysis([{ name: 'checkPassword', line: 40, totalMs: 100 }]), 20),
    );
    assert.equal(cmp.unit, 'ms/request');
    assert.deepEqual(
      cmp.functions.map(({ verdict: _v, lowPct: _l, highPct: _h, ...f }) => f),
      [{ name: 'checkPassword', file: '/app/server.js', line: 40, base: 100, current: 5, change: -95 }],
    );
    assert.equal(cmp.functions[0].verdict, 'better', 'a 20× drop over 1000 samples is past any noise');
    assert.equal(cmp.categories.native.base, 40);
    assert.equal(cmp.categories.native.current, 20);
    assert.equal(cmp.load!.requestsPerSecond.change, 1);
    assert.equal(cmp.load!.requestsPerSecond.changePct, 100);
  });

  test('functions are matched by name and file, not line (a fix moves lines); lines by line', () => {
    const cmp = compareReports(
      report('a', analysis([{ name: 'f', line: 10, totalMs: 50 }], [{ fn: 'f', line: 11, ownMs: 50 }])),
      report('b', analysis([{ name: 'f', line: 12, totalMs: 20 }], [{ fn: 'f', line: 13, ownMs: 20 }])),
    );
    assert.equal(cmp.functions.length, 1);
    assert.equal(cmp.functions[0].line, 12, 'shown where it is now');
    assert.deepEqual(
      cmp.lines.map((l) => [l.line, l.change]),
      [
        [11, -50],
        [13, 20],
      ],
    );
  });

  test('lines are matched by their code and function, not their number: a fix that moves lines shows the right one cheaper', () => {
    // Two lines were added above: the hot line moved from 11 to 13 and got cheaper; line 12 (other code) is new.
    const cmp = compareReports(
      report(
        'a',
        analysis(
          [{ name: 'f', line: 10, totalMs: 60 }],
          [
            { fn: 'f', line: 11, ownMs: 50, code: 'hash(pw);' },
            { fn: 'f', line: 12, ownMs: 10, code: 'res.end(x);' },
          ],
        ),
      ),
      report(
        'b',
        analysis(
          [{ name: 'f', line: 10, totalMs: 30 }],
          [
            { fn: 'f', line: 13, ownMs: 20, code: 'hash(pw);' },
            { fn: 'f', line: 14, ownMs: 10, code: 'res.end(x);' },
          ],
        ),
      ),
    );
    assert.deepEqual(
      cmp.lines.map((l) => [l.line, l.base, l.current, l.change]),
      [[13, 50, 20, -30]],
    );
  });

  test('equal code twice in one function is told apart by its order', () => {
    const cmp = compareReports(
      report(
        'a',
        analysis(
          [{ name: 'f', line: 1, totalMs: 30 }],
          [
            { fn: 'f', line: 3, ownMs: 20, code: 'res.end(x);' },
            { fn: 'f', line: 7, ownMs: 10, code: 'res.end(x);' },
          ],
        ),
      ),
      report(
        'b',
        analysis(
          [{ name: 'f', line: 1, totalMs: 25 }],
          [
            { fn: 'f', line: 4, ownMs: 15, code: 'res.end(x);' },
            { fn: 'f', line: 8, ownMs: 10, code: 'res.end(x);' },
          ],
        ),
      ),
    );
    assert.deepEqual(
      cmp.lines.map((l) => [l.line, l.change]),
      [[4, -5]],
    );
  });

  test('without load figures on both sides the unit is plain ms and there is no load section', () => {
    const cmp = compareReports(
      report('a', analysis([{ name: 'f', line: 1, totalMs: 30 }]), 10),
      report('b', analysis([{ name: 'f', line: 1, totalMs: 10 }])),
    );
    assert.equal(cmp.unit, 'ms');
    assert.equal(cmp.load, undefined);
    assert.equal(cmp.eventLoop, undefined);
    assert.deepEqual(
      cmp.functions.map((f) => [f.base, f.current, f.change]),
      [[30, 10, -20]],
    );
  });

  test('unchanged functions are left out', () => {
    const same = analysis([{ name: 'f', line: 1, totalMs: 30 }]);
    assert.deepEqual(compareReports(report('a', same), report('b', same)).functions, []);
  });

  test('delta: change and relative change; no relative change from 0', () => {
    assert.deepEqual(delta(20, 30), { base: 20, current: 30, change: 10, changePct: 50 });
    assert.deepEqual(delta(-4, -2), { base: -4, current: -2, change: 2, changePct: 50 });
    assert.deepEqual(delta(0, 5), { base: 0, current: 5, change: 5 });
  });
});
