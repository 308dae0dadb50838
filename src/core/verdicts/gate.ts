// The CI gate of `--fail-if-slower`: did the code get slower than the baseline by more than the
// allowed share, beyond the runs' own noise? Pure: a comparison and a threshold in, a verdict out.
// The figures are the measured window's (profiler off), the ones the report leads with:
// - req/s and p99 latency, what users feel — unless the app's event loop was saturated in both
//   runs: then they follow the CPU the machine gave the app (other processes on a shared CI
//   machine move them by tens of %), and
// - CPU per request (the app's CPU time over the requests it served) decides instead: it is
//   what a change of the code moves, and what a busier machine moves least. It does not gate an
//   app whose loop had room: there more CPU per request can buy more req/s (sync → async).
// Each gated check decides, or says it cannot (docs/measurement.md "The gate"):
// - regressed: its interval lies wholly on the worse side of no change, and the change is past
//   the threshold;
// - ok: its interval rules out a change past the threshold (its worse end within it);
// - undecided otherwise (the interval holds both): `hotline gate` adds rounds, a comparison of
//   two runs says "inconclusive: … could be up to +X%" and exits EXIT_INCONCLUSIVE.
// Runs without sub-windows (older runs, an external load) have no interval: the threshold alone
// decides, and the verdict says so.
// Side by side (`hotline gate`, `pickMeasure`), CPU per request decides also when the loop had
// room, if its rounds spread no more than req/s's: the rounds' paired log ratios of both measures
// come from the same rounds, so the narrower interval is the one that can tell a change sooner,
// and choosing by spread does not bias the chosen test (for normal data the means are independent
// of the spreads). With each verdict, what the run could see: the smallest slowdown its noise
// would have shown as regressed in 80% of gates (detectablePct), and the rounds identical code
// needs to pass at this noise (samplesToDecide). docs/measurement.md "The gate".
import type { Comparison, Delta } from './compare.ts';
import { tQuantile, tQuantile975, type VerdictWord } from './verdict.ts';
import { routeGateLevel } from './route-compare.ts';

export type GateFigure = 'cpu/request' | 'req/s' | 'latency p99' | 'thread ms/request';

export interface GateCheck {
  figure: GateFigure;
  base: number;
  current: number;
  /** Signed change in % of the base (negative = fewer req/s, a shorter p99, less CPU). */
  changePct: number;
  /** 95% interval of changePct, when both runs have sub-windows. */
  lowPct?: number;
  highPct?: number;
  verdict?: VerdictWord;
  failed: boolean;
  /** ok / regressed / undecided, by the rule above; `not gated` for a figure shown only. */
  outcome: 'ok' | 'regressed' | 'undecided' | 'not gated';
  /** The interval's worse end as a slowdown, %: how slower it could be (undecided checks). */
  upToPct?: number;
  /** Shown but not deciding (a saturated app's req/s and p99): why. */
  notGated?: string;
  /** With an interval: the smallest slowdown, %, shown as regressed in 80% of gates at this noise. */
  detectablePct?: number;
  /** With an interval: one sample's spread (SD of the log ratios, as %): a round's, side by side. */
  spreadPct?: number;
  /** With an interval: the samples a side (rounds) at which identical code passes in 80% of gates. */
  samplesToDecide?: number;
}

export interface GateOptions {
  /** Side by side: the measure whose rounds spread less decides (CPU per request on a tie). */
  pickMeasure?: boolean;
  /** The intervals' level (a sequential gate's is above 95%), for what the run could see. */
  confidence?: number;
  /** Where CPU per request was read, named in decidedBy ("the app's process tree, /proc"). */
  cpuSource?: string;
}

export type GateVerdict =
  | {
      decided: true;
      thresholdPct: number;
      failed: boolean;
      /** No check regressed, and one could not be told from a regression past the threshold. */
      inconclusive: boolean;
      checks: GateCheck[];
      note?: string;
      /** The figures that decided (the gated checks), and why those. */
      decidedBy?: { figures: GateFigure[]; why: string };
      /** The smallest slowdown, %, this run's noise would have caught (the gated checks' least). */
      detectablePct?: number;
      /** Samples a side (rounds) for identical code to pass in 80% of gates at this noise (the most). */
      samplesToDecide?: number;
      /**
       * A request mix measured per round (side by side): each route's median request's thread
       * time, gated as the whole's figures are, each at the gate's level shared among the routes
       * (route-compare.ts).
       */
      routes?: RouteGateCheck[];
      /**
       * A route looks slower than the threshold but its interval still holds no change: a gate
       * adds rounds for it. A route it cannot tell does not make the gate inconclusive: a route
       * of a tenth of a ms, mostly HTTP, spreads by ±50% a round and would hold every gate of a
       * mix; it fails the gate only when shown slower.
       */
      routesSuspect?: true;
    }
  /** The runs lack the figures the gate needs (a run without load, a zero baseline). */
  | { decided: false; thresholdPct: number; reason: string };

/** One route's time per request (its median request's, on the main thread) against the threshold. */
export type RouteGateCheck = GateCheck & { method: string; route: string };

export class ThresholdError extends Error {}

