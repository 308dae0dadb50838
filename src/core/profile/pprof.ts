// pprof (profile.proto, usually gzipped: what Pyroscope, Parca, Datadog, Google Cloud Profiler and
// @datadog/pprof write) → the profile models the analysis already reads. A CPU or wall profile
// becomes a CpuProfile (one node per call path of functions, the leaf's lines as position ticks),
// a heap profile a SamplingHeapProfile (bytes per call path). Decoding is pprof-format's.
//
// What pprof does not have, honestly: the order of samples in time (a pprof sample is a stack
// with summed values), so the samples of the CpuProfile are laid out grouped by stack and carry
// no heat map; and a Node producer gives no function start lines (Function.start_line is 0), so
// analysis/attribution/function-heads.ts places them from the sources.
import { gunzipSync } from 'node:zlib';
import { pathToFileURL } from 'node:url';
import { Profile } from 'pprof-format';
import { type CpuProfile, type CpuProfileNode, ProfileFormatError } from './cpuprofile.ts';
import type { SamplingHeapNode, SamplingHeapProfile } from './heap-profile.ts';

/** What a pprof file held, read into the engine's models. */
export type PprofContent =
  | {
      kind: 'cpu';
      profile: CpuProfile;
      /** The sample type read, e.g. "cpu/nanoseconds". */
      valueType: string;
      /** Per node id: lines (1-based) that ran in that frame, as pprof gives them: they place function heads. */
      frameLines: Map<number, number[]>;
    }
  | { kind: 'heap'; profile: SamplingHeapProfile; valueType: string };

/** Whether these first bytes start a pprof file: gzip (pprof's usual wrapping) or a Profile message. */
export function looksLikePprof(head: Uint8Array): boolean {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return true;
  // An uncompressed Profile starts with field 1 (sample_type, length-delimited): tag 0x0a,
  // then a ValueType whose first field is 1 (type, varint): 0x08. JSON and text never do.
  return head.length >= 3 && head[0] === 0x0a && head[2] === 0x08;
}

/** A gzip bomb must not take the machine: no real profile unpacks to more than this. */
const MAX_UNZIPPED_BYTES = 2 ** 31 - 1;

/** The samples a CpuProfile gets at most: beyond, hit counts are scaled down (sub-sample stacks vanish). */
const MAX_SAMPLES = 4_000_000;

const TIME_TYPES = ['cpu', 'wall'];
const COUNT_TYPES = ['samples', 'sample'];
const HEAP_TYPES = ['alloc_space', 'inuse_space', 'space'];
const NS_PER_UNIT: Record<string, number> = { nanoseconds: 1, microseconds: 1e3, milliseconds: 1e6, seconds: 1e9 };

export function readPprof(bytes: Uint8Array): PprofContent {
  let raw: Uint8Array = bytes;
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      raw = gunzipSync(bytes, { maxOutputLength: MAX_UNZIPPED_BYTES });
    } catch (err) {
      throw new ProfileFormatError(`not a readable gzipped pprof file: ${(err as Error).message}`);
    }
  }
  let p: Profile;
  try {
    p = Profile.decode(raw);
  } catch (err) {
    throw new ProfileFormatError(`not a pprof profile (profile.proto): ${(err as Error).message}`);
  }
  return new PprofReader(p).read();
}

class PprofReader {
  private readonly strings: string[];
  private readonly functions = new Map<number, { name: string; url: string; startLine: number }>();
  private readonly locations = new Map<number, Array<{ fn: number; line: number }>>();

  constructor(private readonly p: Profile) {
    this.strings = p.stringTable.strings;
    for (const f of p.function) {
      const file = this.str(f.filename);
      this.functions.set(Number(f.id), { name: this.str(f.name), url: urlOf(file), startLine: Number(f.startLine) });
    }
    for (const l of p.location) {
      // pprof lists a location's lines leaf first (inlined functions before the one they sit in).
      this.locations.set(
        Number(l.id),
        l.line.map((x) => ({ fn: Number(x.functionId), line: Number(x.line) })),
      );
    }
  }

  private str(i: number | bigint): string {
    return this.strings[Number(i)] ?? '';
  }

