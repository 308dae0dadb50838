// The wait probe's records of several profiled sub-windows as one: each sub-window's probe
// numbered its calling lines and request types itself, so they are renumbered into one list.
import type { WaitTrace } from '../inspector/index.ts';

export function mergeWaitTraces(traces: readonly WaitTrace[]): WaitTrace | undefined {
  if (traces.length === 0) return undefined;
  const merged: WaitTrace = {
    poolSize: traces[0].poolSize,
    cores: traces[0].cores,
    sites: [],
    types: [],
    requests: [],
    pending: [],
    dropped: 0,
  };
  const siteIndex = new Map<string, number>();
  const typeIndex = new Map<string, number>();
  for (const t of traces) {
    const sites = t.sites.map((s) => {
      const key = s.join('\u0000');
      let i = siteIndex.get(key);
      if (i === undefined) {
        i = merged.sites.length;
        siteIndex.set(key, i);
        merged.sites.push(s);
      }
      return i;
    });
    const types = t.types.map((type) => {
      let i = typeIndex.get(type);
      if (i === undefined) {
        i = merged.types.length;
        typeIndex.set(type, i);
        merged.types.push(type);
      }
      return i;
    });
    const renumber = ([site, type, made, done]: [number, number, number, number]): [number, number, number, number] => [
      site < 0 ? -1 : sites[site],
      types[type],
      made,
      done,
    ];
    merged.requests.push(...t.requests.map(renumber));
    merged.pending.push(...t.pending.map(renumber));
    merged.dropped += t.dropped;
  }
  return merged;
}
