// Profiles taken in consecutive segments (the profiler is stopped and restarted every few
// seconds, so an app that is killed mid-run leaves the segments taken so far) → one profile
// with one tree and one continuous timeline. Pure; the inputs are not changed.
import type { CpuProfile, CpuProfileNode, PositionTick } from './cpuprofile.ts';

interface MergedNode {
  node: CpuProfileNode;
  ticks: Map<number, number>;
  childByKey: Map<string, number>;
}

const key = (n: CpuProfileNode): string => {
  const cf = n.callFrame;
  return `${cf.url}\u0000${cf.lineNumber}\u0000${cf.columnNumber}\u0000${cf.functionName}`;
};

/** Merges profiles of consecutive windows of one process; their nodes are matched by call path. */
export function mergeProfiles(profiles: readonly CpuProfile[]): CpuProfile {
  if (profiles.length === 0) throw new Error('mergeProfiles needs at least one profile');
  if (profiles.length === 1) return profiles[0];
  const merged: MergedNode[] = [];
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  let lastSampleTime: number | undefined;

  for (const p of profiles) {
    const byId = new Map(p.nodes.map((n) => [n.id, n]));
    const parentOf = new Map<number, number>();
    for (const n of p.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
    const root = p.nodes.find((n) => !parentOf.has(n.id))!;
    // Map this profile's ids onto merged indices, parents first.
    const mapped = new Map<number, number>();
    const stack: Array<{ id: number; into: number | undefined }> = [{ id: root.id, into: undefined }];
    while (stack.length > 0) {
      const { id, into } = stack.pop()!;
      const n = byId.get(id)!;
      let index: number;
      if (into === undefined) {
        if (merged.length === 0) merged.push(fresh(n));
        index = 0;
      } else {
        const k = key(n);
        const existing = merged[into].childByKey.get(k);
        if (existing !== undefined) index = existing;
        else {
          index = merged.length;
          merged.push(fresh(n));
          merged[into].childByKey.set(k, index);
        }
      }
      const m = merged[index];
      m.node.hitCount = (m.node.hitCount ?? 0) + (n.hitCount ?? 0);
      for (const t of n.positionTicks ?? []) m.ticks.set(t.line, (m.ticks.get(t.line) ?? 0) + t.ticks);
      mapped.set(id, index);
      for (const c of n.children ?? []) stack.push({ id: c, into: index });
    }
    // One timeline. Between two segments the profiler was stopped and restarted: that moment
    // was not sampled, so the first sample of a segment is placed one sampling step after the
    // last of the previous one instead of giving the pause to the previous sample.
    let t = p.startTime;
    (p.samples ?? []).forEach((id, i) => {
      const d = p.timeDeltas?.[i] ?? 0;
      t += d;
      samples.push(mapped.get(id)! + 1);
      timeDeltas.push(i === 0 && lastSampleTime !== undefined ? Math.max(0, Math.min(t - lastSampleTime, d)) : d);
      lastSampleTime = t;
    });
  }

  const nodes: CpuProfileNode[] = merged.map((m, i) => {
    const children = [...m.childByKey.values()].map((c) => c + 1);
    const ticks: PositionTick[] = [...m.ticks].map(([line, count]) => ({ line, ticks: count }));
    return {
      ...m.node,
      id: i + 1,
      ...(children.length > 0 ? { children } : {}),
      ...(ticks.length > 0 ? { positionTicks: ticks } : {}),
    };
  });
  return {
    nodes,
    startTime: profiles[0].startTime,
    endTime: profiles[profiles.length - 1].endTime,
    samples,
    timeDeltas,
  };
}

function fresh(n: CpuProfileNode): MergedNode {
  return { node: { id: 0, callFrame: { ...n.callFrame }, hitCount: 0 }, ticks: new Map(), childByKey: new Map() };
}

/**
 * Where a moment of the segments' own clock (µs, V8's monotonic clock: process.hrtime) lies on
 * the timeline of `mergeProfiles(profiles)` (µs from its startTime), or undefined when no
 * segment was recording then (the profiler was stopped, or restarting between two segments).
 */
export function mergedClock(profiles: readonly CpuProfile[]): (us: number) => number | undefined {
  const spans: Array<{ from: number; to: number; shift: number }> = [];
  let merged = 0;
  let lastSampleTime: number | undefined;
  for (const p of profiles) {
    let t = p.startTime;
    let shift: number | undefined;
    (p.samples ?? []).forEach((_, i) => {
      const d = p.timeDeltas?.[i] ?? 0;
      t += d;
      // The same placement as mergeProfiles: a segment's first sample one step after the last one.
      merged += i === 0 && lastSampleTime !== undefined ? Math.max(0, Math.min(t - lastSampleTime, d)) : d;
      shift ??= merged - t;
      lastSampleTime = t;
    });
    if (shift !== undefined) spans.push({ from: p.startTime, to: p.endTime, shift });
  }
  return (us) => {
    const span = spans.find((s) => us >= s.from && us <= s.to);
    return span ? us + span.shift : undefined;
  };
}
