// The known-answer judge of the integration tier (test/helpers/truth.ts): one run decides when
// within the tolerance; between one and two tolerances the mean of two runs decides; further off,
// the second run alone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { measureShares, type ShareCheck } from '../helpers/truth.ts';

/** A measure that returns the given heavier-line shares in turn (the lighter line is the rest). */
function runsOf(...heavier: number[]): { measure: () => Promise<number>; count: () => number } {
  let i = 0;
  return { measure: () => Promise.resolve(heavier[i++]), count: () => i };
}
const shares = (pct: number): ShareCheck[] => [
  { label: 'a:1', expectedPct: 200 / 3, actualPct: pct },
  { label: 'a:2', expectedPct: 100 / 3, actualPct: 100 - pct },
];
const quiet = (): void => {};

test('within the tolerance in one run: passes without a second', async () => {
  const r = runsOf(64.0, 90);
  const out = await measureShares(r.measure, shares, 3, quiet);
  assert.deepEqual(out.failures, []);
  assert.equal(r.count(), 1);
});

test('more than twice the tolerance off: the second run alone decides (a wrong line fails twice)', async () => {
  const wrong = runsOf(50.0, 60.0);
  const out = await measureShares(wrong.measure, shares, 3, quiet);
  assert.equal(wrong.count(), 2);
  assert.equal(out.failures.length, 1);
  assert.match(out.failures[0], /off in two runs, the first by 5\.56× the tolerance/);
  // Not averaged with the first: a second run 2 points off after a gross miss still passes…
  const once = runsOf(50.0, 64.7);
  assert.deepEqual((await measureShares(once.measure, shares, 3, quiet)).failures, []);
  assert.equal(once.count(), 2);
  // …and one 3.5 points off fails, where the in-between band would have averaged it.
  const near = runsOf(50.0, 63.2);
  assert.equal((await measureShares(near.measure, shares, 3, quiet)).failures.length, 1);
});

test('between one and two tolerances: a second run, and the mean of two decides', async () => {
  const pass = runsOf(63.4, 66.9);
  assert.deepEqual((await measureShares(pass.measure, shares, 3, quiet)).failures, []);
  assert.equal(pass.count(), 2);
  // A lean that holds in both runs fails.
  const lean = runsOf(63.2, 63.4);
  const out = await measureShares(lean.measure, shares, 3, quiet);
  assert.equal(lean.count(), 2);
  assert.match(out.failures[0] ?? '', /the mean of two runs:\na:1 expected 66\.7% got 63\.3%/);
});

test('a share missing from the second run, or not a number, fails', async () => {
  const r = runsOf(62, 66.7);
  const out = await measureShares(r.measure, (pct) => (pct === 62 ? shares(pct) : shares(pct).slice(1)), 3, quiet);
  assert.equal(out.failures.length, 1);
  const nan = runsOf(Number.NaN);
  assert.equal((await measureShares(nan.measure, shares, 3, quiet)).failures.length, 1);
  assert.equal(nan.count(), 1);
});

test("a share's own tolerance is used in place of the call's", async () => {
  const r = runsOf(62.5);
  const loose = (pct: number): ShareCheck[] => shares(pct).map((s) => ({ ...s, tolerance: 5 }));
  assert.deepEqual((await measureShares(r.measure, loose, 3, quiet)).failures, []);
  assert.equal(r.count(), 1);
});
