// The profile in time, for the sub-second heat map (FlameScope's view): every sample with its
// start, its length, whether it was idle and which line of the user's code owns it (the same
// own-time attribution the report ranks lines by). From it: the heat map grid, the hot lines of
// any time range, and the profile cut to that range. Pure, and free of Node imports: the report
// webview bundles it to re-rank a range without a round trip.
import type { CpuProfile, CpuProfileNode } from '../../profile/cpuprofile.ts';
import { MAX_SAMPLE_WEIGHT } from '../../profile/profile-tree.ts';
import { CATEGORIES, type Category } from '../model.ts';

/** The file name of a run's timeline, beside its report.json. */
export const TIMELINE_FILE = 'timeline.json';

/** timeline.json, written beside report.json. Arrays, not objects per sample: 60 s at 1 kHz is 60 000 samples. */
export interface TimelineV1 {
  version: 1;
  /** µs from the profile's startTime to its first sample. */
  firstUs: number;
  /** µs the samples cover (the last one's end, from startTime). */
  endUs: number;
  intervalUs: number;
  /** Lines of the user's code that own samples. */
  lines: TimelineLine[];
  /** The distinct (category, owner lines) pairs the samples fall into. */
  kinds: TimelineKind[];
  /** Per sample: how long it lasts, µs (until the next sample starts). */
  sampleUs: SampleColumn;
  /** Per sample: index into `kinds`. */
  sampleKind: SampleColumn;
}

/**
 * A per-sample column: an Int32Array as the analysis builds it (millions of samples: 4 bytes
 * each, not a JS array's 8+), a plain array as JSON reads it back (timelineJson writes arrays).
 */
export type SampleColumn = number[] | Int32Array;

/** timeline.json's text: the typed columns written as the JSON arrays readers expect. */
export function timelineJson(t: TimelineV1): string {
  const decoder = new TextDecoder();
  let text = '';
  for (const part of timelineJsonParts(t)) text += typeof part === 'string' ? part : decoder.decode(part);
  return text;
}

/** Samples per part of the text: a few MB each. */
const PART_SAMPLES = 1 << 20;
/** The most characters one int32 and its comma take. */
const MAX_NUMBER_CHARS = 12;

/**
 * timeline.json's text in parts, to write one after the other: a long profile's timeline is more
 * text than one string holds (V8's limit is ~512 MiB; 127 M samples make ~900 MB). The typed
 * columns are written as ASCII bytes straight from their arrays (integers: the same text JSON
 * gives), not first copied into JS arrays or joined into strings (join took 50 ns a number). They
 * are the last keys, so they close the text. A byte part is only valid until the next is asked for.
 */
export function* timelineJsonParts(t: TimelineV1): Generator<string | Uint8Array> {
  const head = typedHead(t);
  if (head === undefined) {
    yield JSON.stringify(t, (_key, value: unknown) => (value instanceof Int32Array ? Array.from(value) : value));
    return;
  }
  const bytes = new Uint8Array(PART_SAMPLES * MAX_NUMBER_CHARS);
  yield `${head}"sampleUs":[`;
  yield* columnParts(t.sampleUs as Int32Array, bytes);
  yield '],"sampleKind":[';
  yield* columnParts(t.sampleKind as Int32Array, bytes);
  yield ']}';
}

/** Whether timelineJson(t) has at most `maxChars` characters, found without making it. */
export function timelineJsonFits(t: TimelineV1, maxChars: number): boolean {
  const head = typedHead(t);
  if (head === undefined) return timelineJson(t).length <= maxChars;
  const fixed = head.length + '"sampleUs":[],"sampleKind":[]}'.length;
  const count = t.sampleUs.length + t.sampleKind.length;
  // Mostly a bound is enough; else the digits are counted.
  if (fixed + count * MAX_NUMBER_CHARS <= maxChars) return true;
  const us = columnLength(t.sampleUs as Int32Array, maxChars - fixed);
  return us >= 0 && columnLength(t.sampleKind as Int32Array, maxChars - fixed - us) >= 0;
}

