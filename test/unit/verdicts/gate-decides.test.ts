// The gate decides or says it cannot (gate.ts, cli/baseline.ts gateOutcome): ok only when the
// interval rules out a slowdown past the threshold, regressed when it rules out no change (and the
// change is past it), else inconclusive with its own exit code. Figures made by pairedChangeOf
// from round values, as `hotline gate` makes them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Comparison, Delta } from '../../../src/core/verdicts/compare.ts';
import { regressionGate } from '../../../src/core/verdicts/gate.ts';
import { pairedChangeOf, tQuantile } from '../../../src/core/verdicts/verdict.ts';
import { EXIT_INCONCLUSIVE, EXIT_REGRESSED, gateOutcome } from '../../../src/cli/baseline.ts';

/** A saturated app's comparison whose CPU per request went from `base` to `current` round by round. */
function saturated(base: number[], current: number[]): Pick<Comparison, 'baseId' | 'load'> {
  const noise = pairedChangeOf(base, current, 'lower-is-better')!;
  const d = (b: number, c: number, n = noise): Delta => ({
    base: b,
    current: c,
    change: c - b,
    changePct: n.changePct,
    noise: n,
  });
  const rps = pairedChangeOf(
    base.map((x) => 1000 / x),
    current.map((x) => 1000 / x),
    'higher-is-better',
  )!;
  return {
    baseId: 'base',
    load: {
      requestsPerSecond: d(300, 300, rps),
      latencyMs: { p50: d(10, 10), p90: d(12, 12), p99: d(20, 20), max: d(30, 30) },
      errors: d(0, 0),
      timeouts: d(0, 0),
      non2xx: d(0, 0),
      cpuPerRequestMs: d(3, 3),
      saturated: true,
    },
  };
}

const base = [3.0, 3.1, 2.9, 3.05, 2.95];

test('the issue’s miss: +6% [−7%, +21%] at a 5% limit is not ok but inconclusive, exit 4', () => {
  const current = [3.0, 3.6, 2.8, 3.5, 3.0]; // noisy rounds around +6%
  const c = saturated(base, current);
  const cpu = regressionGate(c, 5);
  assert.ok(cpu.decided);
  const check = cpu.checks.find((x) => x.figure === 'cpu/request')!;
  assert.equal(check.outcome, 'undecided', JSON.stringify(check));
  assert.ok(check.upToPct! > 5);
  const { exitCode, lines } = gateOutcome(c, 5);
  assert.equal(exitCode, EXIT_INCONCLUSIVE);
  assert.match(lines.at(-1)!, /^gate: INCONCLUSIVE — .*could be up to \+\d+(\.\d)?% slower/);
  assert.doesNotMatch(lines.join('\n'), /\bok\b/);
});

test('a steady +10%: regressed, exit 3', () => {
  const c = saturated(
    base,
    base.map((x, i) => x * (1.1 + (i % 2 ? 0.01 : -0.01))),
  );
  const { exitCode } = gateOutcome(c, 5);
  assert.equal(exitCode, EXIT_REGRESSED);
});

test('identical code with steady rounds: ok only because the interval stays inside the limit', () => {
  const same = base.map((x, i) => x * (1 + (i % 2 ? 0.01 : -0.01)));
  const c = saturated(base, same);
  const v = regressionGate(c, 5);
  assert.ok(v.decided && !v.failed && !v.inconclusive);
  const check = v.checks.find((x) => x.figure === 'cpu/request')!;
  assert.equal(check.outcome, 'ok');
  assert.ok(Math.max(check.lowPct!, check.highPct!) <= 5);
  assert.equal(gateOutcome(c, 5).exitCode, 0);
});

test('t quantiles beyond the table: the sequential looks’ levels', () => {
  assert.ok(Math.abs(tQuantile(0.95, 4) - 2.776) < 1e-3);
  assert.ok(Math.abs(tQuantile(0.99, 10) - 3.169) < 1e-3);
});

test('a sequential gate’s looks: 3 looks at 98.3% each, one look at 95%', async () => {
  const { sequentialConfidence } = await import('../../../src/core/verdicts/compare-side-by-side.ts');
  assert.ok(Math.abs(sequentialConfidence(5, 15) - (1 - 0.05 / 3)) < 1e-12);
  assert.equal(sequentialConfidence(5, 5), 0.95);
});
