// A checked CpuProfile → a flat, index-based, read-only tree built in one pass: parent links,
// a pre-order, self and subtree time per node, and the sample timeline. Everything after this
// works on indices, never on the V8 objects.
import { nodeIndexOf, type CallFrame, type CpuProfile, type PositionTick } from './cpuprofile.ts';
import { shiftedWithLast } from './spare-slot.ts';

/**
 * How many sampling intervals one sample may stand for. A longer gap before the next sample is
 * time the app's thread did not run (descheduled on a busy machine: V8's sampler signals the
 * thread, which answers once it runs again), so it is no cost of the stack sampled before it.
 */
export const MAX_SAMPLE_WEIGHT = 2;

export interface Frame {
  functionName: string;
  url: string;
  /** 0-based as V8 gives it; -1 when unknown. */
  line0: number;
  col0: number;
}

export interface ProfileTree {
  /** Distinct call frames (V8 can repeat one frame under several script ids). */
  readonly frames: readonly Frame[];
  /** Per node: index into `frames`. */
  readonly nodeFrame: Int32Array;
  /** Per node: parent node index, -1 for the root. */
  readonly parent: Int32Array;
  /**
   * Per node: its children, in the profile's order, at childList[childFrom[i] .. childFrom[i + 1]):
   * two arrays for all nodes, not one array per node (millions of objects in a big profile).
   */
  readonly childFrom: Int32Array;
  readonly childList: Int32Array;
  /** Node indices, every parent before its children. */
  readonly preorder: Int32Array;
  readonly positionTicks: readonly (readonly PositionTick[] | undefined)[];
  /** Per node: µs of samples whose top frame is this node. */
  readonly selfUs: Float64Array;
  /** Per node: µs of samples in its subtree. */
  readonly subtreeUs: Float64Array;
  readonly root: number;
  /**
   * Per sample: node index and duration (µs); each starts where the one before ends. A profile
   * with hit counts only and more than MAX_EXPANDED_HITS of them has one entry per node instead.
   */
  readonly sampleNode: Int32Array;
  /** Whole µs in 32 bits when every duration is one (V8's are): half the memory of doubles. */
  readonly sampleDurationUs: Durations;
  /** µs from the profile's start to its first sample (no per-sample starts: 8 bytes × millions). */
  readonly firstSampleUs: number;
  /** How many samples the profile holds (its hit counts when it has no sample array). */
  readonly sampleCount: number;
  readonly durationUs: number;
  /** The samples' time as the costs count it (each at most MAX_SAMPLE_WEIGHT intervals): what `selfUs` adds up to. */
  readonly weightedUs: number;
  /** Median distance between samples: the interval V8 actually achieved. */
  readonly intervalUs: number;
}

const frameKey = (cf: CallFrame): string =>
  `${cf.url}\u0000${cf.lineNumber}\u0000${cf.columnNumber}\u0000${cf.functionName}`;

/**
 * Builds the tree of a profile that `readCpuProfile` accepted. With `reuseSamples` (the caller
 * gives the profile up) an Int32Array `samples` becomes `sampleNode` in place: node ids turned
 * into indices, one fewer array of millions; the profile's samples are not ids any more.
 */
export function buildProfileTree(profile: CpuProfile, opts: { reuseSamples?: boolean } = {}): ProfileTree {
  const n = profile.nodes.length;
  const indexOf = nodeIndexOf(profile.nodes);

  const frames: Frame[] = [];
  const frameIndex = new Map<string, number>();
  // By the call frame object too: the streaming reader gives nodes of one frame the same object,
  // so most nodes skip making the key (cpuprofile-stream.ts). Not for a profile whose nodes each
  // have their own (far more objects than frames): the map would only grow.
  let frameOfObject: Map<CallFrame, number> | undefined = new Map<CallFrame, number>();
  const nodeFrame = new Int32Array(n);
  const parent = new Int32Array(n).fill(-1);
  const childFrom = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) childFrom[i + 1] = childFrom[i] + (profile.nodes[i].children?.length ?? 0);
  const childList = new Int32Array(childFrom[n]);
  const positionTicks: (PositionTick[] | undefined)[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const node = profile.nodes[i];
    const cf = node.callFrame;
    let f = frameOfObject?.get(cf);
    if (f === undefined) {
      const key = frameKey(cf);
      f = frameIndex.get(key);
      if (f === undefined) {
        f = frames.length;
        frameIndex.set(key, f);
        frames.push({ functionName: cf.functionName, url: cf.url, line0: cf.lineNumber, col0: cf.columnNumber });
      }
      frameOfObject?.set(cf, f);
      if (frameOfObject && frameOfObject.size > 4 * frames.length + 1024) frameOfObject = undefined;
    }
    nodeFrame[i] = f;
    positionTicks[i] = node.positionTicks;
    const ids = node.children;
    if (ids)
      for (let c = 0, at = childFrom[i]; c < ids.length; c++, at++) {
        const child = indexOf(ids[c]);
        childList[at] = child;
        parent[child] = i;
      }
  }
  let root = 0;
  while (parent[root] !== -1) root = parent[root];

  const preorder = new Int32Array(n);
  let k = 0;
  const stack = [root];
  while (stack.length > 0) {
    const i = stack.pop()!;
    preorder[k++] = i;
    for (let c = childFrom[i + 1] - 1; c >= childFrom[i]; c--) stack.push(childList[c]);
  }

  const selfUs = new Float64Array(n);
  const { weightedUs, ...timeline } = sampleTimeline(profile, indexOf, opts.reuseSamples === true, selfUs);
  const subtreeUs = Float64Array.from(selfUs);
  for (let j = n - 1; j > 0; j--) {
    const i = preorder[j];
    subtreeUs[parent[i]] += subtreeUs[i];
  }
  return {
    frames,
    nodeFrame,
    parent,
    childFrom,
    childList,
    preorder,
    positionTicks,
    selfUs,
    subtreeUs,
    root,
    ...timeline,
    weightedUs,
  };
}