/**
 * Whether a timeline with these sample durations is surely more JSON than `maxChars`, known
 * before it is built: each sample's kind is one digit at least. Counts the durations' digits only
 * where the plain bound cannot tell (tens of millions of samples), and stops once over.
 */
export function timelineSurelyTooLong(sampleDurationUs: Int32Array | Float64Array, maxChars: number): boolean {
  const count = sampleDurationUs.length;
  if (!(sampleDurationUs instanceof Int32Array) || count === 0) return false;
  const fixed = '{"sampleUs":[],"sampleKind":[]}'.length + count + Math.max(0, count - 1);
  if (fixed + count * MAX_NUMBER_CHARS <= maxChars) return false;
  return columnLength(sampleDurationUs, maxChars - fixed) < 0;
}

/** The text before the columns when both are typed, else undefined (then JSON.stringify writes it all). */
function typedHead(t: TimelineV1): string | undefined {
  if (!(t.sampleUs instanceof Int32Array) || !(t.sampleKind instanceof Int32Array)) return undefined;
  const rest = JSON.stringify({ ...t, sampleUs: [], sampleKind: [] });
  const tail = '"sampleUs":[],"sampleKind":[]}';
  return rest.endsWith(tail) ? rest.slice(0, -tail.length) : undefined;
}

const COMMA_BYTE = 0x2c;
const MINUS_BYTE = 0x2d;
const ZERO_BYTE = 0x30;
/** "00" to "99" as ASCII bytes, two a number. */
const DIGIT_PAIRS = Uint8Array.from({ length: 200 }, (_, i) =>
  i % 2 === 0 ? ZERO_BYTE + Math.floor(i / 20) : ZERO_BYTE + ((i >> 1) % 10),
);

/** The column's numbers joined by commas, as ASCII, PART_SAMPLES numbers a part (views of `bytes`). */
function* columnParts(column: Int32Array, bytes: Uint8Array): Generator<Uint8Array> {
  for (let from = 0; from < column.length; from += PART_SAMPLES) {
    const to = Math.min(column.length, from + PART_SAMPLES);
    let p = 0;
    for (let s = from; s < to; s++) {
      if (s > 0) bytes[p++] = COMMA_BYTE;
      let v = column[s];
      if (v < 0) {
        bytes[p++] = MINUS_BYTE;
        if (v === -2147483648) {
          // Its magnitude is no int32: the digits of 2^31, written out.
          for (const c of '2147483648') bytes[p++] = c.charCodeAt(0);
          continue;
        }
        v = -v;
      }
      // Two digits a step from a table, int32 arithmetic (V8 divides by a constant with a multiply).
      const end = p + digitsOf(v);
      let q = end;
      while (v >= 100) {
        const rest = (v / 100) | 0;
        const pair = (v - rest * 100) << 1;
        bytes[--q] = DIGIT_PAIRS[pair + 1];
        bytes[--q] = DIGIT_PAIRS[pair];
        v = rest;
      }
      if (v >= 10) {
        bytes[--q] = DIGIT_PAIRS[(v << 1) + 1];
        bytes[--q] = DIGIT_PAIRS[v << 1];
      } else bytes[--q] = ZERO_BYTE + v;
      p = end;
    }
    yield bytes.subarray(0, p);
  }
}

/** Characters of the column joined by commas, or -1 once they are more than `budget`. */
function columnLength(column: Int32Array, budget = Infinity): number {
  let chars = Math.max(0, column.length - 1);
  for (let s = 0; s < column.length; s++) {
    const v = column[s];
    chars += v < 0 ? 1 + digitsOf(-v) : digitsOf(v);
    // Past the budget the rest need not be counted (a 2 GB profile's columns: a second saved).
    if ((s & 0xffff) === 0 && chars > budget) return -1;
  }
  return chars > budget ? -1 : chars;
}

