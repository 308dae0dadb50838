// The one line a finished run gets when a baseline is set: did the fix help? Throughput and tail
// latency against the baseline, and the biggest saving among the user's functions. No `vscode`
// import: the text is tested on its own.
import * as path from 'node:path';
import {
  compareReports,
  type Comparison,
  type CostChange,
  type Delta,
  isChange,
  readRun,
  readRunSources,
  refusalLine,
  signedPct,
  withSign,
} from '../core/index.ts';

/** The summary, or undefined when there is no (other, readable) baseline. */
export function againstBaseline(reportFile: string, baselineFile: string | undefined): string | undefined {
  if (!baselineFile || path.resolve(baselineFile) === path.resolve(reportFile)) return undefined;
  let comparison: Comparison;
  try {
    const base = readRun(baselineFile);
    const current = readRun(reportFile);
    comparison = compareReports(base.report, current.report, undefined, readRunSources(base.dir, current.dir));
  } catch {
    return undefined; // a baseline deleted or damaged since: the report still shows, without deltas
  }
  return summarise(comparison);
}

export function summarise(c: Comparison): string {
  // Runs that loaded something different get no verdict: the editor has no --force.
  if (c.refused)
    return `not compared with the baseline ${c.baseId}: ${refusalLine(c.refused).replace(/ \(--force.*\)$/, '')}.`;
  const parts: string[] = [];
  // The request's figures lead: did a request get cheaper or faster, beyond the noise?
  if (c.load) {
    if (c.load.cpuPerRequestMs)
      parts.push(`CPU/request ${figure(c.load.cpuPerRequestMs, cpuDigits(c.load.cpuPerRequestMs), ' ms')}`);
    parts.push(`req/s ${figure(c.load.requestsPerSecond, 1)}`);
    parts.push(`p99 ${figure(c.load.latencyMs.p99, 0, ' ms')}`);
  }
  // The line that saved the most, only when the request carries it (compare.ts holds a line's
  // saving back otherwise): a caller's total holds the same saving and would name the route
  // handler rather than the line that was fixed.
  const minMs = minNamedMs(c);
  const worthNaming = (r: CostChange): boolean => r.change < 0 && isChange(r.verdict) && -r.change >= minMs;
  const saving = c.lines.find(worthNaming) ?? c.functions.find(worthNaming);
  if (saving) parts.push(`${saving.name} ${signed(saving.change)} ${c.unit}`);
  // A fix applied whose cost did not move: said, not dropped.
  for (const h of c.keptHints ?? []) parts.push(`${path.basename(h.file)}:${h.line} ${h.message.split(':')[0]}`);
  return `against the baseline ${c.baseId}: ${parts.length > 0 ? parts.join(', ') : 'no change in your code'}.`;
}

/** A saving named in the toast is at least this share of the request's CPU. */
const MIN_NAMED_SHARE = 0.05;

/**
 * The smallest saving the toast names, ms: a line that was 0.5% of the request, cheaper beside a
 * loop that batches differently, is no answer to "did the fix help?" (the report lists it).
 */
function minNamedMs(c: Comparison): number {
  const cpu = c.load?.cpuPerRequestMs;
  return cpu && c.unit === 'ms/request' ? cpu.base * MIN_NAMED_SHARE : 0;
}

/**
 * "8.5 → 5.8 (−32%, worse)" or "(+2%, within noise)": the percentage from the two values printed
 * beside it (the report's card shows the same), the word from the noise test; no word for runs
 * without sub-windows.
 */
function figure(d: Delta, digits: number, unit = ''): string {
  const b = d.base.toFixed(digits);
  const c = d.current.toFixed(digits);
  const pct = Number(b) !== 0 ? ((Number(c) - Number(b)) / Math.abs(Number(b))) * 100 : undefined;
  const verdict = d.noise ? `, ${d.noise.verdict === 'too short' ? 'too short to tell' : d.noise.verdict}` : '';
  const change = pct !== undefined ? ` (${signedPct(pct, 0)}${verdict})` : '';
  return `${b}${unit} → ${c}${unit}${change}`;
}

/** Two significant figures at least, at most three decimals: 41 ms, 0.42 ms, 0.046 ms. */
function cpuDigits(d: Delta): number {
  const v = Math.min(Math.abs(d.base), Math.abs(d.current));
  return v >= 10 ? 0 : v >= 1 ? 1 : v >= 0.1 ? 2 : 3;
}

function signed(v: number): string {
  return withSign(v, Math.abs(v) >= 10 ? Math.abs(v).toFixed(0) : Math.abs(v).toFixed(2));
}
