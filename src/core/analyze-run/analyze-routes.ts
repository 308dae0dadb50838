// Cost per route, measured inside the app: the route probe (in-app/scripts/route-probe.ts) noted
// which HTTP request the main thread served from which moment, on the clock of the profile's
// samples (routes.json, placed on the merged profile's timeline by capture/extras/route-traces.ts). Each
// sample of the timeline belongs to the request running at its timestamp — looked up, never split
// by guess — and its own lines are the ones the analysis gave it (the timeline's kinds: the same
// attribution as `lines`). Per route (common/routes.ts: the framework's pattern, or the path with
// its ids folded): requests served while the probe was on, CPU per request, its share of the CPU,
// its hottest lines; time no request was served (timers, GC, startup work) is a row of its own;
// each stall is given the route whose work filled most of it; each wait the wait probe noted
// (threadpool, HTTP, data stores) goes to the request it was made for (capture/extras/wait-labels.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { apiOfType, sampleStarts, type TimelineV1, type WaitTraceInput } from '../analysis/index.ts';
import { MAX_SAMPLE_WEIGHT } from '../profile/index.ts';
import { routeKey, routeOf } from '../common/index.ts';
import type { ReportV1, RouteFigures } from '../report/index.ts';
import type { ExtrasRecord, RoutesFile } from '../store/index.ts';

/** The row of time that belongs to no request. */
export const NO_REQUEST = '(no request)';
/** Lines kept per route, and awaiting lines. */
const ROUTE_LINES = 5;
/** A sample this close to a change of request (µs) is counted as near one: the exactness figure. */
export const NEAR_CHANGE_US = 50;

/**
 * The label (request id; 0 none; -1 not recorded) at each sample's timestamp: the last change at
 * or before it. `starts` and `changes` are on one clock (µs from the profile's start); changes
 * in time order (flat pairs: µs, label). Also how many samples lie within `nearUs` of a change.
 */
export function labelsAtSamples(
  starts: ArrayLike<number>,
  changes: readonly number[],
  nearUs = NEAR_CHANGE_US,
): { labels: Int32Array; near: Uint8Array } {
  const labels = new Int32Array(starts.length);
  const near = new Uint8Array(starts.length);
  let j = 0; // changes[2j] is the first change after the sample
  let label = 0;
  for (let s = 0; s < starts.length; s++) {
    const t = starts[s];
    while (j * 2 < changes.length && changes[j * 2] <= t) {
      label = changes[j * 2 + 1];
      j++;
    }
    labels[s] = label;
    const before = j > 0 ? t - changes[(j - 1) * 2] : Infinity;
    const after = j * 2 < changes.length ? changes[j * 2] - t : Infinity;
    if (Math.min(before, after) < nearUs) near[s] = 1;
  }
  return { labels, near };
}

interface RequestRow {
  method: string;
  path: string;
  pattern?: string;
  status: number;
  begun: number;
  finished: number;
}

interface Row {
  method: string;
  route: string;
  cpuUs: number;
  own: Map<number, number>;
  latenciesMs: number[];
  finished: number;
  errors: number;
  /** The folded-path keys of its requests, when the framework named its pattern. */
  aliases: Set<string>;
  /** Its requests' waits by awaiting line and API: µs in all. */
  waits: Map<string, { file: string; line: number; kind: string; us: number }>;
}

const emptyRow = (method: string, route: string): Row => ({
  method,
  route,
  cpuUs: 0,
  own: new Map(),
  latenciesMs: [],
  finished: 0,
  errors: 0,
  aliases: new Set(),
  waits: new Map(),
});

