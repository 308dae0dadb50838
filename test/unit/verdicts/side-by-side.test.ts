// The side-by-side gate's verdict logic (verdicts/compare-side-by-side.ts, verdict.ts pairedChangeOf) on
// recorded windows: a machine whose speed drifts by ±10% between rounds, which two separate runs
// cannot tell from a 10% regression, and which the rounds' ratios cancel.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compareSideBySide, type SideBySideFigures } from '../../../src/core/verdicts/compare-side-by-side.ts';
import { regressionGate } from '../../../src/core/verdicts/gate.ts';
import { changeOf, pairedChangeOf } from '../../../src/core/verdicts/verdict.ts';
import type { SubWindowFigures } from '../../../src/core/report/schema.ts';

/** The machine's state per round: CPU per request of the same code moves by this factor. */
const DRIFT = [1.0, 1.1, 0.93, 1.16, 0.97, 1.05];
/** Small noise of one window against the other of its round. */
const JITTER = [0.01, -0.008, 0.004, -0.012, 0.009, -0.003];

function windows(cpuMs: number, utilization: number, scale = 1, jitter = false): SubWindowFigures[] {
  return DRIFT.map((d, i) => {
    const cpu = cpuMs * d * scale * (1 + (jitter ? JITTER[i] : 0));
    const perSecond = (1000 * utilization) / cpu;
    return {
      durationS: 2,
      requests: Math.round(perSecond * 2),
      perSecond,
      latencyMs: { p50: 10 * d * scale, p99: 30 * d * scale },
      errors: 0,
      timeouts: 0,
      cpuMsPerRequest: cpu,
      utilization,
    };
  });
}

function figures(scale: number, utilization = 0.99): SideBySideFigures {
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
    base: side('/ci/base', windows(0.6, utilization)),
    current: side('/ci/current', windows(0.6, utilization, scale, true)),
  };
}

describe('pairedChangeOf', () => {
  test('a 10% regression under ±10% drift: outside the noise paired, inside it unpaired', () => {
    const f = figures(1.1);
    const base = f.base.windows.map((w) => w.cpuMsPerRequest!);
    const current = f.current.windows.map((w) => w.cpuMsPerRequest!);
    const paired = pairedChangeOf(base, current, 'lower-is-better')!;
    assert.equal(paired.verdict, 'worse');
    assert.ok(paired.changePct > 9 && paired.changePct < 11, `${paired.changePct}`);
    assert.ok(paired.lowPct! > 5, `the interval's low end ${paired.lowPct} is past 5%`);
    // The same numbers as two separate runs: the drift is all the spread there is.
    assert.equal(changeOf(base, current, 'lower-is-better')!.verdict, 'within noise');
  });

  test('identical code: within noise, an interval of the jitter only', () => {
    const f = figures(1);
    const c = pairedChangeOf(
      f.base.windows.map((w) => w.cpuMsPerRequest!),
      f.current.windows.map((w) => w.cpuMsPerRequest!),
      'lower-is-better',
    )!;
    assert.equal(c.verdict, 'within noise');
    assert.ok(c.highPct! - c.lowPct! < 3, `${c.lowPct}…${c.highPct}`);
  });

  test('pairs with a missing or zero value are left out; one pair has no interval', () => {
    const c = pairedChangeOf([1, NaN, 0, 2], [1.1, 5, 5, 2.2], 'lower-is-better')!;
    assert.equal(c.samples.base, 2);
    assert.equal(c.changePct, 10);
    assert.equal(pairedChangeOf([1], [2], 'lower-is-better')!.lowPct, undefined);
    assert.equal(pairedChangeOf([], [], 'lower-is-better'), undefined);
  });
});

describe('compareSideBySide → regressionGate', () => {
  test('saturated loops: CPU per request decides, and a 10% costlier version fails at 5%', () => {
    const v = regressionGate(compareSideBySide(figures(1.1)), 5);
    assert.ok(v.decided);
    assert.equal(v.failed, true);
    const cpu = v.checks.find((c) => c.figure === 'cpu/request')!;
    assert.equal(cpu.failed, true);
    assert.equal(cpu.verdict, 'worse');
    assert.ok(v.checks.filter((c) => c.figure !== 'cpu/request').every((c) => c.notGated !== undefined));
  });

  test('identical code passes at 5% and at 0%', () => {
    for (const pct of [5, 0]) {
      const v = regressionGate(compareSideBySide(figures(1)), pct);
      assert.ok(v.decided);
      assert.equal(v.failed, false, `at ${pct}%`);
    }
  });

  test('a regression smaller than the threshold passes', () => {
    const v = regressionGate(compareSideBySide(figures(1.03)), 5);
    assert.ok(v.decided);
    assert.equal(v.failed, false);
  });

  test('loops with room: req/s and p99 decide, the CPU is shown but not gated', () => {
    const v = regressionGate(compareSideBySide(figures(1.2, 0.5)), 5);
    assert.ok(v.decided);
    assert.equal(v.failed, true);
    assert.ok(v.checks.find((c) => c.figure === 'cpu/request')!.notGated);
    assert.equal(v.checks.find((c) => c.figure === 'req/s')!.failed, true);
  });
});
