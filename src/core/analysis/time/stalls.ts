// Event-loop stalls on the lines that caused them. The stall probe measured each gap its 10 ms
// timer could not run in (the loop was blocked); the profile's samples in that gap refine its
// start (the loop was still idle before its last idle sample) and name the lines of the user's
// code that ran in it (own time, as report.json ranks lines). Pure, no Node imports.
import { CATEGORIES, type Hint, type Stall, type StallSummary } from '../model.ts';
import { rankRange, sampleStarts, type TimelineV1 } from './timeline.ts';

/** A stall with when it began on the app's own clock (ms): the profile's timeline leaves out the pauses between profiled sub-windows, the app's clock does not. */
export type TimedStall = Stall & { appStartMs: number };

/** The share of a stall the profile must see busy for it to be the app's doing. */
const MIN_SAMPLED_SHARE = 0.5;
/** Lines kept per stall. */
const STALL_LINES = 5;
const IDLE = CATEGORIES.indexOf('idle');
const round1 = (v: number): number => Math.round(v * 10) / 10;

/**
 * The stalls of at least `thresholdMs` among the measured gaps ([from, to] µs on the timeline,
 * appFrom µs on the app's clock), in time order. Without a timeline (a profile with no sample
 * order) the gaps are the stalls, with no lines. Gaps in which the profiler saw the thread
 * busy less than half the time are counted in `offCpu`, not listed.
 */
export function findStalls(
  gaps: ReadonlyArray<readonly [number, number, number]>,
  thresholdMs: number,
  timeline: TimelineV1 | undefined,
  offCpu: { count: number } = { count: 0 },
): TimedStall[] {
  const starts = timeline ? sampleStarts(timeline) : undefined;
  const idleKind = timeline?.kinds.map((k) => CATEGORIES.indexOf(k.category) === IDLE);
  const stalls: TimedStall[] = [];
  for (const [from, to, appFrom] of [...gaps].sort((a, b) => a[0] - b[0])) {
    const start = timeline && starts && idleKind ? busiestStretch(timeline, starts, idleKind, from, to) : from;
    const durationMs = (to - start) / 1000;
    if (durationMs < thresholdMs) continue;
    const ranked =
      timeline && starts ? rankRange(timeline, start / 1000, to / 1000, { limit: STALL_LINES, starts }) : undefined;
    // The profiler saw the thread busy for less than half of it: the app was mostly not running
    // (the machine gave its core to another process), which no line of its code caused.
    if (ranked && ranked.nonIdleMs < durationMs * MIN_SAMPLED_SHARE) {
      offCpu.count++;
      continue;
    }
    const lines = (ranked?.lines ?? []).map((l) => ({
      file: l.file,
      line: l.line,
      function: l.function,
      ownMs: l.ownMs,
    }));
    stalls.push({
      startMs: round1(start / 1000),
      durationMs: round1(durationMs),
      lines,
      appStartMs: (appFrom + start - from) / 1000,
    });
  }
  return stalls;
}

export function summarizeStalls(stalls: readonly Stall[], thresholdMs: number): StallSummary {
  return {
    thresholdMs,
    count: stalls.length,
    maxMs: stalls.reduce((m, s) => Math.max(m, s.durationMs), 0),
    totalMs: round1(stalls.reduce((t, s) => t + s.durationMs, 0)),
  };
}

/** Per line of code: the stalls it took part in (at least a fifth of the stall's time on it) and the longest. */
export interface LineStalls {
  file: string;
  line: number;
  function: string;
  count: number;
  maxMs: number;
}

/** A line's share of a stall from which it counts as one of the stall's causes. */
const CAUSE_SHARE = 0.2;

export function stallsByLine(stalls: readonly Stall[]): LineStalls[] {
  const byLine = new Map<string, LineStalls>();
  for (const s of stalls) {
    for (const l of s.lines) {
      if (l.ownMs < s.durationMs * CAUSE_SHARE) continue;
      const key = `${l.file}\u0000${l.line}`;
      const known = byLine.get(key);
      if (known) {
        known.count++;
        known.maxMs = Math.max(known.maxMs, s.durationMs);
      } else byLine.set(key, { file: l.file, line: l.line, function: l.function, count: 1, maxMs: s.durationMs });
    }
  }
  return [...byLine.values()].sort((a, b) => b.count - a.count || b.maxMs - a.maxMs);
}

