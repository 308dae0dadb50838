// The 95% interval of a share of sampled time (src/core/analysis/time/share-interval.ts) on
// constructed sample sequences: independent samples get the binomial width; samples in long runs
// (a request's loop spans many samples) get a wider one, and across 200 simulated profiles whose
// true share is known the interval covers it at about its stated rate, where the binomial does not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  batchMeansHalfWidth,
  binomialHalfWidth,
  shareIntervals,
  t975,
  type ShareSeries,
} from '../../../../src/core/analysis/time/share-interval.ts';

/** A small deterministic generator (mulberry32), so that a failure is reproducible. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A run of mean length `mean` (geometric, at least 1). */
const runLength = (r: () => number, mean: number): number => 1 + Math.floor(Math.log(1 - r()) / Math.log(1 - 1 / mean));

/** Key 0 on each sample with probability p, independently; key 1 otherwise. */
function iid(n: number, p: number, r: () => number): Uint8Array {
  const keys = new Uint8Array(n);
  for (let i = 0; i < n; i++) keys[i] = r() < p ? 0 : 1;
  return keys;
}

/**
 * Requests in a row, each a run of key 0 (mean `meanA` samples) then a run of key 1 (mean
 * `meanB`): the true share of key 0 is meanA / (meanA + meanB). Starts at a random point of a request.
 */
function runs(n: number, meanA: number, meanB: number, r: () => number): Uint8Array {
  const keys = new Uint8Array(n);
  let i = 0;
  let key = r() < meanA / (meanA + meanB) ? 0 : 1;
  while (i < n) {
    const len = runLength(r, key === 0 ? meanA : meanB);
    keys.fill(key, i, Math.min(n, i + len));
    i += len;
    key = 1 - key;
  }
  return keys;
}

const seriesOf = (keys: Uint8Array): ShareSeries => {
  const one = [[{ key: 0, frac: 1 }], [{ key: 1, frac: 1 }]];
  return { count: keys.length, keys: 2, weightOf: () => 1000, sharesOf: (s) => one[keys[s]] };
};

test("Student's t quantile: the table's values", () => {
  assert.ok(Math.abs(t975(19) - 2.093) < 0.001);
  assert.ok(Math.abs(t975(9) - 2.262) < 0.005);
  assert.ok(Math.abs(t975(1000) - 1.962) < 0.001);
});

test('batch means: equal blocks have no spread, unequal ones do', () => {
  assert.equal(batchMeansHalfWidth([0.1, 0.1, 0.1, 0.1]), 0);
  assert.ok(batchMeansHalfWidth([0.1, -0.1, 0.1, -0.1]) > 0.3);
  assert.equal(batchMeansHalfWidth([0.5]), 0);
});

test('independent samples: about the binomial width, and never narrower', () => {
  const r = rng(1);
  const keys = iid(4000, 2 / 3, r);
  const { share, halfWidth, samples } = shareIntervals(seriesOf(keys));
  assert.equal(samples, 4000);
  const binomial = binomialHalfWidth(share[0], 4000);
  assert.ok(halfWidth[0] >= binomial);
  assert.ok(halfWidth[0] < 1.6 * binomial, `${halfWidth[0]} vs binomial ${binomial}`);
  assert.ok(Math.abs(share[0] + share[1] - 1) < 1e-9);
});

test('samples in long runs: the interval widens with the runs', () => {
  const r = rng(2);
  const quiet = shareIntervals(seriesOf(iid(4000, 2 / 3, r))).halfWidth[0];
  const short = shareIntervals(seriesOf(runs(4000, 4, 2, r))).halfWidth[0];
  const long = shareIntervals(seriesOf(runs(4000, 40, 20, r))).halfWidth[0];
  assert.ok(
    long > 2 * quiet,
    `runs of ~40 samples ±${(100 * long).toFixed(2)}, independent ±${(100 * quiet).toFixed(2)}`,
  );
  assert.ok(long > short, `runs of ~40: ±${(100 * long).toFixed(2)}, of ~4: ±${(100 * short).toFixed(2)}`);
});

test('200 simulated profiles with long runs: the 95% interval covers the true share in at least 90%', () => {
  const r = rng(3);
  let covered = 0;
  let binomialCovered = 0;
  const truth = 2 / 3;
  for (let k = 0; k < 200; k++) {
    const keys = runs(2000, 30, 15, r);
    const { share, halfWidth, samples } = shareIntervals(seriesOf(keys));
    if (Math.abs(share[0] - truth) <= halfWidth[0]) covered++;
    if (Math.abs(share[0] - truth) <= binomialHalfWidth(share[0], samples)) binomialCovered++;
  }
  assert.ok(covered >= 180, `covered ${covered} of 200`);
  // The plain binomial interval, which ignores the runs, covers far less: what the interval fixes.
  assert.ok(binomialCovered < 120, `binomial covered ${binomialCovered} of 200`);
});

test('200 simulated profiles of independent samples: covered in at least 90%', () => {
  const r = rng(4);
  let covered = 0;
  for (let k = 0; k < 200; k++) {
    const { share, halfWidth } = shareIntervals(seriesOf(iid(2000, 0.3, r)));
    if (Math.abs(share[0] - 0.3) <= halfWidth[0]) covered++;
  }
  assert.ok(covered >= 180, `covered ${covered} of 200`);
});

test('extra error terms (a capture-decided split) widen the key they pull on', () => {
  const keys = new Uint8Array(2000); // every sample on key 0: no spread from the samples
  const base = shareIntervals(seriesOf(keys)).halfWidth[0];
  const r = rng(5);
  const extra = Array.from({ length: 400 }, (_, i) => ({ sample: i * 5, key: 0, us: (r() < 0.5 ? 1 : -1) * 3000 }));
  const wider = shareIntervals({ ...seriesOf(keys), extra }).halfWidth[0];
  assert.equal(base, 0);
  assert.ok(wider > 0.01, `±${wider}`);
});

test('idle samples are left out of the count and of the base', () => {
  const keys = iid(1000, 0.5, rng(6));
  const s = seriesOf(keys);
  const { share, samples } = shareIntervals({ ...s, weightOf: (i) => (i % 2 === 0 ? 0 : 1000) });
  assert.equal(samples, 500);
  assert.ok(Math.abs(share[0] + share[1] - 1) < 1e-9);
});