export type Durations = Int32Array | Float64Array;

/** Per-sample durations stored as Int32 while each is a 32-bit integer, else as doubles (exact either way). */
class DurationArray {
  values: Durations;
  constructor(count: number) {
    this.values = new Int32Array(count);
  }
  set(s: number, us: number): void {
    if (this.values instanceof Int32Array && (us | 0) !== us) this.values = Float64Array.from(this.values);
    this.values[s] = us;
  }
}

interface Timeline {
  /** From the sample array and its deltas (not from hit counts spread over the duration). */
  fromSamples: boolean;
  sampleNode: Int32Array;
  sampleDurationUs: Durations;
  firstSampleUs: number;
  sampleCount: number;
  durationUs: number;
  intervalUs: number;
}

/**
 * Each sample lasts until the next one starts; the last one until `endTime`, capped at the
 * median interval so a long tail after the last sample is not given to one stack. Profiles
 * without a sample array (old formats) fall back to hit counts spread over the duration.
 */
/**
 * A sample counts for at most MAX_SAMPLE_WEIGHT intervals. A long gap before the next sample is
 * time the app's thread was not running (descheduled on a busy machine: V8's sampler signals the
 * thread, which answers once it runs again), so it is no cost of the stack sampled before it.
 */
const capOf = (fromSamples: boolean, intervalUs: number): number =>
  fromSamples && intervalUs > 0 ? MAX_SAMPLE_WEIGHT * intervalUs : Infinity;

/**
 * The samples' timeline, and each sample's weighted time added to its node's `selfUs` (in the
 * same pass that finds the nodes: millions of samples); returns the weighted total too.
 */
function sampleTimeline(
  profile: CpuProfile,
  indexOf: (id: number) => number,
  reuseSamples: boolean,
  selfUs: Float64Array,
): Timeline & { weightedUs: number } {
  const wall = Math.max(0, profile.endTime - profile.startTime);
  const samples = profile.samples;
  if (!samples || samples.length === 0) {
    const hits = hitCountTimeline(profile, wall);
    const capUs = capOf(hits.fromSamples, hits.intervalUs);
    let weightedUs = 0;
    for (let s = 0; s < hits.sampleNode.length; s++) {
      const us = Math.min(hits.sampleDurationUs[s], capUs);
      selfUs[hits.sampleNode[s]] += us;
      weightedUs += us;
    }
    return { ...hits, weightedUs };
  }

  const count = samples.length;
  const deltas = profile.timeDeltas;
  const timed =
    deltas instanceof Int32Array
      ? durationsOfInt32Deltas(deltas, wall)
      : durationsOfDeltas(count, (s) => (deltas ? deltas[s] : wall / count), wall);
  const sampleDurationUs = timed.durations;
  const capUs = capOf(true, timed.intervalUs);
  const sampleNode = reuseSamples && samples instanceof Int32Array ? samples : new Int32Array(count);
  // The gap before the first sample belongs to no sample: the sampled time starts at it.
  let durationUs = 0;
  let weightedUs = 0;
  for (let s = 0; s < count; s++) {
    const node = indexOf(samples[s]);
    sampleNode[s] = node;
    const d = sampleDurationUs[s];
    durationUs += d;
    const us = Math.min(d, capUs);
    selfUs[node] += us;
    weightedUs += us;
  }
  return {
    weightedUs,
    fromSamples: true,
    sampleNode,
    sampleDurationUs,
    firstSampleUs: timed.firstSampleUs,
    sampleCount: count,
    durationUs,
    intervalUs: timed.intervalUs,
  };
}

interface Timed {
  durations: Durations;
  firstSampleUs: number;
  intervalUs: number;
}

/**
 * Each sample lasts until the next one starts: its duration is the next delta. t is the current
 * sample's start; each duration is the difference of two starts (the same arithmetic as
 * subtracting stored starts, without storing them).
 */
