// V8's sampling heap profile as HeapProfiler.stopSampling gives it (saved as heap.heapprofile).

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
