// Per-route verdicts of a request mix (verdicts/route-compare.ts) and the gate per route (gate.ts,
// cli/baseline.ts gateOutcome): one route of five 10% slower, on a machine whose speed drifts
// between rounds, is caught and named while the others stay within noise; identical code flags
// none; a route only in one run is listed as added or gone. Windows constructed as `hotline gate`
// and a run record them (SubWindowFigures.routes); the route probe's thread time per route from a
// constructed timeline (capture/extras/route-thread-time.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compareSideBySide, type SideBySideFigures } from '../../../src/core/verdicts/compare-side-by-side.ts';
import { regressionGate } from '../../../src/core/verdicts/gate.ts';
import { routeChangesOfRuns } from '../../../src/core/verdicts/route-compare.ts';
import type { ReportV1, SubWindowFigures } from '../../../src/core/report/schema.ts';
import { EXIT_REGRESSED, gateOutcome } from '../../../src/cli/baseline.ts';
import { renderRouteChanges } from '../../../src/cli/render-route-changes.ts';
import { routeThreadTimes, withThreadTime } from '../../../src/core/capture/extras/route-thread-time.ts';

const ROUTES = ['/orders/{n}', '/users/{n}', '/health', '/search', '/report'];
/** ms of main-thread time per request of each route. */
const COST = [2, 1, 0.2, 1.5, 4];
/** The machine's speed per round: every route of a round moves by it (a neighbour's load). */
const DRIFT = [1.0, 1.12, 0.92, 1.18, 0.95, 1.06, 1.02, 0.9];
/** Each window's own noise, per round and route: within ±1.5%. */
const jitter = (round: number, route: number, side: number): number =>
  1 + 0.015 * Math.sin(round * 7.3 + route * 3.1 + side * 1.7);

function windows(side: number, slower: Record<string, number>, routes = ROUTES): SubWindowFigures[] {
  return DRIFT.map((d, i) => {
    const rs = routes.map((route, j) => {
      const ms = COST[j % COST.length] * d * jitter(i, j, side) * (slower[route] ?? 1);
      return {
        method: 'GET',
        route,
        requests: 200,
        perSecond: 100 / d,
        latencyMs: { p50: 10 * d, p99: 30 * d * jitter(i, j + 9, side) },
        threadMsPerRequest: ms,
        threadMsP50: ms,
      };
    });
    const cpu = rs.reduce((t, r) => t + r.threadMsPerRequest, 0) / rs.length;
    return {
      durationS: 2,
      requests: 1000,
      perSecond: 1000 / cpu,
      latencyMs: { p50: 10 * d, p99: 30 * d },
      errors: 0,
      timeouts: 0,
      cpuMsPerRequest: cpu * jitter(i, 99, side),
      utilization: 0.99,
      routes: rs,
    };
  });
}

function figures(current: SubWindowFigures[], base = windows(0, {})): SideBySideFigures {
  const side = (id: string, ws: SubWindowFigures[]): SideBySideFigures['base'] => ({
    id,
    windows: ws,
    latencyP90Ms: ws.map((w) => w.latencyMs.p99 * 0.8),
    latencyMaxMs: ws.map((w) => w.latencyMs.p99 * 2),
    non2xx: 0,
  });
  return {
    version: 1,
    rounds: DRIFT.length,
    windowS: 2,
    base: side('/ci/base', base),
    current: side('/ci/current', current),
  };
}