/** "5%", "5" or "2.5 %" → 5 / 2.5. Anything else, or outside 0–100, is refused with why. */
export function parseThreshold(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(text);
  const pct = m ? Number(m[1]) : NaN;
  if (!Number.isFinite(pct) || pct < 0 || pct >= 100) {
    throw new ThresholdError(`--fail-if-slower takes a percentage from 0 to 99, such as 5% (got "${text}")`);
  }
  return pct;
}

export function regressionGate(
  c: Pick<Comparison, 'baseId' | 'load' | 'routes'>,
  thresholdPct: number,
  opts: GateOptions = {},
): GateVerdict {
  if (!c.load)
    return {
      decided: false,
      thresholdPct,
      reason: 'one of the runs has no load figures (a profile taken without load cannot be gated)',
    };
  const l = c.load;
  if (l.requestsPerSecond.base <= 0)
    return {
      decided: false,
      thresholdPct,
      reason: `the baseline ${c.baseId} served no requests, so there is no throughput to regress from`,
    };
  const cpu = l.cpuPerRequestMs && l.cpuPerRequestMs.base > 0 ? l.cpuPerRequestMs : undefined;
  const saturated = l.saturated === true && cpu !== undefined;
  // Side by side, CPU per request decides an app whose loop had room too, when its rounds spread
  // no more than req/s's (the same rounds: the narrower interval).
  const cpuHalf = cpu ? logHalfWidth(cpu) : undefined;
  const rpsHalf = logHalfWidth(l.requestsPerSecond);
  const quieter =
    opts.pickMeasure === true && !saturated && cpuHalf !== undefined && rpsHalf !== undefined && cpuHalf <= rpsHalf;
  const byCpu = saturated || quieter;
  const cores = l.appCpu ? ` (${l.appCpu.base.toFixed(2)} → ${l.appCpu.current.toFixed(2)} cores)` : '';
  const spread = (h: number | undefined): string => (h === undefined ? '?' : `±${pctOfLog(h)}%`);
  const saturatedWhy = saturated
    ? `the app's event loop was saturated in both runs: its req/s and latency follow the CPU the machine gave it${cores}, so CPU per request decides`
    : quieter
      ? `CPU per request's interval is the narrower (${spread(cpuHalf)} against req/s's ${spread(rpsHalf)}, the same rounds), so it decides`
      : undefined;
  const cpuNotGated =
    opts.pickMeasure === true && cpuHalf !== undefined && rpsHalf !== undefined
      ? `its interval is the wider (${spread(cpuHalf)} against req/s's ${spread(rpsHalf)}, the same rounds) and the app's event loop had room: req/s and latency decide`
      : "the app's event loop had room in a run: req/s and latency decide";
  const checks: GateCheck[] = [];
  const level = opts.confidence ?? 0.95;
  if (cpu) checks.push(check('cpu/request', cpu, 'up', thresholdPct, byCpu ? undefined : cpuNotGated, level));
  checks.push(check('req/s', l.requestsPerSecond, 'down', thresholdPct, saturatedWhy, level));
  // A p99 of 0 ms cannot regress by a share; the others still decide.
  if (l.latencyMs.p99.base > 0)
    checks.push(check('latency p99', l.latencyMs.p99, 'up', thresholdPct, saturatedWhy, level));
  const gated = checks.filter((x) => x.notGated === undefined);
  const detectable = gated.map((x) => x.detectablePct).filter((x): x is number => x !== undefined);
  const toDecide = gated.map((x) => x.samplesToDecide).filter((x): x is number => x !== undefined);
  const source = opts.cpuSource ? ` (${opts.cpuSource})` : '';
  const decidedBy = {
    figures: gated.map((x) => x.figure),
    why: saturated
      ? `CPU per request${source}: the app's event loop was saturated in both runs`
      : quieter
        ? `CPU per request${source}: its rounds spread less than req/s's (${spread(cpuHalf)} against ${spread(rpsHalf)})`
        : cpu && opts.pickMeasure === true && cpuHalf !== undefined && rpsHalf !== undefined
          ? `req/s and latency: their rounds spread less than CPU per request's (${spread(rpsHalf)} against ${spread(cpuHalf)}) and the app's event loop had room`
          : "req/s and latency: the app's event loop had room",
  };
  const withoutSpread = checks.some((x) => x.notGated === undefined && x.verdict === undefined);
  // Per route: its median request's thread time per window (route-compare.ts). Not its req/s or
  // p99: in a mix they follow the whole app's (shared connections, requests queued behind others').
  const gatedRoutes = (c.routes ?? []).filter((r) => r.threadMs?.noise && r.threadMs.base > 0);
  const routeLevel = routeGateLevel(level, gatedRoutes.length);
  const routes: RouteGateCheck[] = gatedRoutes.map((r) => ({
    method: r.method,
    route: r.route,
    ...check('thread ms/request', r.threadMs!, 'up', thresholdPct, undefined, routeLevel),
  }));
  const failed = checks.some((x) => x.failed) || routes.some((x) => x.failed);
  return {
    decided: true,
    thresholdPct,
    failed,
    inconclusive: !failed && checks.some((x) => x.outcome === 'undecided'),
    checks,
    ...(routes.length > 0 ? { routes } : {}),
    ...(!failed && routes.some((x) => x.outcome === 'undecided' && x.changePct > thresholdPct)
      ? { routesSuspect: true as const }
      : {}),
    decidedBy,
    ...(detectable.length === gated.length && detectable.length > 0 ? { detectablePct: Math.min(...detectable) } : {}),
    ...(toDecide.length === gated.length && toDecide.length > 0 ? { samplesToDecide: Math.max(...toDecide) } : {}),
    ...(withoutSpread
      ? {
          note: 'a run without sub-windows (from an older Hotline, or an external load) has no spread: the threshold alone decides',
        }
      : {}),
  };
}