/** Per route: the app's own figures (source 'app'), the no-request row last; and how exact. */
export function routeFigures(
  file: RoutesFile,
  timeline: TimelineV1,
  stalls: ReadonlyArray<{ startMs: number; durationMs: number }> = [],
  waits?: WaitTraceInput,
): { routes: RouteFigures[]; stallRoutes: Array<string | undefined>; exactness: Exactness } {
  const requests = new Map<number, RequestRow>();
  const r = file.requests;
  for (let i = 0; i + 6 < r.length; i += 7)
    requests.set(r[i], {
      method: file.strings[r[i + 4]] ?? 'GET',
      path: file.strings[r[i + 5]] ?? '/',
      pattern: r[i + 6] >= 0 ? file.strings[r[i + 6]] : undefined,
      status: r[i + 3],
      begun: r[i + 1],
      finished: r[i + 2],
    });
  // A request the framework had not named when the probe was taken takes the pattern its
  // finished siblings of the same folded path were given.
  const patternOf = new Map<string, string>();
  for (const q of requests.values()) if (q.pattern) patternOf.set(routeKey(q.method, routeOf(q.path)), q.pattern);
  const rows = new Map<string, Row>();
  const rowOf = (method: string, route: string): Row => {
    const key = routeKey(method, route);
    let row = rows.get(key);
    if (!row) rows.set(key, (row = emptyRow(method, route)));
    return row;
  };
  const noRequest = emptyRow('', NO_REQUEST);
  const rowById = new Map<number, Row>();
  for (const [id, q] of requests) {
    const folded = routeOf(q.path);
    const pattern = q.pattern ?? patternOf.get(routeKey(q.method, folded));
    const row = rowOf(q.method, routeOf(q.path, pattern));
    if (pattern) row.aliases.add(routeKey(q.method, folded));
    rowById.set(id, row);
    if (q.finished >= 0) {
      row.finished++;
      row.latenciesMs.push((q.finished - q.begun) / 1000);
      // As the load's rows count them (load/route-figures.ts): any answer that is not 2xx.
      if (q.status < 200 || q.status >= 300) row.errors++;
    }
  }

  if (waits?.labels) addWaits(waits, waits.labels, rowById);

  const starts = sampleStarts(timeline);
  const { labels, near } = labelsAtSamples(starts, file.changes);
  const idleKind = timeline.kinds.map((k) => k.category === 'idle');
  const capUs = timeline.intervalUs > 0 ? MAX_SAMPLE_WEIGHT * timeline.intervalUs : Infinity;
  let nonIdleUs = 0;
  let nearUs = 0;
  let unrecordedUs = 0;
  const sampleRow: Array<Row | undefined> = new Array<Row | undefined>(starts.length);
  for (let s = 0; s < starts.length; s++) {
    const kind = timeline.sampleKind[s];
    if (idleKind[kind]) continue;
    const us = Math.min(timeline.sampleUs[s], capUs);
    nonIdleUs += us;
    if (near[s]) nearUs += us;
    const label = labels[s];
    if (label < 0) {
      unrecordedUs += us;
      continue;
    }
    const row = label === 0 ? noRequest : (rowById.get(label) ?? noRequest);
    sampleRow[s] = row;
    row.cpuUs += us;
    for (const [line, frac] of timeline.kinds[kind].owners) row.own.set(line, (row.own.get(line) ?? 0) + us * frac);
  }

  const seconds = file.activeUs / 1e6;
  const figures = (row: Row): RouteFigures => {
    const lines = [...row.own.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, ROUTE_LINES)
      .map(([i, us]) => ({
        file: timeline.lines[i].file,
        line: timeline.lines[i].line,
        function: timeline.lines[i].function,
        ownMs: round2(us / 1000),
        ownPct: row.cpuUs > 0 ? round1((us / row.cpuUs) * 100) : 0,
      }));
    const sorted = [...row.latenciesMs].sort((a, b) => a - b);
    return {
      method: row.method,
      route: row.route,
      source: 'app',
      requests: row.finished,
      reqPerSec: seconds > 0 ? round1(row.finished / seconds) : 0,
      ...(sorted.length > 0
        ? { latencyMs: { p50: quantile(sorted, 0.5), p90: quantile(sorted, 0.9), p99: quantile(sorted, 0.99) } }
        : {}),
      errors: row.errors,
      ...(row.finished > 0 && row !== noRequest ? { cpuMsPerRequest: round3(row.cpuUs / 1000 / row.finished) } : {}),
      cpuPct: nonIdleUs > 0 ? round1((row.cpuUs / nonIdleUs) * 100) : 0,
      lines,
      ...(row.waits.size > 0 && row.finished > 0 && row !== noRequest
        ? {
            waits: [...row.waits.values()]
              .sort((a, b) => b.us - a.us)
              .slice(0, ROUTE_LINES)
              .map((w) => ({
                file: w.file,
                line: w.line,
                kind: w.kind,
                msPerRequest: round2(w.us / 1000 / row.finished),
              })),
          }
        : {}),
      ...(row.aliases.size > 0 && !row.aliases.has(routeKey(row.method, row.route))
        ? { aliases: [...row.aliases].sort().slice(0, 8) }
        : {}),
    };
  };
  const routes = [...rows.values()]
    .filter((row) => row.finished > 0 || row.cpuUs > 0)
    .sort((a, b) => b.cpuUs - a.cpuUs)
    .map(figures);
  routes.push(figures(noRequest));

  // Each stall: the route whose samples filled most of it.
  const stallRoutes = stalls.map(({ startMs, durationMs }) => {
    const from = startMs * 1000;
    const to = from + durationMs * 1000;
    const byRow = new Map<Row, number>();
    for (let s = lowerBound(starts, from); s < starts.length && starts[s] < to; s++) {
      const row = sampleRow[s];
      if (row) byRow.set(row, (byRow.get(row) ?? 0) + Math.min(timeline.sampleUs[s], capUs));
    }
    let best: Row | undefined;
    for (const [row, us] of byRow) if (!best || us > byRow.get(best)!) best = row;
    return best ? (best === noRequest ? NO_REQUEST : routeKey(best.method, best.route)) : undefined;
  });

  const labelledUs = nonIdleUs - unrecordedUs - noRequest.cpuUs;
  return {
    routes,
    stallRoutes,
    exactness: {
      nearChangePct: nonIdleUs > 0 ? round1((nearUs / nonIdleUs) * 100) : 0,
      mergedGapPct: labelledUs > 0 ? round2((file.merged[1] / labelledUs) * 100) : 0,
      unrecordedMs: round1(unrecordedUs / 1000),
    },
  };
}

