// The one line a finished run gets when a baseline is set: did the fix help? Throughput and tail
// latency against the baseline, and the biggest saving among the user's functions. No `vscode`
// import: the text is tested on its own.
import * as path from 'node:path';
import { compareReports, type Comparison, type Delta, readRun } from '../core/index.ts';

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
    parts.push(`p99 ${figure(c.load.latencyMs.p99, 0)} ms`);
  }
  // The function whose own line saved the most: a caller's total holds the same saving and
  // would name the route handler rather than the line that was fixed.
  const line = c.lines.find((l) => l.change < 0);
  const saving = line ?? c.functions.find((f) => f.change < 0);
  if (saving) parts.push(`${saving.name} ${signed(saving.change)} ${c.unit}`);
  return `against the baseline ${c.baseId}: ${parts.length > 0 ? parts.join(', ') : 'no change in your code'}.`;
}

function figure(d: Delta, digits: number): string {
  const pct = d.changePct !== undefined ? ` (${d.changePct > 0 ? '+' : ''}${Math.round(d.changePct)}%)` : '';
  return `${d.base.toFixed(digits)} → ${d.current.toFixed(digits)}${pct}`;
}

function signed(v: number): string {
  const text = Math.abs(v) >= 10 ? Math.abs(v).toFixed(0) : Math.abs(v).toFixed(2);
  return `${v < 0 ? '\u2212' : '+'}${text}`;
}
