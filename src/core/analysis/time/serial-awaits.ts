// Two waits of one request made one after another when they could have run together: the
// `serial-awaits` hint. What is measured is the order of the calls (the wait probe's records:
// when each call was made and when its answer came); whether the second needed the first's result
// is read from the source by the caller (attribution/await-dependence.ts) and passed in. Pure.
//
// Many requests run at once, so a call of line B made right after some call of line A ended may
// be chance (another request's A). Each test is therefore corrected for chance: the share of B's
// calls with an A call ending in the `gap` before them (serial) or made within half a millisecond
// of them (together, as Promise.all makes them) is compared with the same share in windows of the same
// width shifted away from B's calls, where only chance puts an A call. With S the share seen and C
// the chance share, the part of B's calls that really follow an A call is (S − C) / (1 − C).
import type { Hint, ThreadpoolWait } from '../model.ts';
import { apiOfType, type WaitTraceInput } from './threadpool-waits.ts';

/** Calls per request a line must make (about one) to be paired with another line's. */
const PER_REQUEST = { min: 0.8, max: 1.25 };
/** Calls of each line needed to tell. */
const MIN_CALLS = 20;
/**
 * Widths of the window after A's answer tried, µs: B's write follows A's first data by the rest of
 * A's answer, the driver's parse, the continuation and B's driver (measured on pg then mysql2:
 * p50 0.4–0.8 ms, p90 1.1–1.7 ms); a narrower one when many calls run at once.
 */
const GAPS_US = [5000, 2000, 1000, 500, 250];
/**
 * Made together, µs either side: Promise.all makes its calls in one tick (measured: 83% of
 * mysql2's within 100 µs of pg's, 99% within 500 µs), while requests in step with each other
 * make unrelated calls a turnaround apart (15% within 500 µs, 56% within 2 ms, at 32 connections).
 */
const TOGETHER_US = 500;
/** Shifts of the chance windows, in widths of the window, on both sides. */
const CHANCE_SHIFTS = [3, 4, 5, 6, 7];
/** A chance share above this leaves nothing to tell apart at that width. */
const MAX_CHANCE = 0.75;
/** B's calls that must follow an A call (chance removed)… */
const SERIAL_SHARE = 0.8;
/** …and that may be made together with one. */
const TOGETHER_SHARE = 0.2;
/** The pair's waits must be this share of the request's latency to be worth a hint. */
const LATENCY_SHARE = 0.2;

/** What the order of two lines' calls says (figures for the hint and the tests). */
export interface SerialEvidence {
  gapUs: number;
  /** Share of B's calls with an A call ending in the gap before them, chance removed. */
  serial: number;
  /** Share of B's calls made within TOGETHER_US of an A call, chance removed. */
  together: number;
  /** The chance shares the two were corrected for. */
  chance: { serial: number; together: number };
}

/** Sorted times of one line's calls: when made and when answered (µs). */
interface Calls {
  made: number[];
  done: number[];
}

/** Share of `at` with a time of sorted `times` in [t + lo, t + hi]. */
function shareWith(times: readonly number[], at: readonly number[], lo: number, hi: number): number {
  let hits = 0;
  for (const t of at) {
    const i = lowerBound(times, t + lo);
    if (i < times.length && times[i] <= t + hi) hits++;
  }
  return at.length > 0 ? hits / at.length : 0;
}

