// Run vs baseline per route: in a request mix, a regression of one route is a share of the
// whole and an average of five routes hides it. Each route present in both runs (keyed as
// common/routes.ts routeKey keys it: `GET /orders/{n}`) gets its own time per request, req/s and
// p99 changes, each tested against the noise by the statistics the run's own figures use
// (verdict.ts): a route's value per sub-window on each side — Welch's interval for two runs
// (changeOf), the rounds' paired ratios side by side (pairedChangeOf).
// A route's cost per sub-window is its median request's main-thread time (the route probe's
// timeline: SubWindowRoute.threadMsP50; a side-by-side gate takes it in a labelled window each
// round). The median, not the mean: on a shared machine a few requests the scheduler stretched by
// tens of ms moved a route's mean by 18–97% (SD of a round's ratio), its median by 4–29%
// (bench/gate-routes.ts, docs/routes.md). A route's CPU per request from a run's profile (one
// figure for the whole profiled window) is shown beside it with the interval the cheaper/costlier
// lines get — inferred from its samples and the run's spread (costChangeOf) — and no gate decides
// on it. Routes in one run only are listed as added or gone. Pure and browser-safe.
import type { Delta } from './compare-rows.ts';
import type { ReportV1, SubWindowFigures, SubWindowRoute } from '../report/index.ts';
import {
  changeOf,
  costChangeOf,
  logSd,
  pairedChangeOf,
  type Change,
  type Direction,
  type VerdictWord,
} from './verdict.ts';

export interface RouteChange {
  method: string;
  route: string;
  /** `both`: in both runs; `added`: only in the current one; `gone`: only in the base. */
  presence: 'both' | 'added' | 'gone';
  /**
   * The route's median request's main-thread time, ms, with `noise` from its value per
   * sub-window on both sides: the figure a gate decides a route on.
   */
  threadMs?: Delta;
  /** Main-thread CPU per request from each run's profile (report.routes[]), with `inferred`. */
  cpuPerRequestMs?: Delta;
  /** The profile's per-route CPU against the noise, inferred (samples and the run's spread): never gated. */
  inferred?: { verdict: VerdictWord; lowPct?: number; highPct?: number };
  requestsPerSecond?: Delta;
  latencyP99Ms?: Delta;
  /** Why a figure carries no verdict (the data cannot), when one does not. */
  noVerdict?: string;
}

/** Each of `routes` routes' level when a gate looks at all of them at `level` (Bonferroni). */
export const routeGateLevel = (level: number, routes: number): number => 1 - (1 - level) / Math.max(1, routes);

/** `GET /orders/{n}`: common/routes.ts routeKey, kept here so the report stays browser-safe. */
export const routeKeyOf = (method: string, route: string): string => `${method.toUpperCase()} ${route}`;

type Pick = (r: SubWindowRoute) => number | undefined;

/** Each route's value per sub-window, NaN where the sub-window has no value (paired by index). */
function series(windows: readonly SubWindowFigures[], key: string, pick: Pick): number[] {
  return windows.map((w) => {
    const r = w.routes?.find((x) => routeKeyOf(x.method, x.route) === key);
    const v = r ? pick(r) : undefined;
    return v !== undefined && Number.isFinite(v) && v > 0 ? v : NaN;
  });
}

const finite = (xs: number[]): number[] => xs.filter((x) => Number.isFinite(x) && x > 0);

/** The routes of some sub-windows, first seen first. */
function routesOf(windows: readonly SubWindowFigures[]): Map<string, { method: string; route: string }> {
  const out = new Map<string, { method: string; route: string }>();
  for (const w of windows)
    for (const r of w.routes ?? []) {
      const key = routeKeyOf(r.method, r.route);
      if (!out.has(key)) out.set(key, { method: r.method.toUpperCase(), route: r.route });
    }
  return out;
}

export interface RouteWindows {
  /** The windows whose load figures (req/s, p99) are compared: a run's measured sub-windows, a gate's rounds. */
  load: readonly SubWindowFigures[];
  /** The windows whose routes carry threadMsP50 (a run's profiled sub-windows, a gate's rounds). */
  cpu: readonly SubWindowFigures[];
}

