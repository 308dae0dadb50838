// The CI gate of `--fail-if-slower`: did throughput or tail latency regress against the
// baseline by more than the allowed share? Pure: a comparison and a threshold in, a verdict out.
// Both figures are the measured window's (profiler off), the ones the report leads with.
import type { Comparison, Delta } from './compare.ts';

export interface GateCheck {
  figure: 'req/s' | 'latency p99';
  base: number;
  current: number;
  /** Signed change in % of the base (negative = fewer req/s or a shorter p99). */
  changePct: number;
  failed: boolean;
}

export type GateVerdict =
  | { decided: true; thresholdPct: number; failed: boolean; checks: GateCheck[] }
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

export function regressionGate(c: Comparison, thresholdPct: number): GateVerdict {
  if (!c.load) return { decided: false, thresholdPct, reason: 'one of the runs has no load figures (a profile taken without load cannot be gated)' };
  const rps = c.load.requestsPerSecond;
  const p99 = c.load.latencyMs.p99;
  if (rps.base <= 0) return { decided: false, thresholdPct, reason: `the baseline ${c.baseId} served no requests, so there is no throughput to regress from` };
  const checks: GateCheck[] = [check('req/s', rps, (pct) => pct < -thresholdPct)];
  // A p99 of 0 ms cannot regress by a share; req/s still decides.
  if (p99.base > 0) checks.push(check('latency p99', p99, (pct) => pct > thresholdPct));
  return { decided: true, thresholdPct, failed: checks.some((x) => x.failed), checks };
}

function check(figure: GateCheck['figure'], d: Delta, regressed: (changePct: number) => boolean): GateCheck {
  const changePct = Math.round(((d.current - d.base) / d.base) * 1000) / 10;
  return { figure, base: d.base, current: d.current, changePct, failed: regressed(changePct) };
}