describe('hotline gate per route', () => {
  test('one route of five 10% slower: caught and named, the other four within noise', () => {
    const c = compareSideBySide(figures(windows(1, { '/orders/{n}': 1.1 })));
    assert.equal(c.routes?.length, 5);
    const orders = c.routes!.find((r) => r.route === '/orders/{n}')!;
    assert.equal(orders.threadMs?.noise?.verdict, 'worse', JSON.stringify(orders.threadMs));
    assert.ok(Math.abs(orders.threadMs!.noise!.changePct - 10) < 1.5, `${orders.threadMs!.noise!.changePct}`);
    for (const r of c.routes!.filter((x) => x !== orders))
      assert.equal(r.threadMs?.noise?.verdict, 'within noise', `${r.route}: ${JSON.stringify(r.threadMs)}`);

    const v = regressionGate(c, 5, { pickMeasure: true });
    assert.ok(v.decided);
    assert.equal(v.failed, true, 'the route fails the gate');
    assert.deepEqual(
      v.routes!.filter((r) => r.outcome === 'regressed').map((r) => `${r.method} ${r.route}`),
      ['GET /orders/{n}'],
    );
    const { exitCode, lines } = gateOutcome(c, 5, 0.95, { pickMeasure: true });
    assert.equal(exitCode, EXIT_REGRESSED);
    const text = lines.join('\n');
    assert.match(
      text,
      /gate: slower: GET \/orders\/\{n\} time\/request \+\d+(\.\d)?% \[\+\d+(\.\d)?%, \+\d+(\.\d)?%\]/,
    );
    assert.match(text, /gate: within noise: GET \/users\/\{n\}, GET \/health, GET \/search, GET \/report/);
    assert.match(lines.at(-1)!, /^gate: FAIL — .*\(slower: GET \/orders\/\{n\} time\/request/);
  });

  test('the median request decides: a mean that a few stretched requests moved by ±25% does not', () => {
    // The machine took the app's core mid-callback in a few requests a window: the route's mean
    // thread time moves by up to ±25%, its median request's does not.
    const stretched = (ws: SubWindowFigures[], side: number): SubWindowFigures[] =>
      ws.map((w, i) => ({
        ...w,
        routes: w.routes!.map((r, j) => ({
          ...r,
          threadMsPerRequest: r.threadMsPerRequest! * (1 + 0.25 * Math.sin(i * 5.1 + j * 2.3 + side * 4.7)),
        })),
      }));
    const c = compareSideBySide(
      figures(stretched(windows(1, { '/orders/{n}': 1.1 }), 1), stretched(windows(0, {}), 0)),
    );
    const orders = c.routes!.find((r) => r.route === '/orders/{n}')!;
    assert.equal(orders.threadMs?.noise?.verdict, 'worse', JSON.stringify(orders.threadMs));
    for (const r of c.routes!.filter((x) => x !== orders))
      assert.equal(r.threadMs?.noise?.verdict, 'within noise', r.route);
  });

  test('a route too noisy to tell does not hold the gate; one that looks slower asks for rounds', () => {
    // /health's median swings by ±40% a round (a tenth of a ms, mostly HTTP): never told.
    const noisy = (ws: SubWindowFigures[], side: number, scale = 1): SubWindowFigures[] =>
      ws.map((w, i) => ({
        ...w,
        routes: w.routes!.map((r) =>
          r.route === '/health'
            ? { ...r, threadMsP50: r.threadMsP50! * scale * (1 + 0.4 * Math.sin(i * 2.9 + side * 1.3)) }
            : r,
        ),
      }));
    const quiet = compareSideBySide(figures(noisy(windows(1, {}), 1), noisy(windows(0, {}), 0)));
    const v = regressionGate(quiet, 5, { pickMeasure: true });
    assert.ok(v.decided);
    assert.equal(v.routes!.find((r) => r.route === '/health')!.outcome, 'undecided');
    assert.equal(v.inconclusive, false, 'the whole decides the pass');
    const { exitCode, lines } = gateOutcome(quiet, 5, 0.95, { pickMeasure: true });
    assert.equal(exitCode, 0);
    assert.match(lines.at(-1)!, /^gate: pass — .*not told either way: GET \/health\)$/);
    // The same route 30% slower on average: suspect, so `hotline gate` adds rounds.
    const slower = compareSideBySide(figures(noisy(windows(1, {}), 1, 1.3), noisy(windows(0, {}), 0)));
    const s = regressionGate(slower, 5, { pickMeasure: true });
    assert.ok(s.decided);
    assert.equal(s.failed, false, JSON.stringify(s.routes));
    assert.equal(s.routesSuspect, true, JSON.stringify(s.routes));
  });

  test('identical code: no route flagged, the gate passes', () => {
    const c = compareSideBySide(figures(windows(1, {})));
    for (const r of c.routes!)
      assert.equal(r.threadMs?.noise?.verdict, 'within noise', `${r.route}: ${JSON.stringify(r.threadMs)}`);
    const v = regressionGate(c, 5, { pickMeasure: true });
    assert.ok(v.decided);
    assert.equal(v.failed, false);
    assert.ok(
      v.routes!.every((r) => r.outcome === 'ok'),
      JSON.stringify(v.routes),
    );
    const { exitCode } = gateOutcome(c, 5, 0.95, { pickMeasure: true });
    assert.equal(exitCode, 0);
  });

  test('the same 10% as two separate runs of drifting rounds stays within noise: the pairing is what catches it', () => {
    // Welch's interval over the rounds, as two runs' sub-windows are compared.
    const base = windows(0, {});
    const current = windows(1, { '/orders/{n}': 1.1 });
    const run = (ws: SubWindowFigures[]): ReportV1 =>
      ({
        load: { subWindows: { measured: ws, profiled: ws } },
        routes: [],
        categories: {},
        profile: { intervalUs: 1000 },
      }) as unknown as ReportV1;
    const routes = routeChangesOfRuns(run(base), run(current))!;
    const orders = routes.find((r) => r.route === '/orders/{n}')!;
    assert.equal(orders.threadMs?.noise?.verdict, 'within noise', JSON.stringify(orders.threadMs));
  });

  test('a route only in one run is listed as added or gone, never gated', () => {
    const c = compareSideBySide(
      figures(
        windows(1, {}, ['/orders/{n}', '/users/{n}', '/new']),
        windows(0, {}, ['/orders/{n}', '/users/{n}', '/old']),
      ),
    );
    const presence = Object.fromEntries(c.routes!.map((r) => [r.route, r.presence]));
    assert.deepEqual(presence, { '/orders/{n}': 'both', '/users/{n}': 'both', '/old': 'gone', '/new': 'added' });
    const v = regressionGate(c, 5, { pickMeasure: true });
    assert.ok(v.decided);
    assert.deepEqual(v.routes!.map((r) => r.route).sort(), ['/orders/{n}', '/users/{n}']);
    const table = renderRouteChanges(c).join('\n');
    assert.match(table, /GET \/old\s+gone: only in the base/);
    assert.match(table, /GET \/new\s+added: only now/);
  });

  test('a single route is the run itself: no per-route rows', () => {
    const c = compareSideBySide(figures(windows(1, {}, ['/orders/{n}']), windows(0, {}, ['/orders/{n}'])));
    assert.equal(c.routes, undefined);
  });
});