/** Decimal digits of a non-negative integer up to 2^31. */
function digitsOf(v: number): number {
  if (v < 10000) return v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : 4;
  if (v < 100000000) return v < 100000 ? 5 : v < 1000000 ? 6 : v < 10000000 ? 7 : 8;
  return v < 1000000000 ? 9 : 10;
}

export interface TimelineLine {
  file: string;
  line: number;
  function: string;
}

export interface TimelineKind {
  category: Category;
  /** [index into `lines`, share of the sample]; the shares add up to 1, or the list is empty. */
  owners: Array<[number, number]>;
}

/** What the analysis knows of a profile node, for the timeline (see analysis/analyze.ts). */
export interface NodeAttribution {
  category: Category;
  owners: ReadonlyArray<{ line: TimelineLine; frac: number }>;
}

/**
 * The timeline of a profile's samples. `sampleNode`/`sampleDurationUs`/`firstSampleUs` come from
 * the profile tree (profile/profile-tree.ts); `attribution(node)` from the analysis. Undefined for profiles
 * without a sample array (hit counts only): they have no order in time. With `reuseSampleNode`
 * (the tree is not used after) the kinds are written over `sampleNode`, not into a new array.
 */
export function buildTimeline(
  tree: {
    sampleNode: Int32Array;
    sampleDurationUs: Int32Array | Float64Array;
    firstSampleUs: number;
    intervalUs: number;
    /** Per node (the tree's): its length bounds the node indices, without a pass over the samples. */
    parent?: Int32Array;
  },
  hasSamples: boolean,
  attribution: (node: number) => NodeAttribution,
  opts: { reuseSampleNode?: boolean } = {},
): TimelineV1 | undefined {
  const count = tree.sampleNode.length;
  if (!hasSamples || count === 0) return undefined;
  const lines: TimelineLine[] = [];
  const lineIndex = new Map<string, number>();
  const kinds: TimelineKind[] = [];
  const kindIndex = new Map<string, number>();
  // Per node index: its kind + 1, 0 until met (a typed array, not a Map: one look-up per sample).
  const kindOfNode = new Int32Array(tree.parent?.length ?? maxOf(tree.sampleNode) + 1);
  const sampleKind = opts.reuseSampleNode === true ? tree.sampleNode : new Int32Array(count);
  for (let s = 0; s < count; s++) {
    const node = tree.sampleNode[s];
    let k = node >= 0 ? kindOfNode[node] - 1 : -1;
    if (k < 0) {
      k = kindOf(attribution(node), lines, lineIndex, kinds, kindIndex);
      if (node >= 0) kindOfNode[node] = k + 1;
    }
    sampleKind[s] = k;
  }
  const sampleUs = wholeMicroseconds(tree.sampleDurationUs);
  const firstUs = Math.round(tree.firstSampleUs);
  let endUs = firstUs;
  for (let s = 0; s < count; s++) endUs += sampleUs[s];
  return { version: 1, firstUs, endUs, intervalUs: Math.round(tree.intervalUs), lines, kinds, sampleUs, sampleKind };
}

/** The durations rounded to whole µs: the tree's own array when they already are (V8's are), no copy. */
function wholeMicroseconds(durations: Int32Array | Float64Array): SampleColumn {
  if (durations instanceof Int32Array) return durations;
  const out = new Int32Array(durations.length);
  for (let s = 0; s < durations.length; s++) {
    const us = Math.round(durations[s]);
    // A duration past 32 bits (a hand-made profile) keeps a plain array: exact, as before.
    if ((us | 0) !== us) return Array.from(durations, (d) => Math.round(d));
    out[s] = us;
  }
  return out;
}

