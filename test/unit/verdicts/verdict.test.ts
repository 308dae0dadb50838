// The verdict logic (verdicts/verdict.ts, compare.ts, gate.ts) on recorded sub-windows and on
// hand-made ones whose answer follows from construction. No timing here: the windows are data.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { compareReports } from '../../../src/core/verdicts/compare.ts';
import { regressionGate } from '../../../src/core/verdicts/gate.ts';
import { timeoutHint } from '../../../src/core/report/load-hints.ts';
import {
  changeOf,
  costChangeOf,
  logRatioInterval,
  profilerCostOf,
  tQuantile975,
  tooShortText,
} from '../../../src/core/verdicts/verdict.ts';
import type { ReportV1, SubWindowFigures } from '../../../src/core/report/schema.ts';
import { intervalPct, signedPct } from '../../../src/core/report/signs.ts';
import { fixtureReport } from '../../helpers/fixtures.ts';

const recorded = JSON.parse(
  fs.readFileSync(path.join(__dirname, '..', '..', 'fixtures', 'sub-windows', 'json-api.json'), 'utf8'),
) as {
  subWindows: { measured: SubWindowFigures[]; profiled: SubWindowFigures[] };
  eventLoop: { utilization: number; cpu: number };
};

/** Each sub-window scaled: `cpu` × CPU per request, `rps` × req/s, `p99` × latency. */
function scaled(ws: SubWindowFigures[], f: { cpu?: number; rps?: number; p99?: number }): SubWindowFigures[] {
  return ws.map((w) => ({
    ...w,
    perSecond: w.perSecond * (f.rps ?? 1),
    requests: Math.round(w.requests * (f.rps ?? 1)),
    latencyMs: { p50: w.latencyMs.p50 * (f.p99 ?? 1), p99: w.latencyMs.p99 * (f.p99 ?? 1) },
    cpuMsPerRequest: (w.cpuMsPerRequest ?? 0) * (f.cpu ?? 1),
  }));
}

/** A report (the login-api fixture's analysis) whose measured window is `ws`. */
function runOf(id: string, ws: SubWindowFigures[], utilization: number): ReportV1 {
  const r = fixtureReport('login-api', id);
  const requests = ws.reduce((t, w) => t + w.requests, 0);
  const durationS = ws.reduce((t, w) => t + w.durationS, 0);
  const p99 = Math.max(...ws.map((w) => w.latencyMs.p99));
  return {
    ...r,
    load: {
      ...r.load!,
      durationS,
      requests: { total: requests, perSecond: requests / durationS },
      latencyMs: { ...r.load!.latencyMs, p99 },
      subWindows: { measured: ws, profiled: ws },
    },
    eventLoop: { ...r.eventLoop!, utilization },
  };
}

describe('Welch interval on log ratios', () => {
  test('t quantiles: table values and towards 1.96', () => {
    assert.equal(tQuantile975(2), 4.303);
    assert.equal(tQuantile975(10), 2.228);
    assert.ok(Math.abs(tQuantile975(2.5) - (4.303 + 3.182) / 2) < 1e-9);
    assert.ok(tQuantile975(1000) > 1.96 && tQuantile975(1000) < 1.963);
  });

  test('known answer: logs {0, 0.1} vs {0.2, 0.3} → d 0.2, df 2, half-width 4.303 × √0.005', () => {
    const i = logRatioInterval([1, Math.exp(0.1)], [Math.exp(0.2), Math.exp(0.3)])!;
    assert.ok(Math.abs(i.d - 0.2) < 1e-12);
    assert.ok(Math.abs(i.half - 4.303 * Math.sqrt(0.005)) < 1e-9);
    const c = changeOf([1, Math.exp(0.1)], [Math.exp(0.2), Math.exp(0.3)], 'higher-is-better')!;
    assert.equal(c.verdict, 'too short', 'two windows a side cannot tell: no verdict either way');
    assert.equal(c.changePct, 22.1);
    assert.equal(tooShortText(c), 'too short to tell (2 sub-windows a side; use --duration ≥ 8)');
  });

  test('one window a side: no interval and no verdict (too short), whatever the sign', () => {
    const c = changeOf([100], [90], 'higher-is-better')!;
    assert.equal(c.lowPct, undefined);
    assert.equal(c.verdict, 'too short');
    assert.equal(changeOf([], [90], 'higher-is-better'), undefined);
  });
});

describe('verdicts on recorded sub-windows (json-api, a busy 2-core machine)', () => {
  const base = recorded.subWindows.measured;

  test('the same windows again: within noise, no change', () => {
    const c = changeOf(
      base.map((w) => w.cpuMsPerRequest!),
      base.map((w) => w.cpuMsPerRequest!),
      'lower-is-better',
    )!;
    assert.equal(c.verdict, 'within noise');
    assert.equal(c.changePct, 0);
  });

  test('measured vs profiled sub-windows of the one run: req/s moved by tens of % both ways, within noise', () => {
    const c = changeOf(
      base.map((w) => w.perSecond),
      recorded.subWindows.profiled.map((w) => w.perSecond),
      'higher-is-better',
    )!;
    assert.equal(c.verdict, 'within noise', JSON.stringify(c));
    assert.ok(c.lowPct! < 0 && c.highPct! > 0);
  });

  test('CPU per request 30% higher in every window: worse, the interval above 0', () => {
    const c = changeOf(
      base.map((w) => w.cpuMsPerRequest!),
      scaled(base, { cpu: 1.3 }).map((w) => w.cpuMsPerRequest!),
      'lower-is-better',
    )!;
    assert.equal(c.verdict, 'worse');
    assert.equal(c.changePct, 30);
    assert.ok(c.lowPct! > 0);
  });

  test('the profiler cost of that run, as changes of the profiled window', () => {
    const cost = profilerCostOf(recorded.subWindows)!;
    assert.ok(cost.cpuPerRequest && cost.requestsPerSecond);
    // Signs follow the figures: more CPU per request in the profiled window is a positive change.
    const cpu = (xs: SubWindowFigures[]): number =>
      Math.exp(xs.reduce((t, w) => t + Math.log(w.cpuMsPerRequest!), 0) / xs.length);
    assert.equal(Math.sign(cost.cpuPerRequest.changePct), Math.sign(cpu(recorded.subWindows.profiled) - cpu(base)));
    const slower = profilerCostOf({ measured: base, profiled: scaled(base, { rps: 0.8, cpu: 1.25 }) })!;
    assert.equal(slower.requestsPerSecond!.changePct, -20);
    // This run's req/s ranged 844–1310 across its windows: −20% is inside that; its CPU per
    // request (0.38–0.46 ms) is tight enough to show +25%.
    assert.equal(slower.requestsPerSecond!.verdict, 'within noise');
    assert.equal(slower.cpuPerRequest!.changePct, 25);
    assert.equal(slower.cpuPerRequest!.verdict, 'worse');
  });
});

