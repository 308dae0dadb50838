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
  readRunSources,
  regressionGate,
  type ReportV1,
  type RunSources,
  signedPct,
  StoreError,
  ThresholdError,
  MIN_VERDICT_DURATION_S,
  writeReport,
} from '../core/index.ts';
import { routeGateLines, slowerRoutes } from './render-route-changes.ts';

/** Exit code of a run or comparison that regressed past --fail-if-slower. */
export const EXIT_REGRESSED = 3;
/** Exit code of a gate that could neither rule out a regression past the threshold nor find one. */
export const EXIT_INCONCLUSIVE = 4;

export class BaselineError extends Error {}

/** Reads the baseline before the run starts, so a wrong id fails in a second, not after the load. */
export function readBaseline(ref: string, runsDir: string): { dir: string; report: ReportV1 } {
  try {
    return readRun(ref, runsDir);
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
 * (verdicts/comparable.ts) and `force` is not set: a verdict on two different requests is no verdict.
 */
export function checkedComparison(base: ReportV1, current: ReportV1, force: boolean, sources?: RunSources): Comparison {
  const comparison = compareReports(base, current, undefined, sources);
  if (comparison.refused && !force) throw new IncomparableError(comparison.refused);
  return comparison;
}

/** Compares, and keeps the comparison in the run's report.json (written before it is shown). */
export function attachBaseline(
  runDir: string,
  report: ReportV1,
  baseline: { dir: string; report: ReportV1 },
  force = false,
): { report: ReportV1; comparison: Comparison } {
  const base = baseline.report;
  const comparison = checkedComparison(base, report, force, readRunSources(baseline.dir, runDir));
  // A hint whose fix did not move the cost stays on its line (verdicts/kept-hints.ts): the
  // editor's lenses and Problems read report.hints.
  const withBaseline: ReportV1 = {
    ...report,
    hints: [...report.hints, ...(comparison.keptHints ?? [])],
    baseline: { runId: base.id, deltas: { ...comparison } },
  };
  writeReport(runDir, withBaseline);
  return { report: withBaseline, comparison };
}

/** The gate's lines for the terminal, and the exit code it asks for. */
export function gateOutcome(
  c: Pick<Comparison, 'baseId' | 'load' | 'routes'>,
  thresholdPct: number,
  /** The intervals' level (a sequential gate's is above 95%: sequentialConfidence). */
  confidence = 0.95,
  /** `hotline gate`'s: the measure whose rounds spread less decides (verdicts/gate.ts). */
  gateOptions: { pickMeasure?: boolean; cpuSource?: string } = {},
): { lines: string[]; exitCode: number; verdict: GateVerdict } {
  const level = `${Number((confidence * 100).toFixed(1))}%`;
  const verdict = regressionGate(c, thresholdPct, { ...gateOptions, confidence });
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
      x.lowPct !== undefined && x.highPct !== undefined ? ` ${level} ${intervalPct(x.lowPct, x.highPct)}` : '';
    const outcome =
      x.outcome === 'not gated'
        ? 'not gated'
        : x.outcome === 'regressed'
          ? 'REGRESSED'
          : x.outcome === 'undecided'
            ? x.verdict === 'too short'
              ? `cannot tell: too short to tell (too few sub-windows a side; use --duration ≥ ${MIN_VERDICT_DURATION_S})`
              : `cannot tell: could be up to ${signedPct(x.upToPct ?? 0)} slower`
            : 'ok';
    // The percentage beside the two values is theirs; the test's estimate (of the sub-windows'
    // or rounds' ratios) is named as such when it differs.
    const b = Number(minus(num(x.base)).replace(MINUS, '-'));
    const c = Number(minus(num(x.current)).replace(MINUS, '-'));
    const shown = b !== 0 ? Math.round(((c - b) / Math.abs(b)) * 1000) / 10 : x.changePct;
    const estimate =
      interval && Math.abs(shown - x.changePct) >= 0.1 ? `; estimate ${signedPct(x.changePct)}${interval}` : interval;
    return `gate: ${x.figure.padEnd(11)} ${num(x.base)} → ${num(x.current)} (${signedPct(shown)}${estimate}, ${limit})  ${outcome}`;
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
  // A request mix: each route's CPU per request, the slower ones named.
  lines.push(...routeGateLines(verdict));
  const slower = slowerRoutes(verdict);
  const worst = Math.max(...[...verdict.checks, ...(verdict.routes ?? [])].map((x) => x.upToPct ?? -Infinity));
  lines.push(
    verdict.failed
      ? `gate: FAIL — slower than the baseline ${c.baseId} by more than ${thresholdPct}%, beyond the runs' noise${slower ? ` (slower: ${slower})` : ''}`
      : verdict.inconclusive
        ? `gate: INCONCLUSIVE — not shown slower than the baseline ${c.baseId}, but not within ${thresholdPct}% either: could be up to ${Number.isFinite(worst) ? signedPct(worst) : 'any amount'} slower (more rounds or a longer --duration would decide; exit ${EXIT_INCONCLUSIVE})`
        : `gate: pass — the interval rules out a slowdown past ${thresholdPct}% against the baseline ${c.baseId}${untold(verdict)}`,
  );
  return {
    verdict,
    exitCode: verdict.failed ? EXIT_REGRESSED : verdict.inconclusive ? EXIT_INCONCLUSIVE : 0,
    lines,
  };
}

/** The routes a passing gate could not tell (too noisy), named after its pass. */
function untold(v: GateVerdict): string {
  const routes = v.decided ? (v.routes ?? []).filter((r) => r.outcome === 'undecided') : [];
  return routes.length > 0
    ? ` (the whole app; not told either way: ${routes.map((r) => `${r.method} ${r.route}`).join(', ')})`
    : '';
}

const num = (v: number): string =>
  minus(Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(1) : v.toFixed(3));
