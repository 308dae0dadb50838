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
  isRemovedLine,
  readRun,
  readRunSources,
  refusalLine,
  type ReportV1,
  signedPct,
  withSign,
} from '../../core/index.ts';

/** The summary, or undefined when there is no (other, readable) baseline. */
export function againstBaseline(reportFile: string, baselineFile: string | undefined): string | undefined {
  if (!baselineFile || path.resolve(baselineFile) === path.resolve(reportFile)) return undefined;
  let comparison: Comparison;
  let movedTo: string | undefined;
  try {
    const base = readRun(baselineFile);
    const current = readRun(reportFile);
    comparison = compareReports(base.report, current.report, undefined, readRunSources(base.dir, current.dir));
    movedTo = whereWorkWent(base.report, current.report);
  } catch {
    return undefined; // a baseline deleted or damaged since: the report still shows, without deltas
  }
  return summarise(comparison, movedTo);
}

/**
 * Where work the main thread no longer does went, when the current run shows it: threadpool
 * requests its code makes that the baseline did not (a sync hash made async), or more CPU in
 * worker threads or child processes. Undefined when nothing shows it went anywhere.
 */
export function whereWorkWent(
  base: Pick<ReportV1, 'waits' | 'workers' | 'childProcesses'>,
  current: Pick<ReportV1, 'waits' | 'workers' | 'childProcesses'>,
): string | undefined {
  const key = (w: { api: string; file: string; line: number }): string => `${w.api}\u0000${w.file}\u0000${w.line}`;
  const before = new Set((base.waits ?? []).filter((w) => w.target === undefined).map(key));
  // An HTTP call (a target) waits on another process's CPU, not this one's threads.
  const pool = (current.waits ?? [])
    .filter((w) => w.target === undefined && w.count > 0 && !before.has(key(w)))
    .sort((a, b) => b.waitMs.total - a.waitMs.total)[0];
  if (pool) return `the threadpool (${pool.api} at ${path.basename(pool.file)}:${pool.line})`;
  const grew = (b: { nonIdleMs: number } | undefined, c: { nonIdleMs: number } | undefined): boolean =>
    c !== undefined && c.nonIdleMs > (b?.nonIdleMs ?? 0) * MOVED_GROWTH;
  if (grew(base.workers, current.workers)) return 'worker threads';
  if (grew(base.childProcesses, current.childProcesses)) return 'child processes';
  return undefined;
}

/** Off-main CPU this many times the baseline's is work that moved there. */
const MOVED_GROWTH = 1.2;

export function summarise(c: Comparison, movedTo?: string): string {
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
  // A row whose work moved to another function saved nothing: its work is named where it went.
  const worthNaming = (r: CostChange): boolean =>
    r.change < 0 && r.moved === undefined && isChange(r.verdict) && -r.change >= minMs;
  const saving = c.lines.find(worthNaming) ?? c.functions.find(worthNaming);
  if (saving) parts.push(savingText(saving, c, movedTo));
  else {
    const moved = [...c.lines, ...c.functions].find((r) => r.moved?.to && r.moved.base >= minMs);
    if (moved) parts.push(movedWorkText(moved, c));
  }
  // A fix applied whose cost did not move: said, not dropped.
  for (const h of c.keptHints ?? []) parts.push(`${path.basename(h.file)}:${h.line} ${h.message.split(':')[0]}`);
  return `against the baseline ${c.baseId}: ${parts.length > 0 ? parts.join(', ') : 'no change in your code'}.`;
}

/**
 * "checkPassword −40 ms/request", or, when that is more than the app's CPU/request fell, why:
 * the work moved off the main thread (the app's CPU counts every thread, the profile's line the
 * main thread's), or the line's figure was taken with the profiler on and the app's without it.
 */
function savingText(saving: CostChange, c: Comparison, movedTo: string | undefined): string {
  // A line rewritten into another function is named by its place: neither function's name is the
  // saving's (the tsx fix's line went from an orders.map callback to a totals.forEach one).
  const what =
    saving.codeChanged?.baseFunction !== undefined || isRemovedLine(saving)
      ? `${path.basename(saving.file)}:${saving.line} (${isRemovedLine(saving) ? 'removed' : 'rewritten'})`
      : saving.name;
  const named = `${what} ${signed(saving.change)} ${c.unit}`;
  const cpu = c.load?.cpuPerRequestMs;
  if (!cpu || c.unit !== 'ms/request') return named;
  const fell = cpu.base - cpu.current;
  // Beyond the rounding of the two printed figures: a saving the request's CPU carries says no more.
  if (-saving.change <= Math.max(fell, 0) * 1.05 + 0.005) return named;
  const app = fell > 0 ? `fell only ${signedAbs(fell)} ms` : fell < 0 ? `rose ${signedAbs(fell)} ms` : 'did not fall';
  if (movedTo) return `${named} on the main thread, moved to ${movedTo}: the app's CPU/request (all threads) ${app}`;
  // Most of the saving missing from the app's CPU: it went to another thread or process that no
  // figure of these runs names (a run without the wait probe), not away.
  if (fell < -saving.change * MOVED_SHARE)
    return `${named} on the main thread, but the app's CPU/request (all threads) ${app}: the work moved off the main thread (the threadpool, a worker or another process) rather than went away`;
  return `${named} with the profiler on, more than the app's CPU/request fell without it (${withSign(-fell, signedAbs(fell))} ms)`;
}

/**
 * "checkPassword's work (server.js:35) moved to setImmediate callback (server.js:115): 42 → 54
 * ms/request (+29%, worse)": the same work, where it was and where it is, judged as a row.
 */
function movedWorkText(r: CostChange, c: Comparison): string {
  const m = r.moved!;
  const to = m.to!;
  const b = signedAbs(m.base);
  const n = signedAbs(m.current);
  const pct = Number(b) !== 0 ? ((Number(n) - Number(b)) / Number(b)) * 100 : undefined;
  const word = m.verdict === undefined ? '' : m.verdict === 'too short' ? 'too short to tell' : m.verdict;
  const judged = pct !== undefined ? ` (${signedPct(pct, 0)}${word ? `, ${word}` : ''})` : word ? ` (${word})` : '';
  return `${r.name}'s work (${path.basename(r.file)}:${r.line}) moved to ${to.name} (${path.basename(to.file)}:${to.line}): ${b} → ${n} ${c.unit}${judged}`;
}

/** A request's CPU fall below this share of a main-thread saving: the work moved, not went. */
const MOVED_SHARE = 0.5;

function signedAbs(v: number): string {
  return Math.abs(v) >= 10 ? Math.abs(v).toFixed(0) : Math.abs(v).toFixed(2);
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