/** The index in `kinds` of a node's (category, owner lines), added when new. */
function kindOf(
  a: NodeAttribution,
  lines: TimelineLine[],
  lineIndex: Map<string, number>,
  kinds: TimelineKind[],
  kindIndex: Map<string, number>,
): number {
  const owners: Array<[number, number]> = a.owners
    .filter((o) => o.frac > 0)
    .map((o) => {
      const key = `${o.line.file}\u0000${o.line.line}\u0000${o.line.function}`;
      let li = lineIndex.get(key);
      if (li === undefined) {
        li = lines.length;
        lineIndex.set(key, li);
        lines.push({ file: o.line.file, line: o.line.line, function: o.line.function });
      }
      return [li, o.frac];
    });
  const key = `${a.category}|${owners.map(([l, f]) => `${l}:${f}`).join(',')}`;
  let known = kindIndex.get(key);
  if (known === undefined) {
    known = kinds.length;
    kindIndex.set(key, known);
    kinds.push({ category: a.category, owners });
  }
  return known;
}

function maxOf(values: Int32Array): number {
  let max = 0;
  for (let i = 0; i < values.length; i++) if (values[i] > max) max = values[i];
  return max;
}

// ---- reading a timeline -------------------------------------------------------------------------

/** Sample start times, µs from the profile's startTime. */
export function sampleStarts(t: TimelineV1): Float64Array {
  const starts = new Float64Array(t.sampleUs.length);
  let at = t.firstUs;
  for (let s = 0; s < starts.length; s++) {
    starts[s] = at;
    at += t.sampleUs[s];
  }
  return starts;
}

export interface HeatMap {
  /** Whole or partial seconds of the profile, left to right. */
  columns: number;
  /** Sub-second buckets per second, top (0 ms) to bottom. */
  rows: number;
  rowMs: number;
  /** Per cell (column-major: column × rows + row): samples, and the non-idle ones among them. */
  samples: Int32Array;
  nonIdle: Int32Array;
  /** The largest non-idle count of a cell: the colour scale's top. */
  maxNonIdle: number;
}

const IDLE = CATEGORIES.indexOf('idle');

/** Samples per (second, sub-second bucket) by their start time. `rowsPerSecond` must divide 1000 ms into whole µs. */
export function heatMap(t: TimelineV1, rowsPerSecond = 50, starts = sampleStarts(t)): HeatMap {
  if (!Number.isInteger(rowsPerSecond) || rowsPerSecond < 1 || rowsPerSecond > 1000)
    throw new RangeError(`rowsPerSecond must be an integer 1–1000 (got ${rowsPerSecond})`);
  const rowUs = 1e6 / rowsPerSecond;
  const columns = Math.max(1, Math.ceil(t.endUs / 1e6));
  const samples = new Int32Array(columns * rowsPerSecond);
  const nonIdle = new Int32Array(columns * rowsPerSecond);
  const idleKind = t.kinds.map((k) => CATEGORIES.indexOf(k.category) === IDLE);
  for (let s = 0; s < starts.length; s++) {
    const col = Math.min(columns - 1, Math.floor(starts[s] / 1e6));
    const row = Math.min(rowsPerSecond - 1, Math.floor((starts[s] - col * 1e6) / rowUs));
    const cell = col * rowsPerSecond + row;
    samples[cell]++;
    if (!idleKind[t.sampleKind[s]]) nonIdle[cell]++;
  }
  let maxNonIdle = 0;
  for (let i = 0; i < nonIdle.length; i++) if (nonIdle[i] > maxNonIdle) maxNonIdle = nonIdle[i];
  return { columns, rows: rowsPerSecond, rowMs: 1000 / rowsPerSecond, samples, nonIdle, maxNonIdle };
}

/** A cell's time range in ms from the profile's start. */
export function cellRangeMs(
  map: Pick<HeatMap, 'rows' | 'rowMs'>,
  column: number,
  row: number,
): { startMs: number; endMs: number } {
  const startMs = column * 1000 + row * map.rowMs;
  return { startMs, endMs: startMs + map.rowMs };
}

export interface RangeLine extends TimelineLine {
  ownMs: number;
  /** Of the non-idle time in the range. */
  ownPct: number;
}

export interface RangeRanking {
  startMs: number;
  endMs: number;
  samples: number;
  nonIdleMs: number;
  /** By own time, highest first. */
  lines: RangeLine[];
}

