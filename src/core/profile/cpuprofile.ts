// The .cpuprofile format as V8's Profiler.stop returns it, and a strict reader for it.
// Every profile that reaches the analysis went through `readCpuProfile`, so the rest of the
// analysis can trust ids, children and sample arrays and never has to guard against them.

export interface CallFrame {
  functionName: string;
  scriptId: string;
  url: string;
  /** 0-based, -1 when unknown (native, synthetic). */
  lineNumber: number;
  /** 0-based, -1 when unknown. */
  columnNumber: number;
}

export interface PositionTick {
  /** 1-based line of the function's script. */
  line: number;
  ticks: number;
}

export interface CpuProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
  positionTicks?: PositionTick[];
}

export interface CpuProfile {
  nodes: CpuProfileNode[];
  /** µs */
  startTime: number;
  /** µs */
  endTime: number;
  /** Node ids. A JS array, or a typed array when read from a file (cpuprofile-reader.ts). */
  samples?: SampleArray;
  /** µs since the previous sample (the first: since startTime). */
  timeDeltas?: SampleArray;
}

/** Read-only: a profile's arrays may be the input's own (see readCpuProfile). */
export type SampleArray = readonly number[] | Int32Array | Float64Array;

/** A JSON array, or the typed array cpuprofile-reader.ts reads in its place. */
const isNumberList = (v: unknown): v is SampleArray =>
  Array.isArray(v) || v instanceof Int32Array || v instanceof Float64Array;

/** The input is not a usable CPU profile; `where` says which part broke the rule. */
/** A file that is not a profile Hotline can read or show; `where` is the place in it, when known. */
export class ProfileFormatError extends Error {
  constructor(
    message: string,
    readonly where?: string,
  ) {
    super(where === undefined ? message : `${message} (at ${where})`);
    this.name = 'ProfileFormatError';
  }
}

export function parseCpuProfileText(text: string): CpuProfile {
  return readCpuProfile(parseProfileJson(text));
}

/**
 * The JSON value of a profile file's text (not yet checked: pass it to readCpuProfile). Apart
 * from parseCpuProfileText so a caller can let go of a big text before the profile is read:
 * `readCpuProfile(parseProfileJson(read()))` inside a function of its own keeps neither.
 */