describe('compare two runs per route', () => {
  /** A run of 6 measured and 6 profiled sub-windows, its profiled ones with each route's thread time. */
  function run(id: string, side: number, slower: Record<string, number>, drift = 1): ReportV1 {
    const ws = windows(side, slower)
      .slice(0, 6)
      .map((w, i) => ({
        ...w,
        routes: w.routes!.map((r) => ({ ...r, threadMsP50: (r.threadMsP50! / DRIFT[i]) * drift })),
      }));
    const measured = ws.map((w) => ({
      ...w,
      routes: w.routes!.map(({ threadMsPerRequest: _t, threadMsP50: _p, ...r }) => r),
    }));
    return {
      id,
      load: { subWindows: { measured, profiled: ws } },
      routes: [],
      categories: {},
      profile: { intervalUs: 1000 },
    } as unknown as ReportV1;
  }

  test('a steady machine, one route 10% slower: worse, its req/s and p99 judged per sub-window', () => {
    const routes = routeChangesOfRuns(run('a', 0, {}), run('b', 1, { '/orders/{n}': 1.1 }))!;
    const orders = routes.find((r) => r.route === '/orders/{n}')!;
    assert.equal(orders.threadMs?.noise?.verdict, 'worse', JSON.stringify(orders.threadMs));
    assert.ok(orders.requestsPerSecond?.noise, 'req/s has its test');
    assert.ok(orders.latencyP99Ms?.noise, 'p99 has its test');
    for (const r of routes.filter((x) => x !== orders))
      assert.equal(r.threadMs?.noise?.verdict, 'within noise', `${r.route}: ${JSON.stringify(r.threadMs)}`);
    const table = renderRouteChanges({ routes }).join('\n');
    assert.match(table, /GET \/orders\/\{n\}\s+2(\.0+)? → 2\.2\d* ms \+\d+(\.\d)?% \[\+\d+%, \+\d+%\] worse/);
  });

  test('runs with whole-window route figures only: CPU per request inferred from the profile, req/s and p99 not judged', () => {
    const report = (id: string, orders: number): ReportV1 =>
      ({
        id,
        load: { subWindows: { measured: [], profiled: [] } },
        routes: [
          {
            method: 'GET',
            route: '/orders/{n}',
            source: 'load',
            requests: 1000,
            reqPerSec: 100,
            errors: 0,
            latencyMs: { p50: 5, p90: 8, p99: 12 },
            cpuMsPerRequest: orders,
            cpuPct: 60,
          },
          {
            method: 'GET',
            route: '/health',
            source: 'load',
            requests: 1000,
            reqPerSec: 100,
            errors: 0,
            latencyMs: { p50: 1, p90: 2, p99: 3 },
            cpuMsPerRequest: 0.2,
            cpuPct: 5,
          },
        ],
        categories: { user: 4000, idle: 1000 },
        profile: { intervalUs: 1000 },
      }) as unknown as ReportV1;
    const routes = routeChangesOfRuns(report('a', 2), report('b', 3))!;
    const orders = routes.find((r) => r.route === '/orders/{n}')!;
    assert.equal(orders.cpuPerRequestMs?.noise, undefined, 'no value per sub-window: no windowed test');
    assert.equal(orders.inferred?.verdict, 'worse', 'a 50% rise over ~2400 samples is past the sampling error');
    assert.equal(orders.requestsPerSecond?.noise, undefined);
    assert.match(orders.noVerdict ?? '', /no value per sub-window/);
    // Never gated: the gate reads only windowed routes.
    const v = regressionGate({ baseId: 'a', routes, load: compareSideBySide(figures(windows(1, {}))).load }, 5);
    assert.ok(v.decided);
    assert.equal(v.routes, undefined);
  });
});