/**
 * Each ended wait on a line of the user's code, added to the route of the request it was made
 * for; per request of the route later (over the requests that finished while the probes ran, as
 * the run's own waits are over the requests served then).
 */
function addWaits(trace: WaitTraceInput, labels: readonly number[], rowById: ReadonlyMap<number, Row>): void {
  trace.requests.forEach(([site, type, made, done], i) => {
    const row = labels[i] > 0 ? rowById.get(labels[i]) : undefined;
    if (!row || site < 0) return;
    const [file, line] = trace.sites[site];
    const kind = apiOfType(trace.types[type]);
    const key = `${file}\u0000${line}\u0000${kind}`;
    const w = row.waits.get(key) ?? { file, line, kind, us: 0 };
    w.us += done - made;
    row.waits.set(key, w);
  });
}

export interface Exactness {
  /** Share of the CPU samples within NEAR_CHANGE_US of a change of request. */
  nearChangePct: number;
  /** Short detours through "no request" the probe merged into the request around them, as a share of the requests' CPU time. */
  mergedGapPct: number;
  /** CPU time after the probe's buffer was full: no route. */
  unrecordedMs: number;
}

/**
 * The routes of one run: where the load generator measured a route (source 'load'), its
 * requests, rate, latency and errors are the load's, and the app's CPU, share and lines are added
 * by route key (the app's framework pattern or any folded path of its requests); the app's other
 * routes and the no-request row follow as they are.
 */
export function mergeRoutes(appRoutes: readonly RouteFigures[], loadRoutes: readonly RouteFigures[]): RouteFigures[] {
  if (loadRoutes.length === 0) return [...appRoutes];
  const appByKey = new Map<string, RouteFigures>();
  for (const a of appRoutes) {
    appByKey.set(routeKey(a.method, a.route), a);
    for (const alias of a.aliases ?? []) if (!appByKey.has(alias)) appByKey.set(alias, a);
  }
  const used = new Set<RouteFigures>();
  const merged = loadRoutes.map((l): RouteFigures => {
    const a = appByKey.get(routeKey(l.method, l.route));
    if (!a || used.has(a)) return l;
    used.add(a);
    return {
      ...l,
      // The framework's pattern names the route better than a folded path.
      route: a.route,
      source: 'load',
      ...(a.cpuMsPerRequest !== undefined ? { cpuMsPerRequest: a.cpuMsPerRequest } : {}),
      ...(a.cpuPct !== undefined ? { cpuPct: a.cpuPct } : {}),
      ...(a.lines ? { lines: a.lines } : {}),
      ...(a.waits ? { waits: a.waits } : {}),
    };
  });
  return [...merged, ...appRoutes.filter((a) => !used.has(a))];
}

/** report.routes (merged with the load's where it has them) and a route on each stall. */
export function analyzeRoutes(
  report: ReportV1,
  runDir: string,
  measured: ExtrasRecord['routes'],
  timeline: TimelineV1 | undefined,
  waits?: WaitTraceInput,
): ReportV1 {
  if (!measured) return report;
  if (!timeline)
    return { ...report, notes: [...report.notes, 'Cost per route needs the order of the samples in time: none here.'] };
  let file: RoutesFile;
  try {
    file = JSON.parse(fs.readFileSync(path.join(runDir, measured.file), 'utf8')) as RoutesFile;
  } catch (err) {
    return {
      ...report,
      notes: [...report.notes, `The routes (${measured.file}) could not be read: ${(err as Error).message}`],
    };
  }
  const { routes, stallRoutes, exactness } = routeFigures(file, timeline, report.stalls ?? [], waits);
  const loadRoutes = (report.routes ?? []).filter((r) => r.source === 'load');
  const notes = [
    `Cost per route: each CPU sample belongs to the HTTP request the app was serving at its time (measured in the app); ${exactness.nearChangePct}% of the CPU time was within ${NEAR_CHANGE_US} µs of a change of request, ${exactness.mergedGapPct}% of the requests' time was gaps under 20 µs between two callbacks of one request.`,
  ];
  if (file.droppedRequests > 0)
    notes.push(
      `${file.droppedRequests} requests were not labelled (the route probe's buffer was full): their work is in "${NO_REQUEST}".`,
    );
  if (exactness.unrecordedMs > 0)
    notes.push(`${exactness.unrecordedMs} ms of CPU came after the route probe's buffer was full: in no route.`);
  return {
    ...report,
    routes: mergeRoutes(routes, loadRoutes),
    ...(report.stalls && stallRoutes.some((r) => r !== undefined)
      ? { stalls: report.stalls.map((s, i) => (stallRoutes[i] ? { ...s, route: stallRoutes[i] } : s)) }
      : {}),
    notes: [...report.notes, ...notes],
  };
}

function lowerBound(a: Float64Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function quantile(sorted: readonly number[], q: number): number {
  return round2(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);
}

const round1 = (x: number): number => Math.round(x * 10) / 10;
const round2 = (x: number): number => Math.round(x * 100) / 100;
const round3 = (x: number): number => Math.round(x * 1000) / 1000;
