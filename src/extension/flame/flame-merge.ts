// A big .cpuprofile, merged for speedscope: the same call tree with the same time per stack, as a
// profile in speedscope's own file format ("evented") with one open/close pair per distinct stack.
//
// Why: speedscope's Chrome importer replays the samples in time order, and its profile builder
// adds weight to every frame on the stack at each frame entered or left, so its work is
// (stack changes × stack depth). A 100 MB profile of deep stacks (millions of samples, ~90
// frames) took ~100 s before the first draw. Merged, speedscope replays one entry per distinct
// stack (the call tree's nodes), a few hundred thousand at most.
//
// What stays exactly as speedscope shows the original: Left Heavy, Sandwich (self and total time
// per function) and the profile's total time; frames are named as speedscope's Chrome importer
// names them (anonymous functions, 1-based lines), so search and the detail panel read the same.
// What is lost: the Time Order view shows the merged tree, not the sequence of samples (the
// extension says so and offers the original).
//
// The weights follow speedscope's Chrome importer (speedscope 1.25.0, src/import/chrome.ts):
// consecutive samples of the same node are one; a sample lasts until the next sample's time (the
// last one: 0); times never go back (a negative delta holds the previous time); "(root)" and
// "(idle)" open no frame; a "(garbage collector)" or "(program)" sample sits on top of the stack
// of the sample before it.
import type { CallFrame } from '../../core/index.ts';

/** What the merge reads of a profile (readCpuProfile's output fits; arrays may be typed). */
export interface MergeInput {
  nodes: ReadonlyArray<{ id: number; callFrame: CallFrame; children?: ArrayLike<number> }>;
  startTime: number;
  endTime: number;
  samples?: ArrayLike<number>;
  timeDeltas?: ArrayLike<number>;
}

/** A frame as speedscope's file format holds it (and as its Chrome importer names it). */
export interface MergedFrame {
  name: string;
  file: string;
  line: number;
  col: number;
}

/** The merged call tree: node 0 is the root (no frame); weights in µs. */
export interface MergedTree {
  frames: MergedFrame[];
  /** Per tree node: its frame (index into frames), -1 for the root. */
  frame: number[];
  parent: number[];
  /** Per tree node: time with this node on top of the stack. */
  self: number[];
  /** Children in the order they were first seen. */
  children: number[][];
  /** The profile's length as speedscope takes it: max(endTime - startTime, last sample time). */
  total: number;
}

const isStackOnTop = (name: string): boolean => name === '(garbage collector)' || name === '(program)';
const opensNoFrame = (f: CallFrame): boolean =>
  f.url === 'native dummy.js' || f.functionName === '(root)' || f.functionName === '(idle)';

/** speedscope's name and key of a Chrome call frame. */
function frameOf(f: CallFrame): { key: string; frame: MergedFrame } {
  const line = f.lineNumber + 1;
  const col = f.columnNumber + 1;
  const name = f.functionName || (f.url ? `(anonymous ${f.url.split('/').pop()}:${line})` : '(anonymous)');
  return { key: `${name}:${f.url}:${line}:${col}`, frame: { name, file: f.url, line, col } };
}

/** Moves the open stack from sample to sample; `top` is the tree node of the stack now open. */
interface Mover {
  moveTo(node: number): void;
  top(): number;
}
type ChildOf = (treeNode: number, frame: number) => number;

/** Whether a node that is not "(garbage collector)"/"(program)" sits under one (V8 makes none). */
function hasStackedChains(parentOf: Int32Array, onTop: Uint8Array): boolean {
  for (let n = 0; n < parentOf.length; n++) {
    if (onTop[n]) continue;
    for (let a = parentOf[n]; a !== -1; a = parentOf[a]) if (onTop[a]) return true;
  }
  return false;
}

/**
 * The usual case, fast: a sample's stack is its node's ancestors (up to "(root)"), plus the
 * "(garbage collector)"/"(program)" samples stacked on it since. So a node's tree node is fixed
 * and found once; a jump between deep stacks costs nothing per frame.
 */
