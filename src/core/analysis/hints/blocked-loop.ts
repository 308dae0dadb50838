// The hint for the user's own synchronous JavaScript holding the event loop: a hot line of their
// code (not a known sync API, which has its rule) on which the loop stalled, or that ran while
// the loop was busy all the time. What it costs per request, that every other request waits for
// it, and the fixes. Its own JavaScript: the line itself at the top of the stack for a good part
// of its time, not a call it makes into Node. The data must carry it: stalls on the line, or a loop busy ≥ 90% of the
// measured window, and a line that is a real share of the busy time; an idle loop gets none.
import { formatPct } from '../../../format.ts';
import type { Hint, LineCost, Stall } from '../model.ts';

/** A line's own share of non-idle CPU from which it can be the loop's blocker. */
export const BLOCKED_MIN_PCT = 10;
/** The loop's busy share (measured window, 0–1) that is evidence on its own. */
export const BUSY_LOOP = 0.9;
/** Stalls a line must have caused to be evidence on their own. */
export const MIN_LINE_STALLS = 2;
/** A line's share of a stall from which it is one of its causes (as analysis/time/stalls.ts counts). */
const CAUSE_SHARE = 0.2;
/**
 * The line's own JavaScript (it at the top of the stack) as a share of its own time, from which
 * the time is its code's and not a call into Node or native code it makes (a hash, a write).
 * A busy-wait calling Date.now() is a third of it; a loop of plain arithmetic nearly all of it.
 */
export const OWN_JS_SHARE = 0.25;
/** Lines named at most: the rest of a hot function is the same advice again. */
const MAX_HINTS = 3;

export interface BlockedLoopInput {
  lines: ReadonlyArray<Pick<LineCost, 'file' | 'line' | 'function' | 'ownMs' | 'ownPct' | 'selfMs' | 'thread'>>;
  /** The profiled window's stalls (report.stalls); empty when the probe was off. */
  stalls: readonly Stall[];
  /** The stall probe's threshold, ms (eventLoop.stalls.thresholdMs). */
  stallThresholdMs?: number;
  /** The event loop's busy share in the measured window (eventLoop.utilization), 0–1. */
  utilization?: number;
  /** Requests served in the profiled window, when the run had a load. */
  requests?: number;
  /** Hints already found: a line with one of its own (a sync API, JSON, a periodic stall) keeps it. */
  hints: readonly Hint[];
}

export const BLOCKED_LOOP_FIX =
  'Do less work per request: a better algorithm or data structure (a Map or Set lookup instead of a nested loop or a search inside a loop), or cache the result when the inputs repeat. Work that must be done can leave the main thread (a worker_threads Worker, or a pool of them), or be cut into chunks that yield to the event loop (`await setImmediate()` between them) so other requests are served in between.';

export function blockedLoopHints(input: BlockedLoopInput): Hint[] {
  const hinted = new Set(input.hints.filter((x) => x.file !== '').map((x) => `${x.file}:${x.line}`));
  const busy = input.utilization !== undefined && input.utilization >= BUSY_LOOP;
  const out: Hint[] = [];
  // One hint per function, on its hottest line: the fixes are the same for its other lines.
  const named = new Set<string>();
  for (const l of [...input.lines].sort((a, b) => b.ownMs - a.ownMs)) {
    if (out.length >= MAX_HINTS || l.ownPct < BLOCKED_MIN_PCT) break;
    if (l.thread !== undefined || hinted.has(`${l.file}:${l.line}`)) continue;
    if (l.selfMs < l.ownMs * OWN_JS_SHARE || named.has(`${l.file}\u0000${l.function}`)) continue;
    const own = input.stalls.filter((s) =>
      s.lines.some((x) => x.file === l.file && x.line === l.line && x.ownMs >= s.durationMs * CAUSE_SHARE),
    );
    if (own.length < MIN_LINE_STALLS && !busy) continue;
    named.add(`${l.file}\u0000${l.function}`);
    out.push({
      rule: 'blocked-loop',
      file: l.file,
      line: l.line,
      api: l.function || '(anonymous)',
      function: l.function,
      totalMs: Math.round(l.ownMs * 10) / 10,
      totalPct: l.ownPct,
      message: message(l, own, input),
      fix: BLOCKED_LOOP_FIX,
    });
  }
  return out;
}

function message(l: BlockedLoopInput['lines'][number], own: readonly Stall[], input: BlockedLoopInput): string {
  const cost =
    input.requests !== undefined && input.requests > 0
      ? `${perRequest(l.ownMs / input.requests)} of CPU per request (${formatPct(l.ownPct)} of non-idle CPU)`
      : `${formatPct(l.ownPct)} of non-idle CPU`;
  const evidence: string[] = [];
  if (own.length > 0) {
    const longest = Math.max(...own.map((s) => s.durationMs));
    const threshold = input.stallThresholdMs !== undefined ? ` of ${input.stallThresholdMs} ms or more` : '';
    evidence.push(
      `the loop stalled ${own.length} time${own.length === 1 ? '' : 's'}${threshold} on this line, the longest ${Math.round(longest)} ms`,
    );
  }
  if (input.utilization !== undefined && input.utilization >= BUSY_LOOP)
    evidence.push(`the event loop was busy ${formatPct(input.utilization * 100)} of the measured time`);
  return `\`${l.function || '(anonymous)'}\` runs synchronous JavaScript of your own for ${cost}, on the main thread: while it runs the event loop serves no other request, so every request waits behind it (${evidence.join('; ')}).`;
}

/** 0.42 ms, 4.8 ms, 31 ms. */
function perRequest(ms: number): string {
  if (ms < 0.995) return `${ms.toFixed(2)} ms`;
  if (ms < 9.95) return `${ms.toFixed(1)} ms`;
  return `${Math.round(ms)} ms`;
}