describe('the gate on recorded sub-windows', () => {
  const base = recorded.subWindows.measured;

  test('identical windows pass, within noise', () => {
    const v = regressionGate(compareReports(runOf('a', base, 0.97), runOf('b', base, 0.97)), 5);
    assert.ok(v.decided && !v.failed, JSON.stringify(v));
    assert.ok(v.checks.every((c) => c.verdict === 'within noise' || c.notGated));
  });

  test('a saturated app 20% costlier per request fails on CPU/request; req/s is shown, not gated', () => {
    const v = regressionGate(
      compareReports(runOf('a', base, 0.97), runOf('b', scaled(base, { cpu: 1.2, rps: 1 / 1.2 }), 0.98)),
      5,
    );
    assert.ok(v.decided && v.failed, JSON.stringify(v));
    assert.deepEqual(
      v.checks.map((c) => [c.figure, c.failed, c.notGated !== undefined]),
      [
        ['cpu/request', true, false],
        ['req/s', false, true],
        ['latency p99', false, true],
      ],
    );
  });

  test('a saturated app that got 40% less CPU from a busier machine: req/s fell, CPU/request held — pass', () => {
    const v = regressionGate(
      compareReports(runOf('a', base, 0.97), runOf('b', scaled(base, { rps: 0.6, p99: 1.6 }), 0.99)),
      5,
    );
    assert.ok(v.decided && !v.failed, JSON.stringify(v));
  });

  test('an app with room in its loop: req/s 30% down in every window fails on req/s', () => {
    const v = regressionGate(compareReports(runOf('a', base, 0.4), runOf('b', scaled(base, { rps: 0.7 }), 0.4)), 5);
    assert.ok(v.decided && v.failed);
    assert.deepEqual(
      v.checks.filter((c) => c.failed).map((c) => c.figure),
      ['req/s'],
    );
  });

  test('a change past the threshold but inside the noise passes', () => {
    // Two windows of five 16% slower: a mean change of about +6%, with a spread that covers 0.
    const noisy = base.map((w, i) => ({ ...w, cpuMsPerRequest: w.cpuMsPerRequest! * (i % 2 ? 1.16 : 1) }));
    const v = regressionGate(compareReports(runOf('a', base, 0.97), runOf('b', noisy, 0.97)), 5);
    const cpu = v.decided ? v.checks.find((c) => c.figure === 'cpu/request')! : undefined;
    assert.ok(cpu && cpu.changePct > 5 && cpu.verdict === 'within noise' && !cpu.failed, JSON.stringify(cpu));
  });
});

describe('cheaper/costlier rows carry an interval', () => {
  test('10000 samples each, 2× the cost: costlier; 30 samples each, +10%: within noise', () => {
    assert.equal(costChangeOf({ ms: 1, samples: 10000 }, { ms: 2, samples: 20000 }).verdict, 'worse');
    assert.equal(costChangeOf({ ms: 1, samples: 30 }, { ms: 1.1, samples: 33 }).verdict, 'within noise');
  });
  test('a cost that appears: real above 3 samples, noise at 3 or fewer', () => {
    assert.equal(costChangeOf({ ms: 0, samples: 0 }, { ms: 0.5, samples: 50 }).verdict, 'worse');
    assert.equal(costChangeOf({ ms: 0, samples: 0 }, { ms: 0.01, samples: 2 }).verdict, 'within noise');
  });
});

describe('signs and hints', () => {
  test('one minus sign: U+2212, never ASCII', () => {
    assert.equal(signedPct(-12.2), '\u221212.2%');
    assert.equal(signedPct(25.9), '+25.9%');
    assert.equal(intervalPct(-3.14, 2), '[\u22123.1%, +2%]');
  });

  test('timeouts on an app whose loop was 4% busy: it waited on something, not "could not keep up"', () => {
    const r = fixtureReport('login-api-async', 'x');
    const idle: ReportV1 = {
      ...r,
      load: { ...r.load!, timeouts: 20 },
      eventLoop: { ...r.eventLoop!, utilization: 0.04 },
    };
    assert.match(timeoutHint(idle, '10 connections'), /busy only 4%.*waited on something outside its JavaScript/);
    assert.doesNotMatch(timeoutHint(idle, '10 connections'), /could not keep up/);
    const busy: ReportV1 = { ...idle, eventLoop: { ...r.eventLoop!, utilization: 0.99 } };
    assert.match(timeoutHint(busy, '10 connections'), /busy 99% .*could not keep up with 10 connections/);
  });
});