function chainMover(
  parentOf: Int32Array,
  onTop: Uint8Array,
  ignored: Uint8Array,
  frameOfNode: Int32Array,
  childOf: ChildOf,
): Mover {
  const treeOfNode = new Int32Array(parentOf.length).fill(-1);
  const path: number[] = [];
  const chainTree = (node: number): number => {
    path.length = 0;
    let n = node;
    for (; n !== -1 && !ignored[n] && treeOfNode[n] === -1; n = parentOf[n]) path.push(n);
    let t = n === -1 || ignored[n] ? 0 : treeOfNode[n];
    for (let k = path.length - 1; k >= 0; k--) treeOfNode[path[k]] = t = childOf(t, frameOfNode[path[k]]);
    return t;
  };
  let base = 0;
  const stackedNodes: number[] = [];
  const stackedTrees: number[] = [];
  const top = (): number => (stackedTrees.length > 0 ? stackedTrees[stackedTrees.length - 1] : base);
  return {
    top,
    moveTo(node) {
      if (!onTop[node]) {
        base = chainTree(node);
        stackedNodes.length = stackedTrees.length = 0;
        return;
      }
      const at = stackedNodes.indexOf(node);
      if (at !== -1) {
        stackedNodes.length = stackedTrees.length = at + 1;
        return;
      }
      const t = childOf(top(), frameOfNode[node]);
      stackedNodes.push(node);
      stackedTrees.push(t);
    },
  };
}

/** Any profile: replays speedscope's importer step by step (its lowest common ancestor walk). */
function replayingMover(
  parentOf: Int32Array,
  onTop: Uint8Array,
  ignored: Uint8Array,
  frameOfNode: Int32Array,
  childOf: ChildOf,
): Mover {
  // The open stack: profile nodes, and the tree node of each prefix (treeAt[k] for stack[0..k]).
  const stack: number[] = [];
  const treeAt: number[] = [];
  const depthOf = new Int32Array(parentOf.length).fill(-1); // position in `stack`, -1 when not on it
  const top = (): number => (treeAt.length > 0 ? treeAt[treeAt.length - 1] : 0);
  const toOpen: number[] = [];
  const below = (n: number): number => (onTop[n] ? (stack.length > 0 ? stack[stack.length - 1] : -1) : parentOf[n]);
  return {
    top,
    moveTo(node) {
      let lca = node;
      while (lca !== -1 && depthOf[lca] === -1) lca = below(lca);
      while (stack.length > 0 && stack[stack.length - 1] !== lca) {
        depthOf[stack.pop() as number] = -1;
        treeAt.pop();
      }
      toOpen.length = 0;
      for (let n = node; n !== -1 && n !== lca && !ignored[n]; n = below(n)) toOpen.push(n);
      for (let k = toOpen.length - 1; k >= 0; k--) {
        const n = toOpen[k];
        depthOf[n] = stack.length;
        stack.push(n);
        treeAt.push(childOf(top(), frameOfNode[n]));
      }
    },
  };
}

/**
 * The merged call tree of `profile`, with speedscope's weighting of its samples. `replay`: take
 * the step-by-step way even when the fast one applies (the tests compare the two).
 */
