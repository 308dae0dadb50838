// `--baseline RUN` and `--fail-if-slower N%`: a run compared with an earlier one, the comparison
// kept in its report.json, and a verdict CI can act on (exit 3 = slower than allowed).
import {
  compareReports,
  type Comparison,
  IncomparableError,
  type GateVerdict,
  intervalPct,
  MINUS,
  minus,
  parseThreshold,
  readRun,
  regressionGate,
  type ReportV1,
  signedPct,
  StoreError,
  ThresholdError,
  writeReport,
} from '../core/index.ts';

/** Exit code of a run or comparison that regressed past --fail-if-slower. */
export const EXIT_REGRESSED = 3;

export class BaselineError extends Error {}

/** Reads the baseline before the run starts, so a wrong id fails in a second, not after the load. */
export function readBaseline(ref: string, runsDir: string): ReportV1 {
  try {
    return readRun(ref, runsDir).report;
  } catch (err) {
    if (err instanceof StoreError) throw new BaselineError(`--baseline: ${err.message}`);
    throw err;
  }
}

export function threshold(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  try {
    return parseThreshold(String(value));
  } catch (err) {
    if (err instanceof ThresholdError) throw new BaselineError(err.message);
    throw err;
  }
}

/**
 * The comparison, or IncomparableError when the runs loaded something different
 * (report/comparable.ts) and `force` is not set: a verdict on two different requests is no verdict.
 */
export function checkedComparison(base: ReportV1, current: ReportV1, force: boolean): Comparison {
  const comparison = compareReports(base, current);
  if (comparison.refused && !force) throw new IncomparableError(comparison.refused);
  return comparison;
}

/** Compares, and keeps the comparison in the run's report.json (written before it is shown). */
export function attachBaseline(
  runDir: string,
  report: ReportV1,
  base: ReportV1,
  force = false,
): { report: ReportV1; comparison: Comparison } {
  const comparison = checkedComparison(base, report, force);
  const withBaseline: ReportV1 = { ...report, baseline: { runId: base.id, deltas: { ...comparison } } };
  writeReport(runDir, withBaseline);
  return { report: withBaseline, comparison };
}

/** The gate's lines for the terminal, and the exit code it asks for. */
export function gateOutcome(
  c: Pick<Comparison, 'baseId' | 'load'>,
  thresholdPct: number,
): { lines: string[]; exitCode: number; verdict: GateVerdict } {
  const verdict = regressionGate(c, thresholdPct);
  if (!verdict.decided) {
    return {
      verdict,
      exitCode: 1,
      lines: [`gate: cannot decide --fail-if-slower ${thresholdPct}%: ${verdict.reason}.`],
    };
  }
  const lines = verdict.checks.map((x) => {
    const limit = `limit ${x.figure === 'req/s' ? MINUS : '+'}${thresholdPct}%`;
    const interval =
      x.lowPct !== undefined && x.highPct !== undefined ? ` 95% ${intervalPct(x.lowPct, x.highPct)}` : '';
    const outcome = x.notGated
      ? 'not gated'
      : x.failed
        ? 'REGRESSED'
        : x.verdict === 'within noise'
          ? 'ok (within noise)'
          : 'ok';
    return `gate: ${x.figure.padEnd(11)} ${num(x.base)} → ${num(x.current)} (${signedPct(x.changePct)}${interval}, ${limit})  ${outcome}`;
  });
  for (const why of new Set(verdict.checks.map((x) => x.notGated).filter((x): x is string => x !== undefined))) {
    lines.push(
      `gate: ${verdict.checks
        .filter((x) => x.notGated === why)
        .map((x) => x.figure)
        .join(' and ')} not gated: ${why}.`,
    );
  }
  if (verdict.note) lines.push(`gate: note: ${verdict.note}.`);
  lines.push(
    verdict.failed
      ? `gate: FAIL — slower than the baseline ${c.baseId} by more than ${thresholdPct}%, beyond the runs' noise`
      : `gate: pass — not slower than the baseline ${c.baseId} by more than ${thresholdPct}% beyond the runs' noise`,
  );
  return { verdict, exitCode: verdict.failed ? EXIT_REGRESSED : 0, lines };
}

const num = (v: number): string =>
  minus(Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(1) : v.toFixed(3));
