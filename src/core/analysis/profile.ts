// A checked CpuProfile → a flat, index-based, read-only tree built in one pass: parent links,
// a pre-order, self and subtree time per node, and the sample timeline. Everything after this
// works on indices, never on the V8 objects.
import { nodeIndexer, type CallFrame, type CpuProfile, type PositionTick } from './cpuprofile.ts';

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
  readonly children: readonly (readonly number[])[];
  /** Node indices, every parent before its children. */
  readonly preorder: Int32Array;
  readonly positionTicks: readonly (readonly PositionTick[] | undefined)[];
  /** Per node: µs of samples whose top frame is this node. */
  readonly selfUs: Float64Array;
  /** Per node: µs of samples in its subtree. */
  readonly subtreeUs: Float64Array;
  readonly root: number;
  /**
   * Per sample: node index, start (µs since profile start) and duration (µs). A profile with
   * hit counts only and more than MAX_EXPANDED_HITS of them has one entry per node instead.
   */
  readonly sampleNode: Int32Array;
  readonly sampleStartUs: Float64Array;
  readonly sampleDurationUs: Float64Array;
  /** How many samples the profile holds (its hit counts when it has no sample array). */
  readonly sampleCount: number;
  readonly durationUs: number;
  /** Median distance between samples: the interval V8 actually achieved. */
  readonly intervalUs: number;
}

const frameKey = (cf: CallFrame): string => `${cf.url}\u0000${cf.lineNumber}\u0000${cf.columnNumber}\u0000${cf.functionName}`;

/** Builds the tree of a profile that `readCpuProfile` accepted. */
export function buildProfileTree(profile: CpuProfile): ProfileTree {
  const n = profile.nodes.length;
  const indexById = new Map<number, number>();
  profile.nodes.forEach((node, i) => indexById.set(node.id, i));

  const frames: Frame[] = [];
  const frameIndex = new Map<string, number>();
  const nodeFrame = new Int32Array(n);
  const parent = new Int32Array(n).fill(-1);
  const children: number[][] = new Array(n);
  const positionTicks: (PositionTick[] | undefined)[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const node = profile.nodes[i];
    const key = frameKey(node.callFrame);
    let f = frameIndex.get(key);
    if (f === undefined) {
      f = frames.length;
      frameIndex.set(key, f);
      const cf = node.callFrame;
      frames.push({ functionName: cf.functionName, url: cf.url, line0: cf.lineNumber, col0: cf.columnNumber });
    }
    nodeFrame[i] = f;
    positionTicks[i] = node.positionTicks;
    children[i] = (node.children ?? []).map((id) => indexById.get(id)!);
    for (const c of children[i]) parent[c] = i;
  }
  let root = 0;
  while (parent[root] !== -1) root = parent[root];

  const preorder = new Int32Array(n);
  let k = 0;
  const stack = [root];
  while (stack.length > 0) {
    const i = stack.pop()!;
    preorder[k++] = i;
    const ch = children[i];
    for (let c = ch.length - 1; c >= 0; c--) stack.push(ch[c]);
  }

  const timeline = sampleTimeline(profile, indexById);
  const selfUs = new Float64Array(n);
  for (let s = 0; s < timeline.sampleNode.length; s++) selfUs[timeline.sampleNode[s]] += timeline.sampleDurationUs[s];
  const subtreeUs = Float64Array.from(selfUs);
  for (let j = n - 1; j > 0; j--) {
    const i = preorder[j];
    subtreeUs[parent[i]] += subtreeUs[i];
  }
  return { frames, nodeFrame, parent, children, preorder, positionTicks, selfUs, subtreeUs, root, ...timeline };
}

interface Timeline {
  sampleNode: Int32Array;
  sampleStartUs: Float64Array;
  sampleDurationUs: Float64Array;
  sampleCount: number;
  durationUs: number;
  intervalUs: number;
}

/**
 * Each sample lasts until the next one starts; the last one until `endTime`, capped at the
 * median interval so a long tail after the last sample is not given to one stack. Profiles
 * without a sample array (old formats) fall back to hit counts spread over the duration.
 */
function sampleTimeline(profile: CpuProfile, indexById: Map<number, number>): Timeline {
  const wall = Math.max(0, profile.endTime - profile.startTime);
  const samples = profile.samples;
  if (!samples || samples.length === 0) return hitCountTimeline(profile, wall);

  const count = samples.length;
  const sampleNode = new Int32Array(count);
  const sampleStartUs = new Float64Array(count);
  const sampleDurationUs = new Float64Array(count);
  const deltas = profile.timeDeltas;
  const indexOf = nodeIndexer(indexById);
  let t = 0;
  for (let s = 0; s < count; s++) {
    sampleNode[s] = indexOf(samples[s]);
    t += deltas ? deltas[s] : wall / count;
    sampleStartUs[s] = t;
  }
  for (let s = 0; s < count - 1; s++) sampleDurationUs[s] = sampleStartUs[s + 1] - sampleStartUs[s];
  const intervalUs = median(sampleDurationUs.subarray(0, Math.max(0, count - 1))) || (count > 0 ? wall / count : 0);
  const tail = wall - sampleStartUs[count - 1];
  sampleDurationUs[count - 1] = Math.max(0, Math.min(tail > 0 ? tail : intervalUs, intervalUs));
  // The gap before the first sample belongs to no sample: the sampled time starts at it.
  let durationUs = 0;
  for (let s = 0; s < count; s++) durationUs += sampleDurationUs[s];
  return { sampleNode, sampleStartUs, sampleDurationUs, sampleCount: count, durationUs, intervalUs };
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
  const sampleDurationUs = total <= MAX_EXPANDED_HITS ? new Float64Array(entries.length).fill(each) : Float64Array.from(hitsOf, (h) => h * each);
  const sampleStartUs = new Float64Array(entries.length);
  for (let s = 1; s < entries.length; s++) sampleStartUs[s] = sampleStartUs[s - 1] + sampleDurationUs[s - 1];
  return { sampleNode, sampleStartUs, sampleDurationUs, sampleCount: total, durationUs: wall, intervalUs: each };
}

/** The upper median (the element a sort would put at length/2), by selection: O(n), not a sort of millions. */
function median(values: Float64Array): number {
  if (values.length === 0) return 0;
  const a = Float64Array.from(values);
  const k = a.length >> 1;
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
