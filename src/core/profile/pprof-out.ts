// A CPU profile → pprof (profile.proto, gzipped), so a run can be pushed to a continuous profiler
// (Pyroscope, Parca, Datadog) and compared with the fleet there. Encoding is pprof-format's.
// Sample types: samples/count and cpu/nanoseconds, like Go's CPU profiles. Each stack's leaf
// carries the lines V8 ticked in it (position ticks, its self time split between them); callers
// are placed at their function's start, as V8's profile has no calling lines.
import { gzipSync } from 'node:zlib';
import { Function as PprofFunction, Line, Location, Profile, Sample, StringTable, ValueType } from 'pprof-format';
import type { CpuProfile } from './cpuprofile.ts';
import { fileOfUrl } from './frame-urls.ts';
import { buildProfileTree } from './profile-tree.ts';

/** The profile as gzipped pprof bytes. Only nodes with samples make pprof samples; the tree's shape is kept through their stacks. */
export function cpuProfileToPprof(profile: CpuProfile): Buffer {
  const tree = buildProfileTree(profile);
  const n = tree.parent.length;
  const counts = new Float64Array(n);
  const hitsOnly = !profile.samples || profile.samples.length === 0;
  for (let s = 0; s < tree.sampleNode.length; s++) counts[tree.sampleNode[s]] += 1;
  if (hitsOnly && tree.sampleNode.length !== tree.sampleCount)
    // More hits than were expanded: one entry per node, its count from the node.
    for (let i = 0; i < n; i++) counts[i] = profile.nodes[i].hitCount ?? 0;

  const strings = new StringTable();
  const functions: PprofFunction[] = [];
  const functionOf = new Map<number, number>(); // frame index → function id
  const locations: Location[] = [];
  const locationOf = new Map<string, number>(); // function id:line → location id
  const fnId = (frame: number): number => {
    let id = functionOf.get(frame);
    if (id === undefined) {
      const f = tree.frames[frame];
      id = functions.length + 1;
      const name = strings.dedup(f.functionName || '(anonymous)');
      functions.push(
        new PprofFunction({
          id,
          name,
          systemName: name,
          filename: strings.dedup(fileOfUrl(f.url)),
          startLine: f.line0 >= 0 ? f.line0 + 1 : 0,
        }),
      );
      functionOf.set(frame, id);
    }
    return id;
  };
  const locId = (frame: number, line: number): number => {
    const functionId = fnId(frame);
    const key = `${functionId}:${line}`;
    let id = locationOf.get(key);
    if (id === undefined) {
      id = locations.length + 1;
      locations.push(new Location({ id, line: [new Line({ functionId, line })] }));
      locationOf.set(key, id);
    }
    return id;
  };

  const samples: Sample[] = [];
  for (let i = 0; i < n; i++) {
    const us = tree.selfUs[i];
    if (!(us > 0) || i === tree.root) continue;
    // The callers, leaf's parent first (pprof lists a stack leaf first), at their function's start.
    const callers: number[] = [];
    for (let p = tree.parent[i]; p >= 0 && p !== tree.root; p = tree.parent[p]) {
      const frame = tree.nodeFrame[p];
      callers.push(locId(frame, Math.max(0, tree.frames[frame].line0 + 1)));
    }
    const frame = tree.nodeFrame[i];
    const ticks = (tree.positionTicks[i] ?? []).filter((t) => t.ticks > 0);
    const tickTotal = ticks.reduce((sum, t) => sum + t.ticks, 0);
    const parts =
      tickTotal > 0
        ? ticks.map((t) => ({ line: t.line, share: t.ticks / tickTotal }))
        : [{ line: Math.max(0, tree.frames[frame].line0 + 1), share: 1 }];
    for (const part of parts) {
      samples.push(
        new Sample({
          locationId: [locId(frame, part.line), ...callers],
          value: [Math.round(counts[i] * part.share), Math.round(us * part.share * 1000)],
        }),
      );
    }
  }

  const cpu = new ValueType({ type: strings.dedup('cpu'), unit: strings.dedup('nanoseconds') });
  const pprof = new Profile({
    sampleType: [new ValueType({ type: strings.dedup('samples'), unit: strings.dedup('count') }), cpu],
    sample: samples,
    location: locations,
    function: functions,
    stringTable: strings,
    timeNanos: Math.round(profile.startTime * 1000),
    durationNanos: Math.round(tree.durationUs * 1000),
    periodType: cpu,
    period: Math.round(tree.intervalUs * 1000),
  });
  return gzipSync(pprof.encode());
}