function check(
  figure: GateFigure,
  d: Delta,
  worse: 'up' | 'down',
  thresholdPct: number,
  notGated: string | undefined,
  confidence: number,
): GateCheck {
  const changePct = d.noise?.changePct ?? Math.round(((d.current - d.base) / d.base) * 1000) / 10;
  // As a slowdown: positive is worse, whichever way the figure goes.
  const slower = (pct: number): number => (worse === 'up' ? pct : -pct);
  const n = d.noise;
  const interval = n?.lowPct !== undefined && n.highPct !== undefined ? { low: n.lowPct, high: n.highPct } : undefined;
  const worstPct = interval ? Math.max(slower(interval.low), slower(interval.high)) : undefined;
  const bestPct = interval ? Math.min(slower(interval.low), slower(interval.high)) : undefined;
  const past = slower(changePct) > thresholdPct;
  const outcome: GateCheck['outcome'] =
    notGated !== undefined
      ? 'not gated'
      : !n
        ? past
          ? 'regressed'
          : 'ok' // no spread: the threshold alone (the verdict's note says so)
        : n.verdict === 'too short' || worstPct === undefined || bestPct === undefined
          ? 'undecided'
          : bestPct > 0 && past
            ? 'regressed'
            : worstPct <= thresholdPct
              ? 'ok'
              : 'undecided';
  return {
    figure,
    base: d.base,
    current: d.current,
    changePct,
    ...(n ? { lowPct: n.lowPct, highPct: n.highPct, verdict: n.verdict } : {}),
    failed: outcome === 'regressed',
    outcome,
    ...(outcome === 'undecided' && worstPct !== undefined ? { upToPct: worstPct } : {}),
    ...(notGated ? { notGated } : {}),
    ...(n && n.verdict !== 'too short' ? sensitivity(d, thresholdPct, confidence) : {}),
  };
}

/** z of a one-sided 80%: the power at which "would have been caught" is said. */
const Z_POWER = 0.8416;

/** Half the width of a figure's interval on the log scale; undefined without one. */
export function logHalfWidth(d: Delta | undefined): number | undefined {
  const n = d?.noise;
  if (!n || n.lowPct === undefined || n.highPct === undefined || n.verdict === 'too short') return undefined;
  if (n.lowPct <= -100 || n.highPct <= -100) return undefined;
  return (Math.log(1 + n.highPct / 100) - Math.log(1 + n.lowPct / 100)) / 2;
}

/**
 * What one check could see. With k samples a side, its interval's half-width h = t·SE on the log
 * scale (t Student's at the gate's level, k − 1 degrees of freedom: the paired rounds'). A slowdown
 * δ is called regressed when the estimate clears both h (the interval leaves no change) and the
 * threshold T; the estimate scatters by SE, so it is caught in 80% of gates from
 * δ = max(h, ln(1 + T)) + 0.84·SE on. Identical code passes when estimate + h ≤ ln(1 + T), in 80%
 * of gates once (t + 0.84)·SD/√k ≤ ln(1 + T): k ≥ ((t + 0.84)·SD / ln(1 + T))² (t as now, so an
 * upper bound). Two separate runs have Welch's degrees of freedom, here taken as k − 1 (wider).
 */
export function sensitivity(
  d: Delta,
  thresholdPct: number,
  confidence: number,
): Pick<GateCheck, 'detectablePct' | 'spreadPct' | 'samplesToDecide'> {
  const h = logHalfWidth(d);
  const k = d.noise ? Math.min(d.noise.samples.base, d.noise.samples.current) : 0;
  if (h === undefined || k < 2) return {};
  const t = confidence === 0.95 ? tQuantile975(k - 1) : tQuantile(confidence, k - 1);
  const se = h / t;
  const sd = se * Math.sqrt(k);
  const limit = Math.log(1 + thresholdPct / 100);
  const detectable = Math.max(h, limit) + Z_POWER * se;
  const need = limit > 0 ? Math.ceil((((t + Z_POWER) * sd) / limit) ** 2) : Infinity;
  return {
    detectablePct: pctOfLog(detectable),
    spreadPct: pctOfLog(sd),
    ...(Number.isFinite(need) ? { samplesToDecide: Math.max(2, need) } : {}),
  };
}

/** A log ratio as a rounded % change. */
const pctOfLog = (x: number): number => Math.round((Math.exp(x) - 1) * 1000) / 10;