/** Stalls this many or more, most of them this regular, on one line, make a periodic one. */
const PERIODIC_MIN_STALLS = 3;
const PERIOD_TOLERANCE = 0.15;
const REGULAR_SHARE = 2 / 3;
/**
 * A periodic job leaves the loop free between its runs: stalls that fill most of their period
 * are one request after another blocking it (a saturated server doing synchronous work per
 * request: 69 ms stalls every 69 ms), which the per-request hints name, not a timer.
 */
const MAX_PERIODIC_DUTY = 0.5;

export interface PeriodicStall extends LineStalls {
  /** The typical time from one stall's start to the next one's, ms. */
  periodMs: number;
  /** The typical stall's length, ms. */
  typicalMs: number;
}

/**
 * Stalls of one line that recur at a steady period: a timer or a periodic job doing synchronous
 * work. The period is the typical short interval between the line's consecutive stalls on the
 * app's clock; most (two thirds) of the intervals must be within 15% of a whole number of periods
 * (a stall may fall in a measured sub-window, where nothing is listed).
 */
export function periodicStall(stalls: readonly TimedStall[]): PeriodicStall | undefined {
  const top = stallsByLine(stalls)[0];
  if (!top || top.count < PERIODIC_MIN_STALLS) return undefined;
  const own = stalls.filter((s) =>
    s.lines.some((l) => l.file === top.file && l.line === top.line && l.ownMs >= s.durationMs * CAUSE_SHARE),
  );
  const intervals = own.slice(1).map((s, i) => s.appStartMs - own[i].appStartMs);
  const shortest = Math.min(...intervals);
  const periodMs = median(intervals.filter((d) => d <= shortest * 1.5));
  if (!(periodMs > 0)) return undefined;
  const regular = intervals.filter((d) => {
    const k = Math.round(d / periodMs);
    return k >= 1 && Math.abs(d - k * periodMs) <= periodMs * PERIOD_TOLERANCE;
  }).length;
  if (regular < Math.max(2, intervals.length * REGULAR_SHARE)) return undefined;
  const typicalMs = median(own.map((s) => s.durationMs));
  if (typicalMs > periodMs * MAX_PERIODIC_DUTY) return undefined;
  return { ...top, periodMs: Math.round(periodMs), typicalMs: Math.round(typicalMs) };
}

/** The hint for a periodic stall, ranked like the other hints by its share of the profile's busy time. */
export function periodicStallHint(p: PeriodicStall, stalls: readonly Stall[], nonIdleMs: number): Hint {
  const totalMs = round1(
    stalls.reduce((t, s) => t + (s.lines.find((l) => l.file === p.file && l.line === p.line)?.ownMs ?? 0), 0),
  );
  const every = p.periodMs >= 1000 ? `${(p.periodMs / 1000).toFixed(1)} s` : `${p.periodMs} ms`;
  return {
    rule: 'periodic-stall',
    file: p.file,
    line: p.line,
    api: p.function,
    function: p.function,
    totalMs,
    totalPct: nonIdleMs > 0 ? round1((totalMs / nonIdleMs) * 100) : 0,
    message: `The event loop stalls about every ${every} for about ${p.typicalMs} ms in ${p.function} (${p.count} stalls, longest ${Math.round(p.maxMs)} ms): a timer or periodic job doing synchronous work. Every request that arrives meanwhile waits for it.`,
    fix: 'Move the periodic work off the main thread (a worker_threads Worker), or cut it into chunks that yield between them (await setImmediate()) so requests are served in between.',
  };
}

/**
 * Where the stall in the gap [from, to] began: the start of the longest run of consecutive
 * non-idle samples in it (the loop was not blocked while the profiler saw it idle). Its end is
 * the gap's: the timer ran as soon as the loop was free. No samples in the gap: its start.
 */
function busiestStretch(
  t: TimelineV1,
  starts: Float64Array,
  idleKind: readonly boolean[],
  from: number,
  to: number,
): number {
  let best = from;
  let bestUs = -1;
  let runStart: number | undefined;
  const first = upperBound(starts, from) - 1;
  for (let s = Math.max(0, first); s < starts.length && starts[s] < to; s++) {
    const idle = idleKind[t.sampleKind[s]];
    if (idle) {
      runStart = undefined;
      continue;
    }
    runStart ??= Math.max(from, starts[s]);
    const runUs = Math.min(to, starts[s] + t.sampleUs[s]) - runStart;
    if (runUs > bestUs) {
      bestUs = runUs;
      best = runStart;
    }
  }
  return best;
}

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The first index whose value is above `value`. */
function upperBound(sorted: Float64Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
