// The 95% interval of each line's own share and each function's self share (share-interval.ts),
// from the run's samples in time and the stack captures that split time between calling lines.
// A share decided by captures (a pool of ticks: which line of the caller each capture saw) has an
// error of its own: each tick pulls the split towards its line by T/c (T the time the pool
// splits, c its ticks), and those pulls, in time order, go into the same blocks as the samples.
// Pure.
import type { ProfileTree } from '../../profile/profile-tree.ts';
import { shareIntervals, type KeyShare } from './share-interval.ts';

/** A share of a node's time that goes to a line (attribution/call-lines.ts LineShare). */
interface LineShare {
  key: string;
  frac: number;
}

/** Captured frames' ticks (attribution/stacks.ts FrameWeights). */
type FrameWeights = ReadonlyMap<number, number>;

/** The captures that decided who owns the time below a child node (attribution/call-lines.ts OwnerPool). */
interface OwnerPool {
  weights: FrameWeights;
  keyOfFrame: ReadonlyMap<number, string>;
  shares: readonly LineShare[];
}

export interface IntervalInput {
  tree: ProfileTree;
  /** The profile had samples in time (not hit counts only): blocks of samples mean something. */
  timeOrdered: boolean;
  /** µs a sample counts for at most (MAX_SAMPLE_WEIGHT intervals). */
  capUs: number;
  isIdle(node: number): boolean;
  /** Per node: the lines its self time is own time of. */
  owners: ReadonlyArray<ReadonlyArray<LineShare>>;
  /** Per node: the child node whose captured pool gave its owners, -1 when none did. */
  ownerEdge: Int32Array;
  pools: ReadonlyMap<number, OwnerPool>;
  /** [sample, child node, frame] per tick (StackEvidence.ownerTicks). */
  ownerTicks: readonly number[];
  /** The pools a tick below `child` is part of (the child's own and its caller→callee pair's). */
  poolsOfChild(child: number): ReadonlyArray<FrameWeights | undefined>;
  /** Per node: the functions (indices) its self time is of, and how many functions there are. */
  fnSharesOf(node: number): ReadonlyArray<KeyShare>;
  fnCount: number;
}

/** Half-widths (0..1 of non-idle time) of every line's own share, by line key, and of every function's self share. */
export function lineAndFunctionIntervals(input: IntervalInput): {
  lines: Map<string, number>;
  functions: Float64Array;
} {
  const { tree } = input;
  const count = input.timeOrdered ? tree.sampleNode.length : 0;
  const weightOf = (s: number): number => {
    const node = tree.sampleNode[s];
    return input.isIdle(node) ? 0 : Math.min(tree.sampleDurationUs[s], input.capUs);
  };

  const keyIndex = new Map<string, number>();
  const indexOf = (key: string): number => {
    let k = keyIndex.get(key);
    if (k === undefined) keyIndex.set(key, (k = keyIndex.size));
    return k;
  };
  const byNode = new Map<number, KeyShare[]>();
  const lineSharesOf = (s: number): KeyShare[] => {
    const node = tree.sampleNode[s];
    let shares = byNode.get(node);
    if (!shares)
      byNode.set(node, (shares = (input.owners[node] ?? []).map((o) => ({ key: indexOf(o.key), frac: o.frac }))));
    return shares;
  };
  // Every key first, so that the series knows how many there are.
  for (let s = 0; s < count; s++) lineSharesOf(s);
  const extra = captureTerms(input, indexOf);
  const lineIv = shareIntervals({ count, keys: keyIndex.size, weightOf, sharesOf: lineSharesOf, extra });
  const lines = new Map<string, number>();
  for (const [key, k] of keyIndex) lines.set(key, lineIv.halfWidth[k]);

  const fnShares = new Map<number, ReadonlyArray<KeyShare>>();
  const fnIv = shareIntervals({
    count,
    keys: input.fnCount,
    weightOf,
    sharesOf: (s) => {
      const node = tree.sampleNode[s];
      let shares = fnShares.get(node);
      if (!shares) fnShares.set(node, (shares = input.fnSharesOf(node)));
      return shares;
    },
  });
  return { lines, functions: fnIv.halfWidth };
}

/**
 * The captures' pull on the splits they decided: for a tick of a pool that splits T µs over c
 * ticks, T/c · (1 − f) on the line it saw and −T/c · f on each other line of the split.
 */
function captureTerms(
  input: IntervalInput,
  indexOf: (key: string) => number,
): Array<{ sample: number; key: number; us: number }> {
  const { tree } = input;
  const pools = new Map<FrameWeights, { pool: OwnerPool; us: number; ticks: number }>();
  for (const [, pool] of input.pools) {
    if (pools.has(pool.weights)) continue;
    let ticks = 0;
    for (const w of pool.weights.values()) ticks += w;
    pools.set(pool.weights, { pool, us: 0, ticks });
  }
  for (let i = 0; i < input.ownerEdge.length; i++) {
    const child = input.ownerEdge[i];
    if (child < 0 || input.isIdle(i)) continue;
    const pool = input.pools.get(child);
    if (pool) pools.get(pool.weights)!.us += tree.selfUs[i];
  }
  const terms: Array<{ sample: number; key: number; us: number }> = [];
  if (!input.timeOrdered) return terms;
  const t = input.ownerTicks;
  for (let j = 0; j + 2 < t.length; j += 3) {
    const [sample, child, frame] = [t[j], t[j + 1], t[j + 2]];
    for (const weights of input.poolsOfChild(child)) {
      const p = weights && pools.get(weights);
      if (!p || p.ticks <= 0 || p.us <= 0) continue;
      const seen = p.pool.keyOfFrame.get(frame);
      const per = p.us / p.ticks;
      for (const share of p.pool.shares)
        terms.push({ sample, key: indexOf(share.key), us: per * ((share.key === seen ? 1 : 0) - share.frac) });
    }
  }
  return terms;
}
