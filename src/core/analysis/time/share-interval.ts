// How precise a share of sampled time is, from the profile itself. Samples are not independent:
// a request's loop spans many consecutive samples (and the stack captures that decide its calling
// line come in the same runs), so the binomial √(p(1−p)/n) is too narrow. Batch means: the
// samples, in time order, are cut into consecutive blocks; each block's deviation from the run's
// share is one observation, and their spread (Student's t, blocks − 1 degrees of freedom) gives a
// 95% interval that widens with the autocorrelation the run actually had. Never narrower than
// the binomial interval of the same share and sample count. Pure.

/** Consecutive blocks of samples: enough for a stable spread, each long enough to hold many requests. */
export const INTERVAL_BATCHES = 20;
/** Fewer samples per block than this: the blocks say nothing about runs; the binomial width alone. */
const MIN_BATCH_SAMPLES = 10;
const Z975 = 1.959964;

/** The 97.5% quantile of Student's t with `df` degrees of freedom (Cornish-Fisher: within 0.001 for df ≥ 19, 0.004 at 9). */
export function t975(df: number): number {
  const z = Z975;
  const z3 = z ** 3;
  const z5 = z ** 5;
  return z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df * df);
}

/** Half-width of the 95% binomial interval of share `p` (0..1) over `n` independent samples. */
export function binomialHalfWidth(p: number, n: number): number {
  return n > 0 ? Z975 * Math.sqrt(Math.max(0, p * (1 - p)) / n) : 0;
}

/**
 * Half-width of the 95% interval of a sum of time-ordered terms, given the terms summed per
 * consecutive block (`blockSums`): t · √(B · s²), s² the blocks' sample variance.
 */
export function batchMeansHalfWidth(blockSums: ArrayLike<number>): number {
  const b = blockSums.length;
  if (b < 2) return 0;
  let mean = 0;
  for (let i = 0; i < b; i++) mean += blockSums[i];
  mean /= b;
  let ss = 0;
  for (let i = 0; i < b; i++) ss += (blockSums[i] - mean) ** 2;
  return t975(b - 1) * Math.sqrt((b * ss) / (b - 1));
}

/** One piece of a sample's time that goes to a key (a line, a function). */
export interface KeyShare {
  key: number;
  frac: number;
}

/**
 * The samples of a run in time order, the time each counts for, and the keys it goes to. `extra`:
 * further terms of the estimate's error at a sample, in µs (a stack capture's pull on a split it
 * decides: see line-intervals.ts); their expected sum is zero.
 */
export interface ShareSeries {
  count: number;
  keys: number;
  /** µs the sample counts for; 0 leaves it out (idle). */
  weightOf(sample: number): number;
  sharesOf(sample: number): ReadonlyArray<KeyShare>;
  extra?: Iterable<{ sample: number; key: number; us: number }>;
}

export interface ShareIntervals {
  /** Per key: its share of the counted time (0..1). */
  share: Float64Array;
  /** Per key: half-width of its 95% interval (0..1). */
  halfWidth: Float64Array;
  /** Samples counted (weight > 0). */
  samples: number;
}

/** Every key's share of the counted time and the half-width of its 95% interval (batch means, binomial floor). */
export function shareIntervals(series: ShareSeries, batches = INTERVAL_BATCHES): ShareIntervals {
  const { count, keys } = series;
  const share = new Float64Array(keys);
  const halfWidth = new Float64Array(keys);
  const b = Math.max(1, Math.min(batches, Math.floor(count / MIN_BATCH_SAMPLES)));
  const blockW = new Float64Array(b);
  const blockX = new Float64Array(b * keys);
  let total = 0;
  let n = 0;
  for (let s = 0; s < count; s++) {
    const w = series.weightOf(s);
    if (!(w > 0)) continue;
    n++;
    total += w;
    const block = Math.min(b - 1, Math.floor((s * b) / count));
    blockW[block] += w;
    for (const { key, frac } of series.sharesOf(s)) {
      blockX[block * keys + key] += w * frac;
      share[key] += w * frac;
    }
  }
  if (total <= 0) return { share, halfWidth, samples: 0 };
  for (let k = 0; k < keys; k++) share[k] /= total;
  if (series.extra)
    for (const { sample, key, us } of series.extra) {
      if (sample < 0 || sample >= count || key < 0 || key >= keys) continue;
      blockX[Math.min(b - 1, Math.floor((sample * b) / count)) * keys + key] += us;
    }
  const sums = new Float64Array(b);
  for (let k = 0; k < keys; k++) {
    // Each block's part of the estimate's error: its time on the key minus the share of its time.
    for (let i = 0; i < b; i++) sums[i] = (blockX[i * keys + k] - share[k] * blockW[i]) / total;
    halfWidth[k] = Math.max(b >= 2 ? batchMeansHalfWidth(sums) : 0, binomialHalfWidth(share[k], n));
  }
  return { share, halfWidth, samples: n };
}