/**
 * Every route of either side, with its changes. `paired`: value i of each side is from the same
 * round (side by side), each route's interval at `confidence` shared among the routes; otherwise
 * two runs' sub-windows (Welch, 95%, as the run's own figures).
 */
export function routeChanges(
  base: RouteWindows,
  current: RouteWindows,
  o: { paired: boolean; confidence?: number },
): RouteChange[] | undefined {
  const b = routesOf([...base.load, ...base.cpu]);
  const c = routesOf([...current.load, ...current.cpu]);
  if (b.size === 0 && c.size === 0) return undefined;
  // One route alone is the run's own figures: nothing per route to add.
  if (b.size <= 1 && c.size <= 1 && [...b.keys()].every((k) => c.has(k))) return undefined;
  // Side by side, each route's interval is at 1 − (1 − level)/routes (Bonferroni): a gate looks
  // at every route, and five looks at 95% would raise a false alarm in ~1 gate of 5 × 5%.
  const inBoth = [...b.keys()].filter((k) => c.has(k)).length;
  const level = o.paired ? routeGateLevel(o.confidence ?? 0.95, inBoth) : 0.95;
  const change = (bv: number[], cv: number[], direction: Direction): Delta | undefined => {
    const bf = finite(bv);
    const cf = finite(cv);
    if (bf.length === 0 || cf.length === 0) return undefined;
    const noise = o.paired ? pairedChangeOf(bv, cv, direction, level) : changeOf(bf, cf, direction);
    const bm = geo(bf);
    const cm = geo(cf);
    return {
      base: round(bm, 4),
      current: round(cm, 4),
      change: round(cm - bm, 4),
      ...(noise ? { changePct: noise.changePct, noise } : {}),
    };
  };
  const out: RouteChange[] = [];
  for (const [key, id] of b) {
    if (!c.has(key)) {
      out.push({ ...id, presence: 'gone' });
      continue;
    }
    const thread = change(
      series(base.cpu, key, (r) => r.threadMsP50),
      series(current.cpu, key, (r) => r.threadMsP50),
      'lower-is-better',
    );
    const rps = change(
      series(base.load, key, (r) => r.perSecond),
      series(current.load, key, (r) => r.perSecond),
      'higher-is-better',
    );
    const p99 = change(
      series(base.load, key, (r) => r.latencyMs.p99),
      series(current.load, key, (r) => r.latencyMs.p99),
      'lower-is-better',
    );
    out.push({
      ...id,
      presence: 'both',
      ...(thread ? { threadMs: thread } : {}),
      ...(rps ? { requestsPerSecond: rps } : {}),
      ...(p99 ? { latencyP99Ms: p99 } : {}),
    });
  }
  for (const [key, id] of c) if (!b.has(key)) out.push({ ...id, presence: 'added' });
  return out;
}

/**
 * Two runs' routes: req/s and p99 from their measured sub-windows, CPU per request from their
 * profiled sub-windows where those carry the route's thread time, else from each report's
 * routes[] (the profile's figure: an inferred interval, never gated). Undefined without routes.
 */