const round2 = (v: number): number => Math.round(v * 100) / 100;

/** The hot lines of the samples that start in [startMs, endMs): own time, as report.json ranks lines. */
export function rankRange(
  t: TimelineV1,
  startMs: number,
  endMs: number,
  opts: { limit?: number; starts?: Float64Array } = {},
): RangeRanking {
  const starts = opts.starts ?? sampleStarts(t);
  const from = startMs * 1000;
  const to = endMs * 1000;
  const own = new Float64Array(t.lines.length);
  const idleKind = t.kinds.map((k) => k.category === 'idle');
  const capUs = t.intervalUs > 0 ? MAX_SAMPLE_WEIGHT * t.intervalUs : Infinity;
  let nonIdleUs = 0;
  let samples = 0;
  for (let s = lowerBound(starts, from); s < starts.length && starts[s] < to; s++) {
    samples++;
    const kind = t.sampleKind[s];
    if (idleKind[kind]) continue;
    // Weighted as the report weighs samples (profile/profile-tree.ts, MAX_SAMPLE_WEIGHT): a gap the thread did not run is nobody's.
    const us = Math.min(t.sampleUs[s], capUs);
    nonIdleUs += us;
    for (const [line, frac] of t.kinds[kind].owners) own[line] += us * frac;
  }
  const order: number[] = [];
  for (let i = 0; i < own.length; i++) if (own[i] > 0) order.push(i);
  order.sort((a, b) => own[b] - own[a]);
  const lines = order.slice(0, opts.limit ?? 50).map((i) => ({
    ...t.lines[i],
    ownMs: round2(own[i] / 1000),
    ownPct: nonIdleUs > 0 ? round2((own[i] / nonIdleUs) * 100) : 0,
  }));
  return { startMs, endMs, samples, nonIdleMs: round2(nonIdleUs / 1000), lines };
}

function lowerBound(sorted: Float64Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// ---- cutting the profile -----------------------------------------------------------------------

/**
 * The profile of the samples that start in [startMs, endMs) (ms from its startTime), for the
 * flame graph of a range. Only the nodes on those samples' stacks are kept, with their hit
 * counts in the range. Position ticks are left out: V8 counts them over the whole profile, and a
 * share of them would put time on lines it cannot vouch for. The input is not changed.
 */
export function cutProfile(profile: CpuProfile, startMs: number, endMs: number): CpuProfile {
  const from = Math.round(startMs * 1000);
  const to = Math.round(endMs * 1000);
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  const hits = new Map<number, number>();
  let at = 0;
  let last = from;
  const all = profile.samples ?? [];
  for (let s = 0; s < all.length; s++) {
    at += Math.max(0, profile.timeDeltas?.[s] ?? 0);
    if (at < from) continue;
    if (at >= to) break;
    samples.push(all[s]);
    timeDeltas.push(at - last);
    last = at;
    hits.set(all[s], (hits.get(all[s]) ?? 0) + 1);
  }
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const keep = new Set<number>();
  const root = profile.nodes.find((n) => !parentOf.has(n.id));
  if (root) keep.add(root.id);
  for (const id of hits.keys()) {
    for (let n: number | undefined = id; n !== undefined && !keep.has(n); n = parentOf.get(n)) keep.add(n);
  }
  const nodes: CpuProfileNode[] = [];
  for (const n of profile.nodes) {
    if (!keep.has(n.id)) continue;
    const children = (n.children ?? []).filter((c) => keep.has(c) && byId.has(c));
    nodes.push({
      id: n.id,
      callFrame: { ...n.callFrame },
      hitCount: hits.get(n.id) ?? 0,
      ...(children.length > 0 ? { children } : {}),
    });
  }
  const startTime = profile.startTime + from;
  const endTime = Math.max(startTime, Math.min(profile.startTime + to, profile.endTime));
  return { nodes, startTime, endTime, samples, timeDeltas };
}
