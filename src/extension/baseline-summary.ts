// The one line a finished run gets when a baseline is set: did the fix help? Throughput and tail
// latency against the baseline, and the biggest saving among the user's functions. No `vscode`
// import: the text is tested on its own.
import * as path from 'node:path';
import { compareReports, type Comparison, type Delta, readRun, signedPct, withSign } from '../core/index.ts';

/** The summary, or undefined when there is no (other, readable) baseline. */
export function againstBaseline(reportFile: string, baselineFile: string | undefined): string | undefined {
  if (!baselineFile || path.resolve(baselineFile) === path.resolve(reportFile)) return undefined;
  let comparison: Comparison;
  try {
    comparison = compareReports(readRun(baselineFile).report, readRun(reportFile).report);
  } catch {
    return undefined; // a baseline deleted or damaged since: the report still shows, without deltas
  }
  return summarise(comparison);
}

export function summarise(c: Comparison): string {
  const parts: string[] = [];
  if (c.load) {
    parts.push(`req/s ${figure(c.load.requestsPerSecond, 1)}`);
    parts.push(`p99 ${figure(c.load.latencyMs.p99, 0, ' ms')}`);
    if (c.load.cpuPerRequestMs) parts.push(`CPU/request ${figure(c.load.cpuPerRequestMs, 3, ' ms')}`);
  }
  // The function whose own line saved the most (beyond the noise): a caller's total holds the
  // same saving and would name the route handler rather than the line that was fixed.
  const line = c.lines.find((l) => l.change < 0 && l.verdict !== 'within noise');
  const saving = line ?? c.functions.find((f) => f.change < 0 && f.verdict !== 'within noise');
  if (saving) parts.push(`${saving.name} ${signed(saving.change)} ${c.unit}`);
  return `against the baseline ${c.baseId}: ${parts.length > 0 ? parts.join(', ') : 'no change in your code'}.`;
}

/** "8.5 → 5.8 (−32%, worse)" or "(+2%, within noise)"; no verdict for runs without sub-windows. */
function figure(d: Delta, digits: number, unit = ''): string {
  const pct = d.noise ? d.noise.changePct : d.changePct;
  const verdict = d.noise ? `, ${d.noise.verdict}` : '';
  const change = pct !== undefined ? ` (${signedPct(pct, 0)}${verdict})` : '';
  return `${d.base.toFixed(digits)}${unit} → ${d.current.toFixed(digits)}${unit}${change}`;
}

function signed(v: number): string {
  return withSign(v, Math.abs(v) >= 10 ? Math.abs(v).toFixed(0) : Math.abs(v).toFixed(2));
}
