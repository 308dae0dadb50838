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
import type { Comparison, Delta } from './compare.ts';
import type { VerdictWord } from './verdict.ts';

export type GateFigure = 'cpu/request' | 'req/s' | 'latency p99';

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
    }
  /** The runs lack the figures the gate needs (a run without load, a zero baseline). */
  | { decided: false; thresholdPct: number; reason: string };

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

export function regressionGate(c: Pick<Comparison, 'baseId' | 'load'>, thresholdPct: number): GateVerdict {
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
  const byCpu = l.saturated === true && cpu !== undefined;
  const cores = l.appCpu ? ` (${l.appCpu.base.toFixed(2)} → ${l.appCpu.current.toFixed(2)} cores)` : '';
  const saturatedWhy = byCpu
    ? `the app's event loop was saturated in both runs: its req/s and latency follow the CPU the machine gave it${cores}, so CPU per request decides`
    : undefined;
  const checks: GateCheck[] = [];
  if (cpu)
    checks.push(
      check(
        'cpu/request',
        cpu,
        'up',
        thresholdPct,
        byCpu ? undefined : "the app's event loop had room in a run: req/s and latency decide",
      ),
    );
  checks.push(check('req/s', l.requestsPerSecond, 'down', thresholdPct, saturatedWhy));
  // A p99 of 0 ms cannot regress by a share; the others still decide.
  if (l.latencyMs.p99.base > 0) checks.push(check('latency p99', l.latencyMs.p99, 'up', thresholdPct, saturatedWhy));
  const withoutSpread = checks.some((x) => x.notGated === undefined && x.verdict === undefined);
  const failed = checks.some((x) => x.failed);
  return {
    decided: true,
    thresholdPct,
    failed,
    inconclusive: !failed && checks.some((x) => x.outcome === 'undecided'),
    checks,
    ...(withoutSpread
      ? {
          note: 'a run without sub-windows (from an older Hotline, or an external load) has no spread: the threshold alone decides',
        }
      : {}),
  };
}

function check(figure: GateFigure, d: Delta, worse: 'up' | 'down', thresholdPct: number, notGated?: string): GateCheck {
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
  };
}
