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
const isNumberList = (v: unknown): v is SampleArray => Array.isArray(v) || v instanceof Int32Array || v instanceof Float64Array;

/** The input is not a usable CPU profile; `where` says which part broke the rule. */
export class ProfileFormatError extends Error {
  constructor(message: string, readonly where: string) {
    super(`${message} (at ${where})`);
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
  if (!isObject(input)) throw new ProfileFormatError('a CPU profile is a JSON object', '$');
  let value = input;
  // Chrome DevTools' "Save profile" and some tools wrap the profile: {profile: {...}}. A loop,
  // not a recursive call: a file can nest wrappers deeper than the stack.
  while (!Array.isArray(value.nodes) && isObject(value.profile)) value = value.profile;
  if (!Array.isArray(value.nodes)) throw new ProfileFormatError('"nodes" must be an array', '$.nodes');
  if (value.nodes.length === 0) throw new ProfileFormatError('the profile has no nodes', '$.nodes');
  if (!isFiniteNumber(value.startTime)) throw new ProfileFormatError('"startTime" must be a number', '$.startTime');
  if (!isFiniteNumber(value.endTime)) throw new ProfileFormatError('"endTime" must be a number', '$.endTime');
  if (value.endTime - value.startTime > MAX_SPAN_US) throw new ProfileFormatError('"endTime" is implausibly far after "startTime"', '$.endTime');

  const nodes: CpuProfileNode[] = new Array(value.nodes.length);
  const indexById = new Map<number, number>();
  for (let i = 0; i < value.nodes.length; i++) {
    const node = readNode(value.nodes[i], i);
    if (indexById.has(node.id)) throw new ProfileFormatError(`node id ${node.id} appears twice`, `$.nodes[${i}].id`);
    indexById.set(node.id, i);
    nodes[i] = node;
  }
  checkTree(nodes, indexById);

  const out: CpuProfile = { nodes, startTime: value.startTime, endTime: value.endTime };
  if (value.samples !== undefined) {
    out.samples = readSamples(value.samples, indexById);
    const deltas = value.timeDeltas;
    if (deltas !== undefined) {
      if (!isNumberList(deltas)) throw new ProfileFormatError('"timeDeltas" must be an array', '$.timeDeltas');
      if (deltas.length !== out.samples.length) {
        throw new ProfileFormatError(`"timeDeltas" has ${deltas.length} entries for ${out.samples.length} samples`, '$.timeDeltas');
      }
      let negative = false;
      let total = 0;
      for (let i = 0; i < deltas.length; i++) {
        const d: unknown = deltas[i];
        if (!isFiniteNumber(d)) throw new ProfileFormatError('a time delta is not a number', `$.timeDeltas[${i}]`);
        if (d < 0) negative = true;
        else total += d;
        if (total > MAX_SPAN_US) throw new ProfileFormatError('the time deltas add up to an implausibly long profile', `$.timeDeltas[${i}]`);
      }
      // V8 occasionally reports a slightly negative delta; time never runs backwards.
      out.timeDeltas = negative ? withoutNegatives(deltas) : deltas;
    }
  }
  return out;
}

/** A copy of the same kind with negative entries made 0. */
function withoutNegatives(deltas: SampleArray): SampleArray {
  const clamp = (d: number): number => (d < 0 ? 0 : d);
  if (deltas instanceof Int32Array) return Int32Array.from(deltas, clamp);
  if (deltas instanceof Float64Array) return Float64Array.from(deltas, clamp);
  return deltas.map(clamp);
}

function readNode(raw: unknown, i: number): CpuProfileNode {
  const where = `$.nodes[${i}]`;
  if (!isObject(raw)) throw new ProfileFormatError('a node must be an object', where);
  if (!isInt(raw.id)) throw new ProfileFormatError('node "id" must be an integer', `${where}.id`);
  const cf = raw.callFrame;
  if (!isObject(cf)) throw new ProfileFormatError('node "callFrame" must be an object', `${where}.callFrame`);
  if (typeof cf.functionName !== 'string') throw new ProfileFormatError('"functionName" must be a string', `${where}.callFrame.functionName`);
  if (typeof cf.url !== 'string') throw new ProfileFormatError('"url" must be a string', `${where}.callFrame.url`);
  if (!isInt(cf.lineNumber)) throw new ProfileFormatError('"lineNumber" must be an integer', `${where}.callFrame.lineNumber`);
  if (!isInt(cf.columnNumber)) throw new ProfileFormatError('"columnNumber" must be an integer', `${where}.callFrame.columnNumber`);
  const node: CpuProfileNode = {
    id: raw.id,
    callFrame: {
      functionName: cf.functionName,
      // Not String(x) for any x: an object from JSON such as {"toString": 1} throws a TypeError there.
      scriptId: typeof cf.scriptId === 'string' ? cf.scriptId : typeof cf.scriptId === 'number' ? String(cf.scriptId) : '0',
      url: cf.url,
      lineNumber: cf.lineNumber,
      columnNumber: cf.columnNumber,
    },
  };
  if (raw.hitCount !== undefined) {
    if (!isInt(raw.hitCount) || raw.hitCount < 0) throw new ProfileFormatError('"hitCount" must be a non-negative integer', `${where}.hitCount`);
    node.hitCount = raw.hitCount;
  }
  if (raw.children !== undefined) {
    if (!Array.isArray(raw.children)) throw new ProfileFormatError('"children" must be an array', `${where}.children`);
    for (let c = 0; c < raw.children.length; c++) {
      if (!isInt(raw.children[c])) throw new ProfileFormatError('a child id must be an integer', `${where}.children[${c}]`);
    }
    node.children = (raw.children as number[]).slice();
  }
  if (raw.positionTicks !== undefined) {
    if (!Array.isArray(raw.positionTicks)) throw new ProfileFormatError('"positionTicks" must be an array', `${where}.positionTicks`);
    node.positionTicks = raw.positionTicks.map((t, k) => {
      if (!isObject(t) || !isInt(t.line) || !isInt(t.ticks) || t.line < 1 || t.ticks < 0) {
        throw new ProfileFormatError('a position tick is {line >= 1, ticks >= 0}', `${where}.positionTicks[${k}]`);
      }
      return { line: t.line, ticks: t.ticks };
    });
  }
  return node;
}

/** One parent per node, exactly one root, every node reachable from it: a tree, so no cycles. */
function checkTree(nodes: CpuProfileNode[], indexById: Map<number, number>): void {
  const parentOf = new Int32Array(nodes.length).fill(-1);
  for (let i = 0; i < nodes.length; i++) {
    const children = nodes[i].children;
    if (!children) continue;
    for (const childId of children) {
      const c = indexById.get(childId);
      if (c === undefined) throw new ProfileFormatError(`child id ${childId} names no node`, `$.nodes[${i}].children`);
      if (c === i) throw new ProfileFormatError(`node ${childId} is its own child`, `$.nodes[${i}].children`);
      if (parentOf[c] !== -1) throw new ProfileFormatError(`node ${childId} has two parents`, `$.nodes[${i}].children`);
      parentOf[c] = i;
    }
  }
  let root = -1;
  for (let i = 0; i < nodes.length; i++) {
    if (parentOf[i] !== -1) continue;
    if (root !== -1) throw new ProfileFormatError(`nodes ${nodes[root].id} and ${nodes[i].id} both have no parent`, '$.nodes');
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
    for (const childId of nodes[i].children ?? []) stack.push(indexById.get(childId)!);
  }
  if (reached !== nodes.length) throw new ProfileFormatError(`${nodes.length - reached} nodes sit on a cycle, unreachable from the root`, '$.nodes');
}

/** The input's own array once every entry is checked (see readCpuProfile). */
function readSamples(raw: unknown, indexById: Map<number, number>): SampleArray {
  if (!isNumberList(raw)) throw new ProfileFormatError('"samples" must be an array', '$.samples');
  const indexOf = nodeIndexer(indexById);
  for (let i = 0; i < raw.length; i++) {
    const id: unknown = raw[i];
    if (!isInt(id) || indexOf(id) < 0) throw new ProfileFormatError(`sample ${i} names no node`, `$.samples[${i}]`);
  }
  return raw;
}

/**
 * Node id → node index (-1 when no node has that id), for lookups once per sample (millions):
 * V8 numbers nodes 1…n, so a dense table replaces the map's hashing whenever the ids are small.
 */
export function nodeIndexer(indexById: ReadonlyMap<number, number>): (id: number) => number {
  let max = -1;
  for (const id of indexById.keys()) {
    if (id < 0) return (id) => indexById.get(id) ?? -1;
    if (id > max) max = id;
  }
  if (max > 4 * indexById.size + 1024) return (id) => indexById.get(id) ?? -1;
  const table = new Int32Array(max + 1).fill(-1);
  for (const [id, i] of indexById) table[id] = i;
  return (id) => (id >= 0 && id <= max ? table[id] : -1);
}
