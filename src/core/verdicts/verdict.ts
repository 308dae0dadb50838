// Is a difference between two runs real, or inside the noise? Each run measures its windows as
// several alternating sub-windows (capture/sub-windows.ts), so every figure comes with one value
// per sub-window. The change of a figure is the ratio of the two runs' geometric means; its 95%
// interval is Welch's t-interval on the difference of the mean logarithms (unequal spreads, few
// samples); the verdict is "within noise" when the interval holds no change. Logarithms because
// the noise of throughput, latency and CPU time is multiplicative (a busier machine slows all by
// a share). Pure: numbers in, a verdict out. docs/measurement.md ("Verdicts") explains the choice.

export type Direction = 'higher-is-better' | 'lower-is-better';
/**
 * `too short`: a side has fewer than MIN_SUB_WINDOWS values, whose interval says nothing either
 * way (2 a side: a 10× change "within noise", identical code "+41% better").
 */
export type VerdictWord = 'better' | 'worse' | 'within noise' | 'too short';

/** Better or worse: a change the verdict stands behind (not noise, not a run too short to tell). */
export const isChange = (w: VerdictWord | undefined): w is 'better' | 'worse' => w === 'better' || w === 'worse';

/**
 * Sub-windows a side a verdict needs: with 4 a side Welch's degrees of freedom stay ≥ 3 (t ≤ 3.2);
 * with 2 they fall to ~1, where t is 12.7 and one odd sub-window decides.
 */
export const MIN_SUB_WINDOWS = 4;
/** A run's sub-windows of each kind are 2 s at least (capture/run-settings.ts subWindowPlan). */
const SUB_WINDOW_S = 2;
/** The --duration that gives a run MIN_SUB_WINDOWS sub-windows of each kind. */
export const MIN_VERDICT_DURATION_S = MIN_SUB_WINDOWS * SUB_WINDOW_S;

export interface Change {
  /** Change of the current run against the base, % (ratio of geometric means − 1). */
  changePct: number;
  /** 95% interval of changePct; absent when a run has fewer than 2 sub-windows. */
  lowPct?: number;
  highPct?: number;
  /** `within noise` when the interval holds 0; without an interval, from the sign alone. */
  verdict: VerdictWord;
  /** Sub-windows behind each side. */
  samples: { base: number; current: number };
}

/** "too short to tell (2 sub-windows a side; use --duration ≥ 8)". */
export function tooShortText(c: Pick<Change, 'samples'>): string {
  const n = Math.min(c.samples.base, c.samples.current);
  return `too short to tell (${n} sub-window${n === 1 ? '' : 's'} a side; use --duration ≥ ${MIN_VERDICT_DURATION_S})`;
}

/** Two-sided 95% quantiles of Student's t by degrees of freedom (1–30); 1.96 beyond. */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11,
  2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

export function tQuantile975(df: number): number {
  if (!(df >= 1)) return T975[0];
  if (df >= 30) return 1.96 + (T975[29] - 1.96) * (30 / df); // → 1.96 as df grows
  const lo = Math.floor(df);
  const frac = df - lo;
  return frac === 0 ? T975[lo - 1] : T975[lo - 1] + (T975[lo] - T975[lo - 1]) * frac;
}

/**
 * Student's t quantile for any two-sided confidence (the sequential gate's looks need 98.3%, …):
 * the CDF through the regularized incomplete beta function, inverted by bisection.
 */
export function tQuantile(confidence: number, df: number): number {
  const p = 1 - (1 - confidence) / 2;
  let lo = 0;
  let hi = 1000;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (tCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

function tCdf(t: number, df: number): number {
  const x = df / (df + t * t);
  const tail = 0.5 * incompleteBeta(x, df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** I_x(a, b) by its continued fraction (Lentz), on the side where it converges fast. */
function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  if (x > (a + 1) / (a + b + 2)) return 1 - incompleteBeta(1 - x, b, a);
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  d = 1 / (Math.abs(d) < tiny ? tiny : d);
  let f = d;
  for (let m = 1; m <= 300; m++) {
    for (const num of [
      (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m)),
      -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1)),
    ]) {
      d = 1 + num * d;
      d = 1 / (Math.abs(d) < tiny ? tiny : d);
      c = 1 + num / c;
      c = Math.abs(c) < tiny ? tiny : c;
      f *= c * d;
    }
    if (Math.abs(c * d - 1) < 1e-12) break;
  }
  return (front * f) / a;
}

