// Measured call-site lines: the stack captures of the profiled window (capture/stacks/stack-sampler.ts) laid over
// the CPU profile's tree. Every tick names the profile sample taken when it fired and a captured
// stack with the exact line and column of each frame. A tick whose captured stack agrees with the
// sample's stack (the same functions of the user's code, in order) is evidence for every call
// edge on that stack: which line of the caller made the call. Ticks are unbiased in time (Poisson),
// so a line's share of an edge's ticks estimates its share of the edge's time. Pure.
import type { ProfileTree } from '../../profile/index.ts';

/** The frame format of stacks.json (see capture/stacks/stack-sampler.ts; kept here so the analysis needs no capture code). */
export interface StackFrameV1 {
  url: string;
  line: number;
  column: number;
  functionName: string;
}

export interface StackCapturesInput {
  frames: readonly StackFrameV1[];
  captures: readonly (readonly number[])[];
  ticks: readonly (readonly [number, number])[];
}

/** Which function a profile node or a captured frame is in, as far as matching them goes. */
export interface Identity {
  /** Equal keys: the same function. */
  key: string;
  /** Part of the user's code (the frames that are aligned). */
  workspace: boolean;
  /** The script (generated file): a non-workspace callee is checked by its script only. */
  file: string;
}

/** Weights of captured frames (indices into `frames`) for one question. */
export type FrameWeights = Map<number, number>;

export interface StackEvidence {
  /** Per child node of a workspace node: the caller's frame (its line) in the ticks below the child. */
  readonly callLine: ReadonlyMap<number, FrameWeights>;
  /** Per child node of the deepest workspace node: the deepest workspace frame (an inlined helper's, or the caller's). */
  readonly owner: ReadonlyMap<number, FrameWeights>;
  /** Per workspace node, ticks whose top workspace frame is the node's own (own) or a function inlined into it. */
  readonly selfOwner: ReadonlyMap<number, { own: FrameWeights; inlined: FrameWeights }>;
  /** The same call-line evidence summed over every context, by "caller key>callee key". */
  readonly callLineByPair: ReadonlyMap<string, FrameWeights>;
  readonly ownerByPair: ReadonlyMap<string, FrameWeights>;
  /**
   * The ticks behind `owner`, in time: [sample, child node, frame] three numbers a tick (the
   * precision of a share they decide is read from their order: time/line-intervals.ts).
   */
  readonly ownerTicks: readonly number[];
  /** Ticks used, and those whose captured stack did not match their sample (the app had moved on). */
  readonly aligned: number;
  readonly misaligned: number;
}

const add = (map: Map<number, FrameWeights>, at: number, frame: number): void => {
  let w = map.get(at);
  if (!w) map.set(at, (w = new Map()));
  w.set(frame, (w.get(frame) ?? 0) + 1);
};
const addKey = (map: Map<string, FrameWeights>, at: string, frame: number): void => {
  let w = map.get(at);
  if (!w) map.set(at, (w = new Map()));
  w.set(frame, (w.get(frame) ?? 0) + 1);
};

/**
 * Lays the ticks over the tree. `nodeIdentity` and `frameIdentity` say which function a node and a
 * captured frame are in (the analysis knows the sources and maps).
 */