function lowerBound(a: readonly number[], v: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The share seen, with the chance share (the same window shifted both ways) removed. */
function corrected(times: readonly number[], at: readonly number[], lo: number, hi: number, width: number) {
  const seen = shareWith(times, at, lo, hi);
  const shifted = CHANCE_SHIFTS.flatMap((k) => [
    shareWith(times, at, lo - k * width, hi - k * width),
    shareWith(times, at, lo + k * width, hi + k * width),
  ]);
  const chance = shifted.reduce((t, s) => t + s, 0) / shifted.length;
  return { share: chance < 1 ? Math.max(0, (seen - chance) / (1 - chance)) : 0, chance };
}

/**
 * Whether B's calls (made at `b`) follow A's (`a`) one after another, and not together: of the
 * window widths whose chance share is low enough to tell, the one that shows the most B calls
 * following an A call.
 */
export function serialEvidence(a: Calls, b: Calls): SerialEvidence | undefined {
  const together = corrected(a.made, b.made, -TOGETHER_US, TOGETHER_US, 2 * TOGETHER_US);
  let best: SerialEvidence | undefined;
  for (const gap of GAPS_US) {
    const serial = corrected(a.done, b.made, -gap, 0, gap);
    if (serial.chance > MAX_CHANCE || (best && best.serial >= serial.share)) continue;
    best = {
      gapUs: gap,
      serial: serial.share,
      together: together.share,
      chance: { serial: serial.chance, together: together.chance },
    };
  }
  return best;
}

const keyOf = (file: string, line: number, api: string): string => `${file}\u0000${line}\u0000${api}`;

/** Each outgoing line's calls from the probe's records, keyed as its wait row. */
function callsByLine(trace: WaitTraceInput): Map<string, Calls> {
  const out = new Map<string, Calls>();
  for (const [site, type, made, done] of trace.requests) {
    if (site < 0) continue;
    const [file, line] = trace.sites[site];
    const key = keyOf(file, line, apiOfType(trace.types[type]));
    let c = out.get(key);
    if (!c) out.set(key, (c = { made: [], done: [] }));
    c.made.push(made);
    c.done.push(done);
  }
  for (const c of out.values()) {
    c.made.sort((x, y) => x - y);
    c.done.sort((x, y) => x - y);
  }
  return out;
}

/** Mean wait of a line's calls times its calls per request, ms. */
const perRequestMs = (w: ThreadpoolWait): number => (w.count > 0 ? (w.waitMs.total / w.count) * w.perRequest : 0);

/**
 * The `serial-awaits` hints: pairs of lines in one function, each waiting on an outgoing call
 * (HTTP or a data store) about once per request, whose calls the probe saw made one after the
 * other and never together, that `independent` (the source) says do not depend on each other, and
 * whose waits are at least a fifth of the request's latency (`latencyMs`: the profiled p50). On
 * the second line.
 */
export function serialAwaitsHints(
  trace: WaitTraceInput,
  waits: readonly ThreadpoolWait[],
  latencyMs: number | undefined,
  nonIdleMs: number,
  independent: (a: ThreadpoolWait, b: ThreadpoolWait) => boolean,
): Hint[] {
  if (!latencyMs || latencyMs <= 0) return [];
  const lines = waits.filter(
    (w) =>
      w.target !== undefined &&
      w.count >= MIN_CALLS &&
      w.perRequest >= PER_REQUEST.min &&
      w.perRequest <= PER_REQUEST.max,
  );
  if (lines.length < 2) return [];
  const calls = callsByLine(trace);
  const best = new Map<ThreadpoolWait, { a: ThreadpoolWait; e: SerialEvidence }>();
  for (const a of lines)
    for (const b of lines) {
      if (a === b || a.file !== b.file || a.line === b.line || a.function !== b.function) continue;
      const ms = perRequestMs(a) + perRequestMs(b);
      if (ms < latencyMs * LATENCY_SHARE) continue;
      const ca = calls.get(keyOf(a.file, a.line, a.api));
      const cb = calls.get(keyOf(b.file, b.line, b.api));
      if (!ca || !cb) continue;
      const e = serialEvidence(ca, cb);
      if (!e || e.serial < SERIAL_SHARE || e.together > TOGETHER_SHARE) continue;
      const prev = best.get(b);
      if (prev && prev.e.serial >= e.serial) continue;
      if (!independent(a, b)) continue;
      best.set(b, { a, e });
    }
  return [...best].map(([b, { a, e }]) => serialHint(a, b, e, latencyMs, nonIdleMs));
}

function serialHint(
  a: ThreadpoolWait,
  b: ThreadpoolWait,
  e: SerialEvidence,
  latencyMs: number,
  nonIdleMs: number,
): Hint {
  const aMs = perRequestMs(a);
  const bMs = perRequestMs(b);
  const share = Math.min(100, Math.round(((aMs + bMs) / latencyMs) * 100));
  const where = (w: ThreadpoolWait): string => `${baseName(w.file)}:${w.line}`;
  const what = (w: ThreadpoolWait): string => `${w.api}${w.target ? ` ${w.target}` : ''}`;
  const followed = Math.round(e.serial * 100);
  // What waiting together would save over the run: the shorter of the two waits, per call.
  const saved = Math.min(a.waitMs.total, b.waitMs.total);
  return {
    rule: 'serial-awaits',
    file: b.file,
    line: b.line,
    api: b.api,
    function: b.function,
    totalMs: round2(saved),
    totalPct: nonIdleMs > 0 ? round2((saved / nonIdleMs) * 100) : 0,
    message: `Two independent waits, ${fmtMs(aMs)} on ${where(a)} (${what(a)}) and ${fmtMs(bMs)} on ${where(b)} (${what(b)}), one after another: ${fmtMs(aMs + bMs)} per request, ${share}% of its ${fmtMs(latencyMs)} (p50); run together they would take about ${fmtMs(Math.max(aMs, bMs))}. Measured: ${followed}% of this line's calls were made within ${fmtGap(e.gapUs)} of line ${a.line}'s answer, not alongside it; that this line does not use line ${a.line}'s result is read from the source.`,
    fix: `Start both before awaiting either: \`const [x, y] = await Promise.all([callA(), callB()])\` (over a pool, each gets its own connection), or send them together in one round trip (a pipeline, one statement). Keep them in order if the second must see what the first changed (a write, then a read of it).`,
  };
}

const baseName = (file: string): string => file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);
const round2 = (v: number): number => Math.round(v * 100) / 100;
const fmtMs = (v: number): string => (v >= 10 ? `${Math.round(v)} ms` : `${v.toFixed(1)} ms`);
const fmtGap = (us: number): string => (us >= 1000 ? `${us / 1000} ms` : `${us} µs`);