export function parseProfileJson(text: string): unknown {
  try {
    // A UTF-8 byte order mark (editors on Windows save one) is not part of the JSON.
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    throw new ProfileFormatError(`not JSON: ${(err as Error).message}`, 'file');
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * The longest time span accepted, in µs (2^53 µs is 285 years). Longer spans are corrupt, and
 * sums of them would overflow to Infinity in the analysis (then NaN shares).
 */
const MAX_SPAN_US = Number.MAX_SAFE_INTEGER;

/**
 * Checks the shape and the invariants the analysis relies on: unique ids, children that exist,
 * one parent per node, a single root, no cycles, samples that name real nodes. Returns a profile
 * built from fresh node objects (the input is never mutated) with negative time deltas clamped
 * to 0. The sample and time-delta arrays (millions of entries in a long run) are the input's own
 * when they needed no change: copying them doubled the memory of a big profile's analysis.
 */
export function readCpuProfile(input: unknown): CpuProfile {
  return readProfileValue(input, false);
}

/**
 * readCpuProfile for a value nobody else holds (cpuprofile-reader.ts parsed it): node objects
 * already in the exact shape a fresh copy would have are kept, not copied, so a big profile's
 * nodes are not in memory twice. The result is the same as readCpuProfile's.
 */
export function readOwnedCpuProfile(input: unknown): CpuProfile {
  return readProfileValue(input, true);
}

function readProfileValue(input: unknown, owned: boolean): CpuProfile {
  if (!isObject(input)) throw new ProfileFormatError('a CPU profile is a JSON object', '$');
  let value = input;
  // Chrome DevTools' "Save profile" and some tools wrap the profile: {profile: {...}}. A loop,
  // not a recursive call: a file can nest wrappers deeper than the stack.
  while (!Array.isArray(value.nodes) && isObject(value.profile)) value = value.profile;
  if (!Array.isArray(value.nodes)) throw new ProfileFormatError('"nodes" must be an array', '$.nodes');
  if (value.nodes.length === 0) throw new ProfileFormatError('the profile has no nodes', '$.nodes');
  if (!isFiniteNumber(value.startTime)) throw new ProfileFormatError('"startTime" must be a number', '$.startTime');
  if (!isFiniteNumber(value.endTime)) throw new ProfileFormatError('"endTime" must be a number', '$.endTime');
  if (value.endTime - value.startTime > MAX_SPAN_US)
    throw new ProfileFormatError('"endTime" is implausibly far after "startTime"', '$.endTime');

  const ahead = owned ? checkedAhead.get(value.nodes) : undefined;
  if (ahead && 'error' in ahead) throw ahead.error;
  const { nodes, indexOf } = ahead ?? readNodes(value.nodes, owned);

  const out: CpuProfile = { nodes, startTime: value.startTime, endTime: value.endTime };
  if (value.samples !== undefined) {
    out.samples = readSamples(value.samples, indexOf);
    const deltas = value.timeDeltas;
    if (deltas !== undefined) {
      if (!isNumberList(deltas)) throw new ProfileFormatError('"timeDeltas" must be an array', '$.timeDeltas');
      if (deltas.length !== out.samples.length) {
        throw new ProfileFormatError(
          `"timeDeltas" has ${deltas.length} entries for ${out.samples.length} samples`,
          '$.timeDeltas',
        );
      }
      const negative = deltas instanceof Int32Array ? checkInt32Deltas(deltas) : checkDeltas(deltas);
      // V8 occasionally reports a slightly negative delta; time never runs backwards.
      out.timeDeltas = negative ? withoutNegatives(deltas) : deltas;
    }
  }
  return out;
}

/** The nodes checked (see readCpuProfile), with their ids' look-up. */
function readNodes(raw: unknown[], owned: boolean): CheckedNodes {
  const nodes: CpuProfileNode[] = new Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    try {
      nodes[i] = readNode(raw[i], i, owned);
    } catch (err) {
      // A repeated id before this node is the first thing wrong, as the checks run in file order.
      nodeIndexOf(nodes.slice(0, i), true);
      throw err;
    }
  }
  const indexOf = nodeIndexOf(nodes, true);
  checkTree(nodes, indexOf);
  return { nodes, indexOf };
}

interface CheckedNodes {
  nodes: CpuProfileNode[];
  indexOf: (id: number) => number;
}

/** Node arrays checked ahead of their profile (checkOwnedNodesAhead): the result, or the error to throw in its turn. */
const checkedAhead = new WeakMap<unknown[], CheckedNodes | { error: unknown }>();

/**
 * Checks the nodes of a value to be given to readOwnedCpuProfile before the rest of it exists
 * (the streaming reader, while its number arrays are still read on another thread):
 * readOwnedCpuProfile then takes this result, or throws this error where it would have found it.
 */
export function checkOwnedNodesAhead(raw: unknown[]): void {
  if (raw.length === 0 || checkedAhead.has(raw)) return;
  try {
    checkedAhead.set(raw, readNodes(raw, true));
  } catch (err) {
    checkedAhead.set(raw, { error: err });
  }
}

/** Throws the first delta that is no number or takes the total too far; whether one is negative. */
function checkDeltas(deltas: SampleArray): boolean {
  let negative = false;
  let total = 0;
  for (let i = 0; i < deltas.length; i++) {
    const d: unknown = deltas[i];
    if (!isFiniteNumber(d)) throw new ProfileFormatError('a time delta is not a number', `$.timeDeltas[${i}]`);
    if (d < 0) negative = true;
    else total += d;
    if (total > MAX_SPAN_US)
      throw new ProfileFormatError('the time deltas add up to an implausibly long profile', `$.timeDeltas[${i}]`);
  }
  return negative;
}

/**
 * checkDeltas for an Int32Array (a file's deltas, tens of millions): every element is a finite
 * number, and the total is checked at the end; only a total too large is walked again, for the
 * same error at the same element.
 */
function checkInt32Deltas(deltas: Int32Array): boolean {
  let negative = false;
  let total = 0;
  for (let i = 0; i < deltas.length; i++) {
    const d = deltas[i];
    if (d < 0) negative = true;
    else total += d;
  }
  return total > MAX_SPAN_US ? checkDeltas(deltas) : negative;
}

/** A copy of the same kind with negative entries made 0. */
function withoutNegatives(deltas: SampleArray): SampleArray {
  const clamp = (d: number): number => (d < 0 ? 0 : d);
  if (deltas instanceof Int32Array) return Int32Array.from(deltas, clamp);
  if (deltas instanceof Float64Array) return Float64Array.from(deltas, clamp);
  return deltas.map(clamp);
}

/** The keys of a node, of its call frame and of a position tick, in the order readNode creates them. */
const NODE_KEYS = ['id', 'callFrame', 'hitCount', 'children', 'positionTicks'];
const CALL_FRAME_KEYS = ['functionName', 'scriptId', 'url', 'lineNumber', 'columnNumber'];
const TICK_KEYS = ['line', 'ticks'];

/** Whether the object's keys are some of `keys`, in that order (the caller checked the required ones). */
function hasKeysInOrder(o: object, keys: readonly string[]): boolean {
  let k = 0;
  for (const key in o) {
    while (k < keys.length && keys[k] !== key) k++;
    if (k === keys.length) return false;
    k++;
  }
  return true;
}

/** A checked node: a fresh copy, or the input's own object when `owned` and already in the copy's exact shape. */
function readNode(raw: unknown, i: number, owned: boolean): CpuProfileNode {
  checkNode(raw, i);
  return owned && hasCopyShape(raw) ? (raw as unknown as CpuProfileNode) : copyNode(raw);
}

function hasCopyShape(raw: Record<string, unknown>): boolean {
  const cf = raw.callFrame as Record<string, unknown>;
  if (typeof cf.scriptId !== 'string' || !hasKeysInOrder(raw, NODE_KEYS) || !hasKeysInOrder(cf, CALL_FRAME_KEYS))
    return false;
  const ticks = raw.positionTicks as object[] | undefined;
  if (ticks !== undefined)
    for (let k = 0; k < ticks.length; k++) if (!hasKeysInOrder(ticks[k], TICK_KEYS)) return false;
  return true;
}

/** Throws the first rule a node breaks. */
function checkNode(raw: unknown, i: number): asserts raw is Record<string, unknown> {
  const where = `$.nodes[${i}]`;
  if (!isObject(raw)) throw new ProfileFormatError('a node must be an object', where);
  if (!isInt(raw.id)) throw new ProfileFormatError('node "id" must be an integer', `${where}.id`);
  const cf = raw.callFrame;
  if (!isObject(cf)) throw new ProfileFormatError('node "callFrame" must be an object', `${where}.callFrame`);
  if (typeof cf.functionName !== 'string')
    throw new ProfileFormatError('"functionName" must be a string', `${where}.callFrame.functionName`);
  if (typeof cf.url !== 'string') throw new ProfileFormatError('"url" must be a string', `${where}.callFrame.url`);
  if (!isInt(cf.lineNumber))
    throw new ProfileFormatError('"lineNumber" must be an integer', `${where}.callFrame.lineNumber`);
  if (!isInt(cf.columnNumber))
    throw new ProfileFormatError('"columnNumber" must be an integer', `${where}.callFrame.columnNumber`);
  if (raw.hitCount !== undefined && (!isInt(raw.hitCount) || raw.hitCount < 0)) {
    throw new ProfileFormatError('"hitCount" must be a non-negative integer', `${where}.hitCount`);
  }
  if (raw.children !== undefined) {
    if (!Array.isArray(raw.children)) throw new ProfileFormatError('"children" must be an array', `${where}.children`);
    for (let c = 0; c < raw.children.length; c++) {
      if (!isInt(raw.children[c]))
        throw new ProfileFormatError('a child id must be an integer', `${where}.children[${c}]`);
    }
  }
  if (raw.positionTicks !== undefined) {
    if (!Array.isArray(raw.positionTicks))
      throw new ProfileFormatError('"positionTicks" must be an array', `${where}.positionTicks`);
    for (let k = 0; k < raw.positionTicks.length; k++) {
      const t: unknown = raw.positionTicks[k];
      if (!isObject(t) || !isInt(t.line) || !isInt(t.ticks) || t.line < 1 || t.ticks < 0) {
        throw new ProfileFormatError('a position tick is {line >= 1, ticks >= 0}', `${where}.positionTicks[${k}]`);
      }
    }
  }
}

/** A fresh node of a checked one: only the known fields, the script id as a string. */
function copyNode(raw: Record<string, unknown>): CpuProfileNode {
  const cf = raw.callFrame as Record<string, unknown>;
  const node: CpuProfileNode = {
    id: raw.id as number,
    callFrame: {
      functionName: cf.functionName as string,
      // Not String(x) for any x: an object from JSON such as {"toString": 1} throws a TypeError there.
      scriptId:
        typeof cf.scriptId === 'string' ? cf.scriptId : typeof cf.scriptId === 'number' ? String(cf.scriptId) : '0',
      url: cf.url as string,
      lineNumber: cf.lineNumber as number,
      columnNumber: cf.columnNumber as number,
    },
  };
  if (raw.hitCount !== undefined) node.hitCount = raw.hitCount as number;
  if (raw.children !== undefined) node.children = (raw.children as number[]).slice();
  if (raw.positionTicks !== undefined)
    node.positionTicks = (raw.positionTicks as PositionTick[]).map((t) => ({ line: t.line, ticks: t.ticks }));
  return node;
}

/** One parent per node, exactly one root, every node reachable from it: a tree, so no cycles. */
function checkTree(nodes: CpuProfileNode[], indexOf: (id: number) => number): void {
  const parentOf = new Int32Array(nodes.length).fill(-1);
  for (let i = 0; i < nodes.length; i++) {
    const children = nodes[i].children;
    if (!children) continue;
    for (const childId of children) {
      const c = indexOf(childId);
      if (c < 0) throw new ProfileFormatError(`child id ${childId} names no node`, `$.nodes[${i}].children`);
      if (c === i) throw new ProfileFormatError(`node ${childId} is its own child`, `$.nodes[${i}].children`);
      if (parentOf[c] !== -1) throw new ProfileFormatError(`node ${childId} has two parents`, `$.nodes[${i}].children`);
      parentOf[c] = i;
    }
  }
  let root = -1;
  for (let i = 0; i < nodes.length; i++) {
    if (parentOf[i] !== -1) continue;
    if (root !== -1)
      throw new ProfileFormatError(`nodes ${nodes[root].id} and ${nodes[i].id} both have no parent`, '$.nodes');
    root = i;
  }
  if (root === -1) throw new ProfileFormatError('every node has a parent: the children form a cycle', '$.nodes');
  // With one parent each and one root, a node not reachable from the root sits on a cycle.
  const seen = new Uint8Array(nodes.length);
  const stack = [root];
  let reached = 0;
  while (stack.length > 0) {
    const i = stack.pop()!;
    if (seen[i]) continue;
    seen[i] = 1;
    reached++;
    for (const childId of nodes[i].children ?? []) stack.push(indexOf(childId));
  }
  if (reached !== nodes.length)
    throw new ProfileFormatError(
      `${nodes.length - reached} nodes sit on a cycle, unreachable from the root`,
      '$.nodes',
    );
}

/** The input's own array once every entry is checked (see readCpuProfile). */
function readSamples(raw: unknown, indexOf: (id: number) => number): SampleArray {
  if (!isNumberList(raw)) throw new ProfileFormatError('"samples" must be an array', '$.samples');
  if (raw instanceof Int32Array) {
    // Integers all: only the look-up is left to check (tens of millions of them in a file's samples).
    for (let i = 0; i < raw.length; i++)
      if (indexOf(raw[i]) < 0) throw new ProfileFormatError(`sample ${i} names no node`, `$.samples[${i}]`);
    return raw;
  }
  for (let i = 0; i < raw.length; i++) {
    const id: unknown = raw[i];
    if (!isInt(id) || indexOf(id) < 0) throw new ProfileFormatError(`sample ${i} names no node`, `$.samples[${i}]`);
  }
  return raw;
}

/**
 * Node id → node index (-1 when no node has that id), for lookups once per sample (millions):
 * V8 numbers nodes 1…n, so a dense table, filled straight from the nodes, replaces a map's
 * hashing (and its millions of entries) whenever the ids are small. With `unique`, a repeated id
 * throws, at the first node that repeats one; else the last node of an id is the one found.
 */
export function nodeIndexOf(nodes: readonly { id: number }[], unique = false): (id: number) => number {
  const n = nodes.length;
  let max = -1;
  let min = 0;
  let inOrder = true;
  for (let i = 0; i < n; i++) {
    const id = nodes[i].id;
    if (id > max) max = id;
    if (id < min) min = id;
    if (id !== i + 1) inOrder = false;
  }
  // V8 numbers its nodes 1…n in order: the index is the id less one, no table to look in
  // (two look-ups per sample, in a table bigger than the caches, for a profile of millions).
  if (inOrder) return (id) => (id >= 1 && id <= n ? id - 1 : -1);
  if (min < 0 || max > 4 * n + 1024 || !Number.isInteger(max)) {
    const indexById = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const id = nodes[i].id;
      if (unique && indexById.has(id)) throw repeatedId(id, i);
      indexById.set(id, i);
    }
    return (id) => indexById.get(id) ?? -1;
  }
  const table = new Int32Array(max + 1).fill(-1);
  for (let i = 0; i < n; i++) {
    const id = nodes[i].id;
    if (unique && table[id] !== -1) throw repeatedId(id, i);
    table[id] = i;
  }
  return (id) => (id >= 0 && id <= max ? table[id] : -1);
}

const repeatedId = (id: number, i: number): ProfileFormatError =>
  new ProfileFormatError(`node id ${id} appears twice`, `$.nodes[${i}].id`);