export function mergeSamples(profile: MergeInput, o: { replay?: boolean } = {}): MergedTree {
  const nodeCount = profile.nodes.length;
  const indexById = new Map<number, number>();
  profile.nodes.forEach((n, i) => indexById.set(n.id, i));
  // V8 numbers nodes 1..n: an array lookup per sample instead of a Map's.
  let maxId = 0;
  for (const n of profile.nodes) maxId = Math.max(maxId, n.id);
  const dense = maxId < 4 * nodeCount + 16 && profile.nodes.every((n) => n.id >= 0 && Number.isInteger(n.id));
  const denseIndex = new Int32Array(dense ? maxId + 1 : 0).fill(-1);
  if (dense) profile.nodes.forEach((n, i) => (denseIndex[n.id] = i));
  const nodeIndex = (id: number): number =>
    dense ? (id >= 0 && id <= maxId ? denseIndex[id] : -1) : (indexById.get(id) ?? -1);
  const parentOf = new Int32Array(nodeCount).fill(-1);
  profile.nodes.forEach((n, i) => {
    const children = n.children ?? [];
    for (let k = 0; k < children.length; k++) {
      const c = indexById.get(children[k]);
      if (c !== undefined) parentOf[c] = i;
    }
  });
  const frames: MergedFrame[] = [];
  const frameByKey = new Map<string, number>();
  const frameOfNode = new Int32Array(nodeCount);
  const onTop = new Uint8Array(nodeCount);
  const ignored = new Uint8Array(nodeCount);
  profile.nodes.forEach((n, i) => {
    const { key, frame } = frameOf(n.callFrame);
    let f = frameByKey.get(key);
    if (f === undefined) {
      f = frames.length;
      frames.push(frame);
      frameByKey.set(key, f);
    }
    frameOfNode[i] = f;
    onTop[i] = isStackOnTop(n.callFrame.functionName) ? 1 : 0;
    ignored[i] = opensNoFrame(n.callFrame) ? 1 : 0;
  });

  const tree: MergedTree = {
    frames,
    frame: [-1],
    parent: [-1],
    self: [0],
    children: [[]],
    total: profile.endTime - profile.startTime,
  };
  const childByFrame: Array<Map<number, number>> = [new Map()];
  const childOf = (t: number, f: number): number => {
    let c = childByFrame[t].get(f);
    if (c === undefined) {
      c = tree.frame.length;
      tree.frame.push(f);
      tree.parent.push(t);
      tree.self.push(0);
      tree.children.push([]);
      tree.children[t].push(c);
      childByFrame.push(new Map());
      childByFrame[t].set(f, c);
    }
    return c;
  };

  const mover =
    o.replay || hasStackedChains(parentOf, onTop)
      ? replayingMover(parentOf, onTop, ignored, frameOfNode, childOf)
      : chainMover(parentOf, onTop, ignored, frameOfNode, childOf);
  const { moveTo, top } = mover;

  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  if (samples.length === 0) return tree;
  // The sample times as speedscope takes them: from startTime; a time before the last one taken
  // holds that one.
  // (Plain locals, no closure over them: a double kept in a closure is boxed at every write.)
  let elapsed = deltas[0] ?? 0;
  let lastTaken = elapsed;
  let current = -1; // the node on top since `since`
  let since = 0;
  let previous = NaN; // the sample before (speedscope merges runs of the same node)
  for (let i = 0; i < samples.length; i++) {
    const id = samples[i];
    if (id !== previous) {
      if (elapsed > lastTaken) lastTaken = elapsed;
      const time = lastTaken;
      if (current !== -1) tree.self[top()] += time - since;
      const node = nodeIndex(id);
      // speedscope skips a sample of an unknown node (readCpuProfile rejects them anyway).
      if (node !== -1) {
        moveTo(node);
        current = node;
        since = time;
      }
    }
    if (i < samples.length - 1) {
      elapsed += deltas[i + 1] ?? 0;
      previous = id;
    }
  }
  if (elapsed > lastTaken) lastTaken = elapsed;
  const time = lastTaken;
  if (current !== -1) tree.self[top()] += time - since;
  tree.total = Math.max(tree.total, time);
  return tree;
}

/**
 * The merged profile as a speedscope file (JSON text): one evented profile whose events open and
 * close each tree node around its total time, children in the order first seen.
 */
export function mergedSpeedscopeJson(profile: MergeInput, name: string): string {
  const tree = mergeSamples(profile);
  const totalOf = new Float64Array(tree.frame.length);
  for (let t = tree.frame.length - 1; t >= 0; t--) {
    totalOf[t] += tree.self[t];
    if (t > 0) totalOf[tree.parent[t]] += totalOf[t];
  }
  const parts: string[] = [];
  let at = 0;
  // Depth-first without recursion: a stack can be thousands of frames deep.
  const work: Array<{ t: number; next: number }> = [{ t: 0, next: 0 }];
  while (work.length > 0) {
    const w = work[work.length - 1];
    if (w.next === 0 && w.t !== 0) parts.push(`{"type":"O","frame":${tree.frame[w.t]},"at":${at}}`);
    if (w.next === 0) at += tree.self[w.t]; // self time first: a node's children follow it
    const children = tree.children[w.t];
    if (w.next < children.length) {
      const c = children[w.next++];
      if (totalOf[c] > 0) work.push({ t: c, next: 0 });
      continue;
    }
    work.pop();
    if (w.t !== 0) parts.push(`{"type":"C","frame":${tree.frame[w.t]},"at":${at}}`);
  }
  const file = {
    $schema: 'https://www.speedscope.app/file-format-schema.json',
    exporter: 'hotline',
    name,
    activeProfileIndex: 0,
    shared: { frames: tree.frames },
    profiles: [
      {
        type: 'evented',
        name,
        unit: 'microseconds',
        startValue: 0,
        endValue: Math.max(tree.total, at),
        events: [] as unknown[],
      },
    ],
  };
  const json = JSON.stringify(file);
  const hole = '"events":[]';
  const cut = json.lastIndexOf(hole);
  return `${json.slice(0, cut)}"events":[${parts.join(',')}]${json.slice(cut + hole.length)}`;
}
