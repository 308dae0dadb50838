// The CI gate of `--fail-if-slower`: did the code get slower than the baseline by more than the
// allowed share, beyond the runs' own noise? Pure: a comparison and a threshold in, a verdict out.
// The figures are the measured window's (profiler off), the ones the report leads with:
// - req/s and p99 latency, what users feel — unless the app's event loop was saturated in both
//   runs: then they follow the CPU the machine gave the app (other processes on a shared CI
//   machine move them by tens of %), and
// - CPU per request (the app's CPU time over the requests it served) decides instead: it is
//   what a change of the code moves, and what a busier machine moves least. It does not gate an
//   app whose loop had room: there more CPU per request can buy more req/s (sync → async).
// A check fails when its 95% interval lies on the worse side of no change (verdict.ts) and the
// change is past the threshold. Runs without sub-windows (older runs) have no interval: the
// threshold alone decides, and the verdict says so.
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
  /** Shown but not deciding (a saturated app's req/s and p99): why. */
  notGated?: string;
}

export type GateVerdict =
  | { decided: true; thresholdPct: number; failed: boolean; checks: GateCheck[]; note?: string }
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
  return {
    decided: true,
    thresholdPct,
    failed: checks.some((x) => x.failed),
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
  const pastThreshold = worse === 'up' ? changePct > thresholdPct : changePct < -thresholdPct;
  const beyondNoise = d.noise ? d.noise.verdict === 'worse' : true;
  return {
    figure,
    base: d.base,
    current: d.current,
    changePct,
    ...(d.noise ? { lowPct: d.noise.lowPct, highPct: d.noise.highPct, verdict: d.noise.verdict } : {}),
    failed: notGated === undefined && pastThreshold && beyondNoise,
    ...(notGated ? { notGated } : {}),
  };
}
