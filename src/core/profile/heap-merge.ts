// Several sampling heap profiles of one thread (one per profiled sub-window) → one: the trees are
// merged by call path (the same frames from the root add their bytes), the samples are kept with
// their nodes renumbered. Pure: the inputs are not changed.
import type { HeapCallFrame, SamplingHeapNode, SamplingHeapProfile } from './heap-profile.ts';

const frameKey = (f: HeapCallFrame): string =>
  `${f.functionName}\u0000${f.url}\u0000${f.lineNumber}\u0000${f.columnNumber}`;

export function mergeHeapProfiles(profiles: SamplingHeapProfile[]): SamplingHeapProfile {
  if (profiles.length === 0) throw new Error('mergeHeapProfiles: no profile to merge');
  if (profiles.length === 1) return profiles[0];
  let nextId = 1;
  const copy = (n: SamplingHeapNode): SamplingHeapNode => ({
    callFrame: n.callFrame,
    selfSize: 0,
    id: nextId++,
    children: [],
  });
  const head = copy(profiles[0].head);
  const samples: NonNullable<SamplingHeapProfile['samples']> = [];
  let ordinalBase = 0;
  for (const p of profiles) {
    const newId = new Map<number, number>();
    const add = (into: SamplingHeapNode, from: SamplingHeapNode): void => {
      into.selfSize += from.selfSize;
      newId.set(from.id, into.id);
      for (const child of from.children) {
        const key = frameKey(child.callFrame);
        let target = into.children.find((c) => frameKey(c.callFrame) === key);
        if (!target) {
          target = copy(child);
          into.children.push(target);
        }
        add(target, child);
      }
    };
    add(head, p.head);
    let maxOrdinal = 0;
    for (const s of p.samples ?? []) {
      const nodeId = newId.get(s.nodeId);
      if (nodeId === undefined) continue;
      samples.push({ size: s.size, nodeId, ordinal: ordinalBase + s.ordinal });
      maxOrdinal = Math.max(maxOrdinal, s.ordinal);
    }
    ordinalBase += maxOrdinal + 1;
  }
  return { head, samples };
}
