// The wait probe's records of several profiled sub-windows as one: each sub-window's probe
// numbered its calling lines and request types itself, so they are renumbered into one list.
import { indexer } from '../../common/index.ts';
import type { WaitTrace } from '../../inspector/index.ts';

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
    activeUs: 0,
  };
  const siteOf = indexer(merged.sites, (s) => s.join('\u0000'));
  const typeOf = indexer(merged.types, (type) => type);
  for (const t of traces) {
    const sites = t.sites.map(siteOf);
    const types = t.types.map(typeOf);
    const renumber = ([site, type, made, done]: [number, number, number, number]): [number, number, number, number] => [
      site < 0 ? -1 : sites[site],
      types[type],
      made,
      done,
    ];
    const offset = merged.requests.length;
    // Labelled by route where the route probe ran: a sub-window without them has none (-1).
    if (t.labels || merged.labels) {
      merged.labels ??= new Array<number>(offset).fill(-1);
      append(merged.labels, t.labels ?? new Array<number>(t.requests.length).fill(-1));
    }
    for (const [index, queuedUs, size] of t.queued ?? []) (merged.queued ??= []).push([index + offset, queuedUs, size]);
    append(merged.requests, t.requests.map(renumber));
    append(merged.pending, t.pending.map(renumber));
    merged.dropped += t.dropped;
    merged.activeUs += t.activeUs;
    merged.unpairedSockets = (merged.unpairedSockets ?? 0) + (t.unpairedSockets ?? 0);
    if (t.served !== undefined) merged.served = (merged.served ?? 0) + t.served;
  }
  return merged;
}

/**
 * `to.push(...from)` without the spread: a sub-window notes up to 200,000 requests, and V8 takes
 * about 120,000 arguments to a call before its stack overflows.
 */
function append<T>(to: T[], from: readonly T[]): void {
  for (const x of from) to.push(x);
}