export function buildStackEvidence(
  tree: ProfileTree,
  input: StackCapturesInput,
  nodeIdentity: (node: number) => Identity,
  frameIdentity: (frame: number) => Identity,
): StackEvidence {
  const callLine = new Map<number, FrameWeights>();
  const owner = new Map<number, FrameWeights>();
  const selfOwner = new Map<number, { own: FrameWeights; inlined: FrameWeights }>();
  const callLineByPair = new Map<string, FrameWeights>();
  const ownerByPair = new Map<string, FrameWeights>();
  const ownerTicks: number[] = [];
  let aligned = 0;
  let misaligned = 0;
  const sampleCount = tree.sampleNode.length;
  const frameIds = input.frames.map((_, i) => frameIdentity(i));

  for (const [sample, capture] of input.ticks) {
    if (sample < 0 || sample >= sampleCount) continue;
    const frames = input.captures[capture];
    if (!frames || frames.length === 0) continue; // the app ran no JS: nothing to place
    const top = tree.sampleNode[sample];
    // The sample's path, outermost first, and the workspace nodes on it.
    const path: number[] = [];
    for (let n = top; n >= 0; n = tree.parent[n]) path.push(n);
    path.reverse();
    const wsAt: number[] = [];
    for (let i = 0; i < path.length; i++) if (nodeIdentity(path[i]).workspace) wsAt.push(i);
    if (wsAt.length === 0) continue;
    // The captured frames, outermost first.
    const outer = [...frames].reverse();
    const match = alignWorkspaceFrames(
      wsAt.map((i) => nodeIdentity(path[i]).key),
      outer,
      frameIds,
    );
    const deepest = wsAt[wsAt.length - 1];
    const below = deepest + 1 < path.length ? path[deepest + 1] : -1;
    const deepestFrame = match ? match[match.length - 1] : -1;
    // A captured stack that left the sample's callee already (the interrupt landed after it
    // returned) says nothing about that call: the callee's script must still be below the caller.
    if (!match || (below >= 0 && !calleeStillThere(nodeIdentity(below), outer, deepestFrame, frameIds))) {
      misaligned++;
      continue;
    }
    aligned++;
    for (let k = 0; k < wsAt.length; k++) {
      const child = wsAt[k] + 1 < path.length ? path[wsAt[k] + 1] : -1;
      if (child < 0) continue;
      const frame = outer[match[k]];
      add(callLine, child, frame);
      addKey(callLineByPair, `${nodeIdentity(path[wsAt[k]]).key}>${nodeIdentity(child).key}`, frame);
    }
    // The deepest frame of the user's code in the capture: the line that owns the sample.
    let ownerAt = deepestFrame;
    for (let j = outer.length - 1; j > deepestFrame; j--) {
      if (frameIds[outer[j]].workspace) {
        ownerAt = j;
        break;
      }
    }
    const ownerFrame = outer[ownerAt];
    if (below >= 0) {
      add(owner, below, ownerFrame);
      ownerTicks.push(sample, below, ownerFrame);
      addKey(ownerByPair, `${nodeIdentity(path[deepest]).key}>${nodeIdentity(below).key}`, ownerFrame);
    } else {
      const node = path[deepest];
      let s = selfOwner.get(node);
      if (!s) selfOwner.set(node, (s = { own: new Map(), inlined: new Map() }));
      const into = ownerAt === deepestFrame ? s.own : s.inlined;
      into.set(ownerFrame, (into.get(ownerFrame) ?? 0) + 1);
    }
  }
  return { callLine, owner, selfOwner, callLineByPair, ownerByPair, ownerTicks, aligned, misaligned };
}

/**
 * Matches each workspace function of the sample's path (outermost first) to a captured frame of the
 * same function, in order; captured frames in between are inlined functions the profile does not
 * show. Returns the matched positions in `outer`, or undefined when some function is missing.
 */
function alignWorkspaceFrames(
  keys: readonly string[],
  outer: readonly number[],
  ids: readonly Identity[],
): number[] | undefined {
  const match: number[] = [];
  let j = 0;
  for (const key of keys) {
    while (j < outer.length && ids[outer[j]].key !== key) j++;
    if (j === outer.length) return undefined;
    match.push(j++);
  }
  return match;
}

/** The sample's callee below the deepest workspace frame is still on the captured stack (by script). */
function calleeStillThere(callee: Identity, outer: readonly number[], from: number, ids: readonly Identity[]): boolean {
  if (callee.file === '') return true; // native: no frame of its own in a captured stack
  for (let j = from + 1; j < outer.length; j++) if (ids[outer[j]].file === callee.file) return true;
  return false;
}