export function routeChangesOfRuns(base: ReportV1, current: ReportV1): RouteChange[] | undefined {
  const windowsOf = (r: ReportV1): RouteWindows => {
    // An external load runs once per window: one sub-window, no spread (compare.ts).
    const sw = r.load?.external ? undefined : r.load?.subWindows;
    return { load: sw?.measured ?? [], cpu: sw?.profiled ?? [] };
  };
  const rowsOf = (r: ReportV1): SubWindowFigures[] => {
    // The report's routes (load rows and the app's own) as one window without spread, for the
    // routes no sub-window names.
    const rows = (r.routes ?? []).filter((x) => x.method !== '');
    return rows.length > 0
      ? [
          {
            durationS: 0,
            requests: 0,
            perSecond: 0,
            latencyMs: { p50: 0, p99: 0 },
            errors: 0,
            timeouts: 0,
            routes: rows.map((x) => ({
              method: x.method,
              route: x.route,
              requests: x.requests,
              perSecond: x.reqPerSec,
              latencyMs: { p50: x.latencyMs?.p50 ?? 0, p99: x.latencyMs?.p99 ?? 0 },
            })),
          },
        ]
      : [];
  };
  const bw = windowsOf(base);
  const cw = windowsOf(current);
  const hasWindows = (w: RouteWindows): boolean => w.load.some((x) => (x.routes?.length ?? 0) > 0);
  // Runs from before routes per sub-window: their whole-window rows, shown without a verdict.
  const bothWindowed = hasWindows(bw) && hasWindows(cw);
  const changes = bothWindowed
    ? routeChanges(bw, cw, { paired: false })
    : routeChanges({ load: rowsOf(base), cpu: [] }, { load: rowsOf(current), cpu: [] }, { paired: false });
  if (!changes) return undefined;
  for (const rc of changes) {
    if (rc.presence !== 'both') continue;
    if (!bothWindowed) {
      // One value a side: a change with no spread says nothing either way.
      if (rc.requestsPerSecond) delete rc.requestsPerSecond.noise;
      if (rc.latencyP99Ms) delete rc.latencyP99Ms.noise;
    }
    addProfileCpu(rc, base, current);
    const why = [
      ...(!bothWindowed ? ['req/s and p99 have no value per sub-window in a run (one figure a run: no spread)'] : []),
      ...(rc.threadMs === undefined
        ? ['a run had no route probe in its sub-windows: no time per request per sub-window']
        : []),
    ];
    if (why.length > 0) rc.noVerdict = why.join('; ');
  }
  return changes;
}

/** CPU per request from each report's routes[] (its profile), with the lines' inferred interval. */
function addProfileCpu(rc: RouteChange, base: ReportV1, current: ReportV1): void {
  const key = routeKeyOf(rc.method, rc.route);
  const side = (r: ReportV1): { ms: number; samples: number; cpuLogSd?: number; k?: number } | undefined => {
    const row = (r.routes ?? []).find((x) => routeKeyOf(x.method, x.route) === key || (x.aliases ?? []).includes(key));
    if (row?.cpuMsPerRequest === undefined || row.cpuPct === undefined) return undefined;
    // Non-idle ms of the profiled window → the samples behind the route's share.
    const busyMs = Object.entries(r.categories)
      .filter(([k]) => k !== 'idle')
      .reduce((t, [, v]) => t + (v ?? 0), 0);
    const samples = ((row.cpuPct / 100) * busyMs * 1000) / Math.max(r.profile.intervalUs, 1);
    const ws = r.load?.subWindows?.measured ?? [];
    return { ms: row.cpuMsPerRequest, samples, cpuLogSd: logSd(ws.map((w) => w.cpuMsPerRequest ?? NaN)), k: ws.length };
  };
  const b = side(base);
  const c = side(current);
  if (!b || !c) return;
  const v = costChangeOf(b, c);
  rc.cpuPerRequestMs = {
    base: b.ms,
    current: c.ms,
    change: round(c.ms - b.ms, 4),
    ...(b.ms > 0 ? { changePct: round(((c.ms - b.ms) / b.ms) * 100, 1) } : {}),
  };
  rc.inferred = { verdict: v.verdict, ...(v.lowPct !== undefined ? { lowPct: v.lowPct, highPct: v.highPct } : {}) };
}

/** The verdict of a route's figure: from its windows, else inferred, else none. */
export function routeVerdict(
  rc: RouteChange,
  figure: 'thread' | 'cpu' | 'rps' | 'p99',
): Change | RouteChange['inferred'] {
  if (figure === 'thread') return rc.threadMs?.noise;
  if (figure === 'cpu') return rc.inferred;
  return (figure === 'rps' ? rc.requestsPerSecond : rc.latencyP99Ms)?.noise;
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const geo = (xs: number[]): number => Math.exp(mean(xs.map(Math.log)));

const round = (v: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};