describe('the route probe’s thread time per route', () => {
  test('spans labelled with a request add to its route; finished requests divide', () => {
    // Requests 1 and 2 of /orders/1 and /orders/2 (one route), 3 of /health, unfinished.
    const strings = ['GET', '/orders/1', '/orders/2', '/health'];
    const trace = {
      changes: [1000, 1, 1500, 0, 2000, 2, 2300, 3, 2400, 2, 2600, 0],
      requests: [1, 900, 1600, 200, 0, 1, -1, 2, 1900, 2700, 200, 0, 2, -1, 3, 2250, -1, 0, 0, 3, -1],
      strings,
      merged: [0, 0] as [number, number],
      fullAtUs: 0,
      droppedRequests: 0,
      sinceUs: 0,
      takenUs: 3000,
    };
    const times = routeThreadTimes(trace)!;
    const orders = times.find((t) => t.route === '/orders/{n}')!;
    assert.equal(orders.finished, 2);
    assert.equal(orders.threadMs, (500 + 300 + 200) / 1000);
    const health = times.find((t) => t.route === '/health')!;
    assert.equal(health.finished, 0);
    assert.equal(health.threadMs, 0.1);
    const rows = withThreadTime(undefined, times, 1);
    assert.deepEqual(
      rows.map((r) => [r.route, r.requests, r.threadMsPerRequest]),
      [['/orders/{n}', 2, 0.5]],
      'a route none of whose requests finished has no row',
    );
    // 11 ms of the app's CPU over the window: /orders/{n} held 1.0 of the 1.1 ms of thread time.
    const [withCpu] = withThreadTime(undefined, times, 1, 11);
    assert.equal(withCpu.cpuMsPerRequest, 5, 'its share of the CPU (10 ms) over its 2 finished requests');
    assert.equal(routeThreadTimes({ ...trace, fullAtUs: 2500 }), undefined, 'a filled timeline gives no times');
  });
});