/** ln Γ(z), Lanczos (g = 7, 9 terms). */
function lnGamma(z: number): number {
  const g = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (z < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * z)) - lnGamma(1 - z);
  const x = z - 1;
  let a = g[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += g[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const variance = (xs: number[]): number => {
  const m = mean(xs);
  return xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1);
};

/** Welch's interval on mean(log current) − mean(log base); undefined without 2+ values a side. */
export function logRatioInterval(base: number[], current: number[]): { d: number; half: number } | undefined {
  const b = base.filter((x) => x > 0).map(Math.log);
  const c = current.filter((x) => x > 0).map(Math.log);
  if (b.length < 2 || c.length < 2) return undefined;
  const vb = variance(b) / b.length;
  const vc = variance(c) / c.length;
  const se = Math.sqrt(vb + vc);
  const d = mean(c) - mean(b);
  if (se === 0) return { d, half: 0 };
  const df = (vb + vc) ** 2 / (vb ** 2 / (b.length - 1) + vc ** 2 / (c.length - 1));
  return { d, half: tQuantile975(df) * se };
}

/** The change of one figure between two runs, from each run's sub-window values. */
export function changeOf(base: number[], current: number[], direction: Direction): Change | undefined {
  const b = base.filter((x) => Number.isFinite(x) && x > 0);
  const c = current.filter((x) => Number.isFinite(x) && x > 0);
  if (b.length === 0 || c.length === 0) return undefined;
  const geo = (xs: number[]): number => Math.exp(mean(xs.map(Math.log)));
  const pct = (logRatio: number): number => round((Math.exp(logRatio) - 1) * 100, 1);
  const interval = logRatioInterval(b, c);
  const d = Math.log(geo(c) / geo(b));
  const samples = { base: b.length, current: c.length };
  if (Math.min(b.length, c.length) < MIN_SUB_WINDOWS) return { changePct: pct(d), verdict: 'too short', samples };
  if (!interval) return { changePct: pct(d), verdict: wordOf(d, d, d, direction), samples };
  const low = interval.d - interval.half;
  const high = interval.d + interval.half;
  return { changePct: pct(d), lowPct: pct(low), highPct: pct(high), verdict: wordOf(d, low, high, direction), samples };
}

/**
 * The change of one figure between two versions measured side by side (capture/side-by-side.ts):
 * value i of each side comes from the same round, taken seconds apart, so the machine's drift
 * (another job starting, a CPU's clock) is in both. The interval is then Student's t on the
 * rounds' own log ratios, which that drift does not widen; two separate runs cannot remove it.
 */
export function pairedChangeOf(
  base: number[],
  current: number[],
  direction: Direction,
  confidence = 0.95,
): Change | undefined {
  const logRatios: number[] = [];
  for (let i = 0; i < Math.min(base.length, current.length); i++) {
    const b = base[i];
    const c = current[i];
    if (Number.isFinite(b) && Number.isFinite(c) && b > 0 && c > 0) logRatios.push(Math.log(c / b));
  }
  if (logRatios.length === 0) return undefined;
  const d = mean(logRatios);
  const pct = (logRatio: number): number => round((Math.exp(logRatio) - 1) * 100, 1);
  const samples = { base: logRatios.length, current: logRatios.length };
  if (logRatios.length < 2) return { changePct: pct(d), verdict: wordOf(d, d, d, direction), samples };
  const t = confidence === 0.95 ? tQuantile975(logRatios.length - 1) : tQuantile(confidence, logRatios.length - 1);
  const half = t * Math.sqrt(variance(logRatios) / logRatios.length);
  return {
    changePct: pct(d),
    lowPct: pct(d - half),
    highPct: pct(d + half),
    verdict: wordOf(d, d - half, d + half, direction),
    samples,
  };
}

function wordOf(d: number, low: number, high: number, direction: Direction): VerdictWord {
  if (d === 0 || (low <= 0 && high >= 0)) return 'within noise';
  const up = low > 0;
  return up === (direction === 'higher-is-better') ? 'better' : 'worse';
}

/**
 * A cost measured by the profile (a line's or function's ms per request): its uncertainty is
 * inferred, not measured per line — the sampling error of its samples (Poisson: √n) and the run's
 * spread of CPU per request between sub-windows (`cpuLogSd`, the standard deviation of
 * log CPU/request over `k` sub-windows), combined as independent relative errors.
 */
export function costChangeOf(
  base: { ms: number; samples: number; cpuLogSd?: number; k?: number },
  current: { ms: number; samples: number; cpuLogSd?: number; k?: number },
): Pick<Change, 'verdict' | 'lowPct' | 'highPct'> {
  const rel2 = (x: typeof base): number =>
    1 / Math.max(x.samples, 1) + (x.cpuLogSd !== undefined && x.k ? x.cpuLogSd ** 2 / x.k : 0);
  if (base.ms <= 0 || current.ms <= 0) {
    // A cost that appears or vanishes: real when the other side has more samples than a zero
    // count could hide (a 95% upper bound of a Poisson count of 0 is 3).
    const n = base.ms > 0 ? base.samples : current.samples;
    return { verdict: n > 3 ? (current.ms > base.ms ? 'worse' : 'better') : 'within noise' };
  }
  const d = Math.log(current.ms / base.ms);
  const half = 1.96 * Math.sqrt(rel2(base) + rel2(current));
  const low = d - half;
  const high = d + half;
  return {
    lowPct: round((Math.exp(low) - 1) * 100, 1),
    highPct: round((Math.exp(high) - 1) * 100, 1),
    verdict: wordOf(d, low, high, 'lower-is-better'),
  };
}

/** One run's side of a line's or function's cost (compare.ts): its figure and what it is made of. */
export interface RowSide {
  /** ms per request (ms without load). */
  ms: number;
  /** Half-width of the 95% interval of `ms` from the profile itself (batch means over its samples). */
  pmMs: number;
  /** CPU per request of each sub-window the headline's CPU/request is tested on; [] without them. */
  cpu: readonly number[];
}

interface Part {
  /** A variance of a log figure, and its degrees of freedom. */
  v: number;
  df: number;
}

/** Welch–Satterthwaite: the degrees of freedom of a sum of variances. */
function welchDf(parts: Part[]): number {
  const v = parts.reduce((t, p) => t + p.v, 0);
  const den = parts.reduce((t, p) => t + (p.v * p.v) / p.df, 0);
  return den > 0 ? (v * v) / den : Infinity;
}

/** Degrees of freedom of a share's batch-means interval (analysis/time/share-interval.ts: 20 blocks). */
const SHARE_DF = 19;

/**
 * A row's change against the noise, by the headline's own test widened by the row's: its figure is
 * its share of the profile × the run's CPU per request, so the log of each side's figure has the
 * variance of the share (its batch-means interval) plus that of the run's mean CPU per request
 * over its sub-windows — the variance the headline's Welch interval is built on. Student's t at
 * the Welch–Satterthwaite degrees of freedom of those four parts. A row that is the whole request
 * is then never surer than the request. Fewer than MIN_SUB_WINDOWS a side: too short, as the
 * headline; no sub-windows at all (old runs): the profile's own error alone.
 */
export function rowChangeOf(base: RowSide, current: RowSide): Pick<Change, 'verdict' | 'lowPct' | 'highPct'> {
  const k = Math.min(base.cpu.length, current.cpu.length);
  if (k > 0 && k < MIN_SUB_WINDOWS) return { verdict: 'too short' };
  if (base.ms <= 0 || current.ms <= 0) {
    // A cost that appears or vanishes: real when the side that has it is above 0 beyond its own
    // interval; a figure with no interval at all (pmMs 0) is a handful of samples.
    const seen = base.ms > 0 ? base : current;
    if (seen.ms <= 0 || !(seen.pmMs > 0) || seen.pmMs >= seen.ms) return { verdict: 'within noise' };
    return { verdict: current.ms > base.ms ? 'worse' : 'better' };
  }
  const shares: Part[] = [];
  const cpu: Part[] = [];
  for (const side of [base, current]) {
    const rel = side.pmMs / side.ms / 1.96; // the share's relative standard error
    shares.push({ v: rel * rel, df: SHARE_DF });
    const logs = side.cpu.filter((x) => Number.isFinite(x) && x > 0).map(Math.log);
    if (logs.length >= 2) cpu.push({ v: variance(logs) / logs.length, df: logs.length - 1 });
  }
  const v = [...shares, ...cpu].reduce((t, p) => t + p.v, 0);
  const d = Math.log(current.ms / base.ms);
  if (!(v > 0)) return { verdict: wordOf(d, d, d, 'lower-is-better') };
  // t at no more degrees of freedom than the headline's own: never a narrower interval than it.
  const df = Math.min(welchDf([...shares, ...cpu]), cpu.length > 0 ? welchDf(cpu) : Infinity);
  const half = tQuantile975(df) * Math.sqrt(v);
  return {
    lowPct: round((Math.exp(d - half) - 1) * 100, 1),
    highPct: round((Math.exp(d + half) - 1) * 100, 1),
    verdict: wordOf(d, d - half, d + half, 'lower-is-better'),
  };
}

/**
 * A count per request served (errors, timeouts, non-2xx) in two runs: the ratio of the rates, its
 * 95% interval from the counts' Poisson error (√n each, a log-rate interval). A count that
 * appears or vanishes is real only above 3 (a 95% upper bound of a Poisson count of 0), scaled
 * to the other run's requests.
 */
export function rateChangeOf(
  base: { count: number; requests: number },
  current: { count: number; requests: number },
): Pick<Change, 'verdict' | 'lowPct' | 'highPct'> & { changePct?: number } {
  if (base.requests <= 0 || current.requests <= 0) return { verdict: 'within noise' };
  if (base.count === 0 && current.count === 0) return { verdict: 'within noise', changePct: 0 };
  if (base.count === 0 || current.count === 0) {
    const seen = base.count === 0 ? current.count : base.count;
    // The zero side's requests, at the seen side's rate, would have shown this many.
    const expected =
      base.count === 0 ? (seen * base.requests) / current.requests : (seen * current.requests) / base.requests;
    return { verdict: expected > 3 && seen > 3 ? (current.count > 0 ? 'worse' : 'better') : 'within noise' };
  }
  const d = Math.log(current.count / current.requests / (base.count / base.requests));
  const half = 1.96 * Math.sqrt(1 / base.count + 1 / current.count);
  return {
    changePct: round((Math.exp(d) - 1) * 100, 1),
    lowPct: round((Math.exp(d - half) - 1) * 100, 1),
    highPct: round((Math.exp(d + half) - 1) * 100, 1),
    verdict: wordOf(d, d - half, d + half, 'lower-is-better'),
  };
}

/** Standard deviation of the logarithms (the relative spread), undefined under 2 values. */
export function logSd(xs: number[]): number | undefined {
  const l = xs.filter((x) => Number.isFinite(x) && x > 0).map(Math.log);
  return l.length >= 2 ? Math.sqrt(variance(l)) : undefined;
}

const round = (v: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};

/**
 * The profiler's cost inside one run: the profiled sub-windows against the measured ones that
 * alternate with them, as changes of the profiled window (req/s −3% and CPU/request +4%: the
 * profiler made it slower). Undefined when the run has no sub-windows of both kinds.
 */
export function profilerCostOf(
  subWindows:
    | {
        measured: Array<{ perSecond: number; cpuMsPerRequest?: number }>;
        profiled: Array<{ perSecond: number; cpuMsPerRequest?: number }>;
      }
    | undefined,
): { requestsPerSecond?: Change; cpuPerRequest?: Change } | undefined {
  if (!subWindows || subWindows.measured.length === 0 || subWindows.profiled.length === 0) return undefined;
  return {
    requestsPerSecond: changeOf(
      subWindows.measured.map((w) => w.perSecond),
      subWindows.profiled.map((w) => w.perSecond),
      'higher-is-better',
    ),
    cpuPerRequest: changeOf(
      subWindows.measured.map((w) => w.cpuMsPerRequest ?? NaN),
      subWindows.profiled.map((w) => w.cpuMsPerRequest ?? NaN),
      'lower-is-better',
    ),
  };
}
