// Small hand-written CPU profiles for edge cases, built from a nested description instead of
// node ids. Every sample lasts `intervalUs` (1 ms by default): a node with `self: 3` is on top of
// the stack in 3 samples, so times in the analysis are whole milliseconds. The first sample is
// taken at startTime unless `firstDeltaUs` says otherwise.
import { pathToFileURL } from 'node:url';
import type { CpuProfile } from '../../src/core/profile/cpuprofile.ts';
import type { RawProfile } from './fixtures.ts';

export interface FrameSpec {
  /** V8's functionName: "" for anonymous functions. */
  name: string;
  /** Absolute path (turned into a file:// URL), `node:…`, or "" for native and synthetic frames. */
  file?: string;
  /** 0-based, as V8 gives them; -1 for native code. */
  line0?: number;
  col0?: number;
  /** Samples with this frame on top. */
  self?: number;
  /** positionTicks: [1-based line, ticks]. */
  ticks?: Array<[number, number]>;
  children?: FrameSpec[];
}

export interface BuildOptions {
  intervalUs?: number;
  /** Leave out `samples`/`timeDeltas` (old format: hit counts only). */
  hitCountsOnly?: boolean;
  /** Interleave the samples of different nodes instead of grouping them (same totals). */
  interleave?: boolean;
  /**
   * µs from startTime to the first sample (V8's timeDeltas[0]; 7–57 ms in real captures).
   * Default 0, so the samples cover the whole profile and percentages come out exact.
   */
  firstDeltaUs?: number;
}

const toUrl = (file: string): string => (file.startsWith('/') ? pathToFileURL(file).href : file);

/** `(root)` with the given frames as children; samples in tree order, one interval apart. */
export function buildProfile(top: FrameSpec[], options: BuildOptions = {}): RawProfile {
  const interval = options.intervalUs ?? 1000;
  const nodes: RawProfile['nodes'] = [];
  const selfOf: Array<{ id: number; count: number }> = [];
  let nextId = 1;
  const add = (spec: FrameSpec): number => {
    const id = nextId++;
    const native = !spec.file;
    const node: RawProfile['nodes'][number] = {
      id,
      callFrame: {
        functionName: spec.name,
        scriptId: native ? '0' : String(100 + id),
        url: spec.file ? toUrl(spec.file) : '',
        lineNumber: spec.line0 ?? (native ? -1 : 0),
        columnNumber: spec.col0 ?? (native ? -1 : 0),
      },
      hitCount: spec.self ?? 0,
    };
    nodes.push(node);
    if (spec.ticks) node.positionTicks = spec.ticks.map(([line, ticks]) => ({ line, ticks }));
    if (spec.self) selfOf.push({ id, count: spec.self });
    const children = (spec.children ?? []).map(add);
    if (children.length > 0) node.children = children;
    return id;
  };
  add({ name: '(root)', children: top });

  const samples: number[] = [];
  if (options.interleave) {
    const left = selfOf.map((s) => ({ ...s }));
    while (left.some((s) => s.count > 0)) {
      for (const s of left)
        if (s.count > 0) {
          samples.push(s.id);
          s.count--;
        }
    }
  } else {
    for (const s of selfOf) for (let k = 0; k < s.count; k++) samples.push(s.id);
  }
  const startTime = 1_000_000;
  const first = options.firstDeltaUs ?? 0;
  // The last sample lasts a full interval, until endTime.
  const profile: RawProfile = { nodes, startTime, endTime: startTime + first + samples.length * interval };
  if (!options.hitCountsOnly) {
    profile.samples = samples;
    profile.timeDeltas = samples.map((_, i) => (i === 0 ? first : interval));
  }
  return profile;
}

/** Node ids by function name (first match), for tests that edit a built profile. */
export function nodeId(profile: RawProfile, name: string): number {
  const node = profile.nodes.find((n) => n.callFrame.functionName === name);
  if (!node) throw new Error(`no node named ${name}`);
  return node.id;
}

/** A read profile as plain JSON (typed arrays as arrays), or the error's name and message: what two readers must agree on. */
export function outcome(read: () => CpuProfile): string {
  try {
    const p = read();
    return JSON.stringify({
      ...p,
      samples: p.samples && Array.from(p.samples),
      timeDeltas: p.timeDeltas && Array.from(p.timeDeltas),
    });
  } catch (err) {
    return `${(err as Error).name}: ${(err as Error).message}`;
  }
}
