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
import type { CallFrame } from './analysis/cpuprofile.ts';

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
const opensNoFrame = (f: CallFrame): boolean => f.url === 'native dummy.js' || f.functionName === '(root)' || f.functionName === '(idle)';

/** speedscope's name and key of a Chrome call frame. */
function frameOf(f: CallFrame): { key: string; frame: MergedFrame } {
  const line = f.lineNumber + 1;
  const col = f.columnNumber + 1;
  const name = f.functionName || (f.url ? `(anonymous ${f.url.split('/').pop()}:${line})` : '(anonymous)');
  return { key: `${name}:${f.url}:${line}:${col}`, frame: { name, file: f.url, line, col } };
}

/** The merged call tree of `profile`, with speedscope's weighting of its samples. */
export function mergeSamples(profile: MergeInput): MergedTree {
  const nodeCount = profile.nodes.length;
  const indexById = new Map<number, number>();
  profile.nodes.forEach((n, i) => indexById.set(n.id, i));
  // V8 numbers nodes 1..n: an array lookup per sample instead of a Map's.
  let maxId = 0;
  for (const n of profile.nodes) maxId = Math.max(maxId, n.id);
  const dense = maxId < 4 * nodeCount + 16 && profile.nodes.every((n) => n.id >= 0 && Number.isInteger(n.id));
  const denseIndex = new Int32Array(dense ? maxId + 1 : 0).fill(-1);
  if (dense) profile.nodes.forEach((n, i) => (denseIndex[n.id] = i));
  const nodeIndex = (id: number): number => (dense ? (id >= 0 && id <= maxId ? denseIndex[id] : -1) : (indexById.get(id) ?? -1));
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

  const tree: MergedTree = { frames, frame: [-1], parent: [-1], self: [0], children: [[]], total: profile.endTime - profile.startTime };
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

  // The open stack: profile nodes, and the tree node of each prefix (treeAt[k] for stack[0..k]).
  const stack: number[] = [];
  const treeAt: number[] = [];
  const depthOf = new Int32Array(nodeCount).fill(-1); // position in `stack`, -1 when not on it
  const top = (): number => (treeAt.length > 0 ? treeAt[treeAt.length - 1] : 0);
  const toOpen: number[] = [];
  /** Makes `node` the sample on top, as speedscope's importer moves from the previous stack. */
  const below = (n: number): number => (onTop[n] ? (stack.length > 0 ? stack[stack.length - 1] : -1) : parentOf[n]);
  const moveTo = (node: number): void => {
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
  };

  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  if (samples.length === 0) return tree;
  // The sample times as speedscope takes them: from startTime; a time before the last one taken
  // holds that one.
  let elapsed = deltas[0] ?? 0;
  let lastTaken = elapsed;
  const take = (): number => (elapsed < lastTaken ? lastTaken : (lastTaken = elapsed));
  let current = -1; // the node on top since `since`
  let since = 0;
  let previous = NaN; // the sample before (speedscope merges runs of the same node)
  for (let i = 0; i < samples.length; i++) {
    const id = samples[i];
    if (id !== previous) {
      const time = take();
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
  const time = take();
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
    profiles: [{ type: 'evented', name, unit: 'microseconds', startValue: 0, endValue: Math.max(tree.total, at), events: [] as unknown[] }],
  };
  const json = JSON.stringify(file);
  const hole = '"events":[]';
  const cut = json.lastIndexOf(hole);
  return `${json.slice(0, cut)}"events":[${parts.join(',')}]${json.slice(cut + hole.length)}`;
}
