// Reading a raw .cpuprofile directly, without src/: the tests' independent answer to "how much
// time did samples with a workspace frame on their stack take".
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RawProfile } from './fixtures.ts';

/**
 * µs per sample: until the next sample starts; the last one until endTime, but no longer than the
 * median interval (the convention profile.ts documents). Negative deltas count as 0.
 */
export function sampleDurations(p: RawProfile): number[] {
  const samples = p.samples ?? [];
  const deltas = p.timeDeltas ?? [];
  const starts: number[] = [];
  let t = 0;
  for (let i = 0; i < samples.length; i++) {
    t += Math.max(0, deltas[i] ?? 0);
    starts.push(t);
  }
  const out = starts.map((s, i) => (i + 1 < starts.length ? starts[i + 1] - s : 0));
  const gaps = out.slice(0, -1).sort((a, b) => a - b);
  const median = gaps.length > 0 ? gaps[gaps.length >> 1] : 0;
  if (out.length > 0) {
    const tail = p.endTime - p.startTime - starts[starts.length - 1];
    out[out.length - 1] = Math.max(0, Math.min(tail > 0 ? tail : median, median));
  }
  // A sample stands for at most two intervals: a longer gap is time the thread did not run.
  return median > 0 ? out.map((d) => Math.min(d, 2 * median)) : out;
}

/** The stack of every node, as node objects from the top frame down to (root). */
export function stacks(p: RawProfile): Map<number, RawProfile['nodes']> {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const out = new Map<number, RawProfile['nodes']>();
  for (const n of p.nodes) {
    const stack: RawProfile['nodes'] = [];
    for (let id: number | undefined = n.id; id !== undefined; id = parentOf.get(id)) stack.push(byId.get(id)!);
    out.set(n.id, stack);
  }
  return out;
}

/** A frame of the app's own code: a file:// URL below root, not in node_modules. */
export function isWorkspaceUrl(url: string, root: string): boolean {
  if (!url.startsWith('file://')) return false;
  const rel = path.relative(root, fileURLToPath(url));
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) && !rel.split(path.sep).includes('node_modules');
}

/** ms of the samples whose stack holds at least one workspace frame. */
export function workspaceSampleMs(p: RawProfile, root: string): number {
  const all = stacks(p);
  const durations = sampleDurations(p);
  let us = 0;
  (p.samples ?? []).forEach((id, i) => {
    if (all.get(id)!.some((n) => isWorkspaceUrl(n.callFrame.url, root))) us += durations[i];
  });
  return us / 1000;
}

/** ms of all samples, and of those whose top frame is `(idle)`. */
export function sampledMs(p: RawProfile): { all: number; idle: number } {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const durations = sampleDurations(p);
  let all = 0;
  let idle = 0;
  (p.samples ?? []).forEach((id, i) => {
    all += durations[i];
    if (byId.get(id)!.callFrame.functionName === '(idle)') idle += durations[i];
  });
  return { all: all / 1000, idle: idle / 1000 };
}

export const sum = (values: readonly number[]): number => values.reduce((s, v) => s + v, 0);
