// V8's sampling heap profile as HeapProfiler.stopSampling gives it (saved as heap.heapprofile),
// and its reader: a file that is not one gets a HeapProfileError that says what is wrong.

export interface HeapCallFrame {
  functionName: string;
  scriptId: string;
  url: string;
  /** 0-based, -1 when unknown. */
  lineNumber: number;
  columnNumber: number;
}

export interface SamplingHeapNode {
  callFrame: HeapCallFrame;
  /** Bytes allocated with this node on top of the stack (an estimate scaled from the samples). */
  selfSize: number;
  id: number;
  children: SamplingHeapNode[];
}

export interface SamplingHeapProfile {
  head: SamplingHeapNode;
  samples?: Array<{ size: number; nodeId: number; ordinal: number }>;
}

export class HeapProfileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HeapProfileError';
  }
}

/** Checks that a parsed value is a sampling heap profile whose every node the analysis can trust. */
export function readHeapProfile(value: unknown): SamplingHeapProfile {
  const p = value as Partial<SamplingHeapProfile> | null;
  if (typeof p !== 'object' || p === null || typeof p.head !== 'object' || p.head === null) {
    throw new HeapProfileError(
      'not a sampling heap profile: no "head" node (expected what HeapProfiler.stopSampling returns)',
    );
  }
  const stack: unknown[] = [p.head];
  let count = 0;
  while (stack.length > 0) {
    const n = stack.pop() as Partial<SamplingHeapNode> | null;
    count++;
    if (typeof n !== 'object' || n === null) throw new HeapProfileError(`node ${count} is not an object`);
    const cf = n.callFrame as Partial<HeapCallFrame> | undefined;
    if (
      typeof cf !== 'object' ||
      cf === null ||
      typeof cf.functionName !== 'string' ||
      typeof cf.url !== 'string' ||
      typeof cf.lineNumber !== 'number'
    ) {
      throw new HeapProfileError(`node ${String(n.id)} has no valid callFrame`);
    }
    if (typeof n.selfSize !== 'number' || !Number.isFinite(n.selfSize) || n.selfSize < 0)
      throw new HeapProfileError(`node ${String(n.id)} has no valid selfSize`);
    if (n.children !== undefined && !Array.isArray(n.children))
      throw new HeapProfileError(`node ${String(n.id)} has children that are not a list`);
    for (const c of n.children ?? []) stack.push(c);
  }
  return p as SamplingHeapProfile;
}

export function parseHeapProfileText(text: string): SamplingHeapProfile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new HeapProfileError(`not JSON: ${(err as Error).message}`);
  }
  return readHeapProfile(value);
}