  read(): PprofContent {
    const types = this.p.sampleType.map((t) => ({ type: this.str(t.type), unit: this.str(t.unit) }));
    const named = (names: string[], unit?: (u: string) => boolean): number => {
      for (const name of names) {
        const i = types.findIndex((t) => t.type === name && (!unit || unit(t.unit)));
        if (i >= 0) return i;
      }
      return -1;
    };
    const timeAt = named(TIME_TYPES, (u) => u in NS_PER_UNIT);
    const countAt = named(COUNT_TYPES, (u) => u === 'count');
    if (timeAt >= 0 || countAt >= 0) return this.readCpu(types, timeAt, countAt);
    const heapAt = named(HEAP_TYPES, (u) => u === 'bytes');
    if (heapAt >= 0) return this.readHeap(types, heapAt);
    const have = types.map((t) => `${t.type}/${t.unit}`).join(', ') || 'none';
    throw new ProfileFormatError(
      `a pprof profile of ${have}: Hotline reads CPU or wall time (cpu, wall, samples) and heap bytes (alloc_space, inuse_space)`,
    );
  }

  /** Each sample's frames, outermost first, as (function id, line). */
  private framesOf(locationIds: Array<number | bigint>): Array<{ fn: number; line: number }> {
    const frames: Array<{ fn: number; line: number }> = [];
    for (let k = locationIds.length - 1; k >= 0; k--) {
      const lines = this.locations.get(Number(locationIds[k]));
      if (!lines) throw new ProfileFormatError(`a sample names location ${locationIds[k]}, which is not in the file`);
      for (let j = lines.length - 1; j >= 0; j--) {
        if (!this.functions.has(lines[j].fn))
          throw new ProfileFormatError(
            `location ${locationIds[k]} names function ${lines[j].fn}, which is not in the file`,
          );
        frames.push(lines[j]);
      }
    }
    return frames;
  }

  private readCpu(types: Array<{ type: string; unit: string }>, timeAt: number, countAt: number): PprofContent {
    const nsPerUnit = timeAt >= 0 ? NS_PER_UNIT[types[timeAt].unit] : 0;
    const periodUnit = this.p.periodType ? this.str(this.p.periodType.unit) : '';
    const periodUs = (Number(this.p.period) * (NS_PER_UNIT[periodUnit] ?? 0)) / 1000;
    const root: CpuProfileNode = { id: 1, callFrame: frame('(root)', '', -1), children: [] };
    const nodes = [root];
    const childOf = new Map<string, CpuProfileNode>();
    const frameLines = new Map<number, number[]>();
    const nodeUs: number[] = [0];
    const leafLines: Array<Map<number, number>> = [new Map()];
    let totalUs = 0;
    let totalCount = 0;
    for (const s of this.p.sample) {
      const count = countAt >= 0 ? Number(s.value[countAt] ?? 0) : 0;
      // Time from the time value, else the sample count × the period (Go's samples/count + cpu period).
      const us = timeAt >= 0 ? (Number(s.value[timeAt] ?? 0) * nsPerUnit) / 1000 : count * (periodUs || 1000);
      if (!(us > 0) || !Number.isFinite(us)) continue;
      let node = root;
      let line = 0;
      for (const f of this.framesOf(s.locationId)) {
        const key = `${node.id}:${f.fn}`;
        let child = childOf.get(key);
        if (!child) {
          const fn = this.functions.get(f.fn)!;
          child = {
            id: nodes.length + 1,
            callFrame: frame(fn.name, fn.url, fn.startLine > 0 ? fn.startLine - 1 : -1),
            children: [],
          };
          childOf.set(key, child);
          node.children!.push(child.id);
          nodes.push(child);
          nodeUs.push(0);
          leafLines.push(new Map());
        }
        node = child;
        line = f.line;
        if (line > 0) addLine(frameLines, node.id, line);
      }
      nodeUs[node.id - 1] += us;
      if (line > 0) {
        const lines = leafLines[node.id - 1];
        lines.set(line, (lines.get(line) ?? 0) + us);
      }
      totalUs += us;
      totalCount += count > 0 ? count : 0;
    }
    if (totalUs === 0) throw new ProfileFormatError('the pprof profile has no samples with time');
    // About one sample per sample the producer took (its count, where the file has one), each
    // node's time shared exactly among its own: the analysis weights samples by their length.
    const hits = Math.min(
      MAX_SAMPLES,
      Math.max(1, Math.round(totalCount > 0 ? totalCount : totalUs / (periodUs || 1000))),
    );
    const q = totalUs / hits;
    const hitsOf = nodeUs.map((us) => (us > 0 ? Math.max(1, Math.round(us / q)) : 0));
    // The last sample's length is capped at the median interval (profile/profile-tree.ts): give that place to
    // the node whose samples are shortest.
    const order = nodes.map((_, i) => i).filter((i) => hitsOf[i] > 0);
    let last = 0;
    for (let k = 1; k < order.length; k++)
      if (nodeUs[order[k]] / hitsOf[order[k]] < nodeUs[order[last]] / hitsOf[order[last]]) last = k;
    order.push(order.splice(last, 1)[0]);
    let sampleCount = 0;
    for (const h of hitsOf) sampleCount += h;
    const samples = new Int32Array(sampleCount);
    // V8's deltas: each is the time since the sample before, so the first is 0 and a sample's
    // length is the next delta (the last one's: up to endTime).
    const timeDeltas = new Float64Array(sampleCount);
    let at = 0;
    for (const i of order) {
      const h = hitsOf[i];
      nodes[i].hitCount = h;
      samples.fill(nodes[i].id, at, at + h);
      timeDeltas.fill(nodeUs[i] / h, at + 1, Math.min(at + h + 1, sampleCount));
      at += h;
      const ticks = [...leafLines[i]].map(([l, lineUs]) => ({ line: l, ticks: Math.round((lineUs / nodeUs[i]) * h) }));
      const kept = ticks.filter((t) => t.ticks > 0);
      if (kept.length > 0) nodes[i].positionTicks = kept;
    }
    for (const n of nodes) if (n.children!.length === 0) delete n.children;
    const startTime = Math.round(Number(this.p.timeNanos) / 1000);
    const profile: CpuProfile = { nodes, startTime, endTime: startTime + totalUs, samples, timeDeltas };
    const t = types[timeAt >= 0 ? timeAt : countAt];
    return { kind: 'cpu', profile, valueType: `${t.type}/${t.unit}`, frameLines };
  }

