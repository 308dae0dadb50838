// regressionGate (gate.ts): the verdict behind `--fail-if-slower`. Hand-made comparisons for the
// edges (exactly at the limit, no load, a zero baseline) and the captured sync/async login-api
// pair in both directions.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compareReports, delta, type Comparison } from '../../../src/core/verdicts/compare.ts';
import { ThresholdError, parseThreshold, regressionGate } from '../../../src/core/verdicts/gate.ts';
import { fixtureReport } from '../../helpers/fixtures.ts';

function comparison(rps: [number, number], p99: [number, number]): Comparison {
  const zero = delta(0, 0);
  return {
    baseId: 'base',
    currentId: 'now',
    unit: 'ms/request',
    functions: [],
    lines: [],
    categories: {
      user: zero,
      dependencies: zero,
      nodeInternals: zero,
      native: zero,
      gc: zero,
      idle: zero,
      program: zero,
    },
    load: {
      requestsPerSecond: delta(...rps),
      latencyMs: { p50: zero, p90: zero, p99: delta(...p99), max: zero },
      errors: zero,
      timeouts: zero,
      non2xx: zero,
    },
  };
}

describe('parseThreshold', () => {
  test('"5%", "5", "2.5 %" and "0"', () => {
    assert.equal(parseThreshold('5%'), 5);
    assert.equal(parseThreshold('5'), 5);
    assert.equal(parseThreshold(' 2.5 % '), 2.5);
    assert.equal(parseThreshold('0'), 0);
  });
  for (const bad of ['', '-5%', 'five', '5%%', '100%', '1e3', '0x10']) {
    test(`refuses ${JSON.stringify(bad)} with what it takes`, () => {
      assert.throws(
        () => parseThreshold(bad),
        (e: unknown) => e instanceof ThresholdError && /percentage from 0 to 99/.test(e.message),
      );
    });
  }
});

describe('regressionGate', () => {
  test('fewer req/s than the limit allows fails; the p99 check passes on its own', () => {
    const v = regressionGate(comparison([100, 94], [50, 50]), 5);
    assert.ok(v.decided);
    assert.equal(v.failed, true);
    assert.deepEqual(
      v.checks.map((c) => [c.figure, c.changePct, c.failed]),
      [
        ['req/s', -6, true],
        ['latency p99', 0, false],
      ],
    );
  });

  test('a longer p99 than the limit allows fails even when req/s held', () => {
    const v = regressionGate(comparison([100, 100], [50, 53]), 5);
    assert.ok(v.decided && v.failed);
    assert.deepEqual(
      v.checks.filter((c) => c.failed).map((c) => c.figure),
      ['latency p99'],
    );
  });

  test('exactly at the limit passes; better figures pass', () => {
    const at = regressionGate(comparison([100, 95], [50, 52.5]), 5);
    assert.ok(at.decided && !at.failed, JSON.stringify(at));
    const better = regressionGate(comparison([100, 180], [50, 10]), 0);
    assert.ok(better.decided && !better.failed);
  });

  test('a p99 of 0 ms in the baseline is not gated; req/s still is', () => {
    const v = regressionGate(comparison([100, 90], [0, 40]), 5);
    assert.ok(v.decided && v.failed);
    assert.deepEqual(
      v.checks.map((c) => c.figure),
      ['req/s'],
    );
  });

  test('no load figures, or a baseline that served nothing: undecided, with why', () => {
    const noLoad = { ...comparison([1, 1], [1, 1]), load: undefined };
    const a = regressionGate(noLoad, 5);
    assert.ok(!a.decided && /no load figures/.test(a.reason));
    const b = regressionGate(comparison([0, 10], [0, 5]), 5);
    assert.ok(!b.decided && /served no requests/.test(b.reason));
  });

  test('the captured login-api pair: sync → async passes, async → sync regresses on both figures', () => {
    const sync = fixtureReport('login-api', 'sync');
    const async = fixtureReport('login-api-async', 'async');
    const fixed = regressionGate(compareReports(sync, async), 5);
    assert.ok(fixed.decided && !fixed.failed, JSON.stringify(fixed));
    const broken = regressionGate(compareReports(async, sync), 5);
    assert.ok(broken.decided && broken.failed);
    // The sync app's loop was saturated, the async one's not: req/s and p99 decide, CPU/request is shown only.
    assert.deepEqual(
      broken.checks.filter((c) => c.notGated === undefined).map((c) => [c.figure, c.failed]),
      [
        ['req/s', true],
        ['latency p99', true],
      ],
      JSON.stringify(broken.checks),
    );
  });
});