function durationsOfDeltas(count: number, deltaOf: (s: number) => number, wall: number): Timed {
  const durations = new DurationArray(count);
  let t = 0;
  let firstSampleUs = 0;
  for (let s = 0; s < count; s++) {
    const previous = t;
    t += deltaOf(s);
    if (s === 0) firstSampleUs = t;
    else durations.set(s - 1, t - previous);
  }
  const intervalUs = median(durations.values.subarray(0, Math.max(0, count - 1))) || (count > 0 ? wall / count : 0);
  durations.set(count - 1, lastDuration(wall - t, intervalUs));
  return { durations: durations.values, firstSampleUs, intervalUs };
}

/**
 * The same for V8's whole-µs deltas: the durations are the deltas shifted by one (integer sums
 * are exact), a view of the reader's array where it left room (spare-slot.ts), not a copy.
 */
function durationsOfInt32Deltas(deltas: Int32Array, wall: number): Timed {
  const count = deltas.length;
  // The sum and the intervals' histogram in one pass (a big file: 127 M deltas, each pass a second).
  const counts = new Uint32Array(HISTOGRAM_SIZE);
  let t = count > 0 ? deltas[0] : 0;
  let negative = false;
  for (let s = 1; s < count; s++) {
    const d = deltas[s];
    t += d;
    if (d < 0) negative = true;
    else if (d < HISTOGRAM_SIZE) counts[d]++;
  }
  // As median() would find it; it decides itself when a delta is negative or the middle one is large.
  const fromCounts = negative ? undefined : rankInCounts(counts, (count - 1) >> 1);
  const intervalUs = (fromCounts ?? median(deltas.subarray(1))) || wall / count;
  const last = lastDuration(wall - t, intervalUs);
  // A fractional or huge last duration (an odd wall time): the general path keeps it exact.
  if ((last | 0) !== last) return durationsOfDeltas(count, (s) => deltas[s], wall);
  return { durations: shiftedWithLast(deltas, last), firstSampleUs: deltas[0], intervalUs };
}

/** The last sample lasts until endTime, capped at the median interval (a long tail is no one stack's). */
function lastDuration(tail: number, intervalUs: number): number {
  return Math.max(0, Math.min(tail > 0 ? tail : intervalUs, intervalUs));
}

/**
 * Hit counts are expanded into one sample each up to this many. Beyond it (a corrupt or
 * hand-made count: 2^53 is a valid integer) expanding would allocate without bound, so each
 * node with hits gets one entry that lasts all of them: the same times per node.
 */
const MAX_EXPANDED_HITS = 1_000_000;

function hitCountTimeline(profile: CpuProfile, wall: number): Timeline {
  let total = 0;
  for (const node of profile.nodes) total += node.hitCount ?? 0;
  const each = total > 0 ? wall / total : 0;
  const entries: number[] = [];
  const hitsOf: number[] = [];
  profile.nodes.forEach((node, i) => {
    const h = node.hitCount ?? 0;
    if (h === 0) return;
    if (total <= MAX_EXPANDED_HITS) {
      for (let k = 0; k < h; k++) entries.push(i);
    } else {
      entries.push(i);
      hitsOf.push(h);
    }
  });
  const sampleNode = Int32Array.from(entries);
  const sampleDurationUs =
    total <= MAX_EXPANDED_HITS
      ? new Float64Array(entries.length).fill(each)
      : Float64Array.from(hitsOf, (h) => h * each);
  return {
    fromSamples: false,
    sampleNode,
    sampleDurationUs,
    firstSampleUs: 0,
    sampleCount: total,
    durationUs: wall,
    intervalUs: each,
  };
}

/** The upper median (the element a sort would put at length/2): O(n), not a sort of millions. */
function median(values: Durations): number {
  if (values.length === 0) return 0;
  const k = values.length >> 1;
  return smallIntegerAtRank(values, k) ?? selectRank(values, k);
}

/** Sample intervals are whole µs, about a thousand: counted in this many buckets, without a copy of millions. */
const HISTOGRAM_SIZE = 1 << 16;

/**
 * The value of rank k when every value below HISTOGRAM_SIZE is a non-negative integer and the
 * rank-k one is among them (counting, no copy); undefined otherwise (then selectRank decides).
 */
function smallIntegerAtRank(values: Durations, k: number): number | undefined {
  const counts = new Uint32Array(HISTOGRAM_SIZE);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v >= 0 && v < HISTOGRAM_SIZE && Math.floor(v) === v) counts[v]++;
    else if (!(v >= HISTOGRAM_SIZE)) return undefined; // negative, fractional or NaN
  }
  return rankInCounts(counts, k);
}

/** The value of rank k among the counted ones, if it is among them. */
function rankInCounts(counts: Uint32Array, k: number): number | undefined {
  let below = 0;
  for (let v = 0; v < HISTOGRAM_SIZE; v++) {
    below += counts[v];
    if (below > k) return v;
  }
  return undefined;
}

/** The element of rank k, by Hoare selection on a copy. */
function selectRank(values: Durations, k: number): number {
  const a = Float64Array.from(values);
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    // Hoare partition around the middle element's value.
    const pivot = a[(lo + hi) >> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        const x = a[i];
        a[i] = a[j];
        a[j] = x;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return a[k];
}