  private readHeap(types: Array<{ type: string; unit: string }>, at: number): PprofContent {
    let nextId = 1;
    const head: SamplingHeapNode = { callFrame: frame('(root)', '', -1), selfSize: 0, id: nextId++, children: [] };
    const childOf = new Map<string, SamplingHeapNode>();
    for (const s of this.p.sample) {
      const bytes = Number(s.value[at] ?? 0);
      if (!(bytes > 0) || !Number.isFinite(bytes)) continue;
      let node = head;
      for (const f of this.framesOf(s.locationId)) {
        // A heap frame is placed by its line: @datadog/pprof's is the function's start (V8's sampling
        // heap profile has no other), Go's the allocating line; either is the best line there is.
        const key = `${node.id}:${f.fn}:${f.line}`;
        let child = childOf.get(key);
        if (!child) {
          const fn = this.functions.get(f.fn)!;
          const line = f.line > 0 ? f.line : fn.startLine;
          child = {
            callFrame: frame(fn.name, fn.url, line > 0 ? line - 1 : -1),
            selfSize: 0,
            id: nextId++,
            children: [],
          };
          childOf.set(key, child);
          node.children.push(child);
        }
        node = child;
      }
      node.selfSize += bytes;
    }
    return { kind: 'heap', profile: { head }, valueType: `${types[at].type}/${types[at].unit}` };
  }
}

/** A few distinct lines per frame are enough to find its function (analysis/attribution/function-heads.ts). */
const MAX_FRAME_LINES = 8;

function addLine(frameLines: Map<number, number[]>, id: number, line: number): void {
  let lines = frameLines.get(id);
  if (!lines) frameLines.set(id, (lines = []));
  if (lines.length < MAX_FRAME_LINES && !lines.includes(line)) lines.push(line);
}

function frame(functionName: string, url: string, lineNumber: number): CpuProfileNode['callFrame'] {
  return { functionName: plainName(functionName), scriptId: '0', url, lineNumber, columnNumber: -1 };
}

/** @datadog/pprof names anonymous functions "(anonymous:L#12:C#5)": V8 calls them "". */
const plainName = (name: string): string => (/^\(anonymous(:L#\d+(:C#\d+)?)?\)$/.test(name) ? '' : name);

/** A pprof file name as V8 writes a script URL: absolute paths as file:// URLs, the rest (node:…, "") as it is. */
function urlOf(file: string): string {
  return file.startsWith('/') ? pathToFileURL(file).href : file;
}
