// The route probe's records of several profiled sub-windows as one routes.json: each sub-window's
// probe numbered its strings itself (renumbered into one list), and its label changes, taken on
// the app's monotonic clock, are placed on the merged profile's timeline (mergedClock, the
// clock of the timeline's samples and of the stalls). A change made while the profiler was not
// running (between two segments, or before a sub-window's profile began) holds from the next
// segment's first sample; changes after the last segment are left out.
import { indexer } from '../../common/index.ts';
import type { RouteTrace } from '../../inspector/index.ts';
import { type CpuProfile, mergedClock } from '../../profile/index.ts';
import type { RoutesFile } from '../../store/index.ts';

export function mergeRouteTraces(
  traces: readonly RouteTrace[],
  segments: readonly CpuProfile[],
): RoutesFile | undefined {
  if (traces.length === 0 || segments.length === 0) return undefined;
  const clock = mergedClock(segments);
  // A change before a segment's first sample holds from that sample: on the merged timeline a
  // segment's start may lie before the previous segment's last sample (mergeProfiles puts its
  // first sample one step after that one).
  const spans = segments
    .filter((s) => (s.samples?.length ?? 0) > 0)
    .map((s) => ({ start: s.startTime, end: s.endTime, first: s.startTime + Math.max(0, s.timeDeltas?.[0] ?? 0) }))
    .sort((a, b) => a.start - b.start);
  let moved = 0;
  const place = (us: number): number | undefined => {
    for (const span of spans) {
      if (us > span.end) continue;
      if (us < span.start) moved++;
      return clock(Math.max(us, span.first));
    }
    return undefined;
  };
  const out: RoutesFile = {
    version: 1,
    changes: [],
    requests: [],
    strings: [],
    merged: [0, 0],
    activeUs: 0,
    droppedRequests: 0,
    moved: 0,
  };
  const stringOf = indexer(out.strings, (s) => s);
  const timed: Array<[number, number]> = [];
  for (const t of [...traces].sort((a, b) => a.sinceUs - b.sinceUs)) {
    const strings = t.strings.map(stringOf);
    for (let i = 0; i + 1 < t.changes.length; i += 2) {
      const at = place(t.changes[i]);
      if (at !== undefined) timed.push([at, t.changes[i + 1]]);
    }
    if (t.fullAtUs > 0) {
      const at = place(t.fullAtUs);
      if (at !== undefined) timed.push([at, -1]);
    }
    // Until the next sub-window's probe starts, nothing is labelled (its profile may start first).
    const end = place(t.takenUs);
    if (end !== undefined) timed.push([end, 0]);
    for (let i = 0; i + 6 < t.requests.length; i += 7) {
      const r = t.requests.slice(i, i + 7);
      out.requests.push(r[0], r[1], r[2], r[3], strings[r[4]], strings[r[5]], r[6] < 0 ? -1 : strings[r[6]]);
    }
    out.merged[0] += t.merged[0];
    out.merged[1] += t.merged[1];
    out.activeUs += t.takenUs - t.sinceUs;
    out.droppedRequests += t.droppedRequests;
  }
  // Stable: changes moved onto one moment keep their order (the last one holds).
  timed.sort((a, b) => a[0] - b[0]);
  out.moved = moved;
  for (const [at, label] of timed) out.changes.push(at, label);
  return out;
}
