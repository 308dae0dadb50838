// Run vs baseline: did the fix help? Load and event-loop figures side by side, and per function
// and per line what got cheaper or costlier, in ms per request so runs of different length and
// throughput compare fairly. Pure: two reports in, one comparison out.
// Where both runs carry sub-windows (report.load.subWindows), each load figure also gets its
// 95% interval and a verdict (verdict.ts): "within noise" when the runs' own spread covers it.
import type { ReportV1, SubWindowFigures } from '../report/index.ts';
import { CATEGORIES, type Category } from '../analysis/model.ts';
import { comparabilityOf } from './comparable.ts';
import { keptHints } from './kept-hints.ts';
import { routeChangesOfRuns, type RouteChange } from './route-compare.ts';
import { correspondence, newPlaceOf, type LineCorrespondence } from './line-correspondence.ts';
import type { CallLink, Hint } from '../analysis/model.ts';
import { pairMovedWork, type RowParts } from './moved-work.ts';
import type { CostChange, Delta } from './compare-rows.ts';
import { changeOf, isChange, rateChangeOf, rowChangeOf, type Change, type Direction } from './verdict.ts';

export type { CostChange, Delta, MovedWork, Place } from './compare-rows.ts';

export interface Comparison {
  baseId: string;
  currentId: string;
  /** ms per request when both runs carry load figures, else plain ms. */
  unit: 'ms/request' | 'ms';
  load?: {
    requestsPerSecond: Delta;
    latencyMs: { p50: Delta; p90: Delta; p99: Delta; max: Delta };
    errors: Delta;
    timeouts: Delta;
    non2xx: Delta;
    /** The app's CPU (all threads) per request in the measured window, ms: the code's own cost. */
    cpuPerRequestMs?: Delta;
    /**
     * The app's event loop was busy ≥ 90% of the measured window in both runs: its req/s and
     * latency then follow the CPU the machine gave it (a busier machine, fewer req/s), and CPU
     * per request is the figure that tells a change of the code.
     */
    saturated?: boolean;
    /** CPU the app got per second of the measured window (1 = one core), base and current. */
    appCpu?: { base: number; current: number };
  };
  eventLoop?: { p50: Delta; p99: Delta; max: Delta; utilization: Delta };
  categories: Record<Category, Delta>;
  /** Functions of the user's code by total time; the largest savings first, then the increases. */
  functions: CostChange[];
  lines: CostChange[];
  /**
   * The runs loaded something different (comparable.ts): each difference, base vs current. A
   * verdict is refused unless forced, and every verdict shown for a forced one is marked.
   */
  refused?: string[];
  /** Smaller differences (duration, sampling interval) the verdicts are shown with. */
  differences?: string[];
  /**
   * The base run's hints whose line was changed but whose cost did not move (kept-hints.ts),
   * reworded and placed where the line is now.
   */
  keptHints?: Hint[];
  /** Per route of a request mix, each route's own changes and verdicts (route-compare.ts). */
  routes?: RouteChange[];
}

export function delta(base: number, current: number): Delta {
  const change = round(current - base);
  return base !== 0
    ? { base, current, change, changePct: round(((current - base) / Math.abs(base)) * 100, 1) }
    : { base, current, change };
}

/** Requests served while the profile was taken: the denominator of "per request". */
function profiledRequests(r: ReportV1): number | undefined {
  const p = r.load?.profiled;
  if (!p) return undefined;
  const total = p.requests.total ?? p.requests.perSecond * p.durationS;
  return total > 0 ? total : undefined;
}

/**
 * The texts each run analyzed (its sources.json: file → text). With them, the lines a fix
 * rewrote are found by a diff of the two texts; without them, by a line's code and place alone.
 */
export interface RunSources {
  base: ReadonlyMap<string, string>;
  current: ReadonlyMap<string, string>;
}

export function compareReports(base: ReportV1, current: ReportV1, limit = 20, sources?: RunSources): Comparison {
  const baseReq = profiledRequests(base);
  const curReq = profiledRequests(current);
  const perRequest = baseReq !== undefined && curReq !== undefined;
  const scaleBase = (ms: number): number => (perRequest ? ms / baseReq : ms);
  const scaleCur = (ms: number): number => (perRequest ? ms / curReq! : ms);

  const { refusals, notes } = comparabilityOf(base, current);
  const fnParts = new Map<CostChange, RowParts>();
  const lineParts = new Map<CostChange, RowParts>();
  const out: Comparison = {
    baseId: base.id,
    currentId: current.id,
    unit: perRequest ? 'ms/request' : 'ms',
    ...(refusals.length > 0 ? { refused: refusals } : {}),
    ...(notes.length > 0 ? { differences: notes } : {}),
    categories: Object.fromEntries(
      CATEGORIES.map((c) => [
        c,
        delta(round(scaleBase(base.categories[c] ?? 0), 3), round(scaleCur(current.categories[c] ?? 0), 3)),
      ]),
    ) as Record<Category, Delta>,
    // The user's own functions by total time: the framework frames above a fix all change by
    // the same amount and would bury it.
    functions: changes(
      functionEntries(base).map((e) => scaled(e, scaleBase)),
      functionEntries(current).map((e) => scaled(e, scaleCur)),
      limit,
      undefined,
      fnParts,
    ),
    lines: changes(
      lineEntries(base).map((e) => scaled(e, scaleBase)),
      lineEntries(current).map((e) => scaled(e, scaleCur)),
      limit,
      sources,
      lineParts,
    ),
  };
  // An external load runs once per window: one sub-window of each kind, never more, so no
  // interval — its figures have no spread and the threshold alone gates them (gate.ts).
  const external = base.load?.external !== undefined || current.load?.external !== undefined;
  const bw = external ? [] : (base.load?.subWindows?.measured ?? []);
  const cw = external ? [] : (current.load?.subWindows?.measured ?? []);
  /** The change of one figure across the measured sub-windows, with its interval; none without them. */
  const windowChange = (pick: (w: SubWindowFigures) => number | undefined, direction: Direction) =>
    bw.length > 0 && cw.length > 0 ? changeOf(values(bw, pick), values(cw, pick), direction) : undefined;
  if (base.load && current.load) {
    const b = base.load;
    const c = current.load;
    const noisy = (d: Delta, pick: (w: SubWindowFigures) => number | undefined, direction: Direction): Delta => {
      const change = windowChange(pick, direction);
      return change ? { ...d, noise: change } : d;
    };
    out.load = {
      requestsPerSecond: noisy(
        delta(b.requests.perSecond, c.requests.perSecond),
        (w) => w.perSecond,
        'higher-is-better',
      ),
      latencyMs: {
        p50: noisy(delta(b.latencyMs.p50, c.latencyMs.p50), (w) => w.latencyMs.p50, 'lower-is-better'),
        p90: delta(b.latencyMs.p90, c.latencyMs.p90),
        p99: noisy(delta(b.latencyMs.p99, c.latencyMs.p99), (w) => w.latencyMs.p99, 'lower-is-better'),
        max: delta(b.latencyMs.max, c.latencyMs.max),
      },
      errors: counted(b.errors, b.requests.total, c.errors, c.requests.total, bw.length, cw.length),
      timeouts: counted(b.timeouts, b.requests.total, c.timeouts, c.requests.total, bw.length, cw.length),
      non2xx: counted(b.non2xx, b.requests.total, c.non2xx, c.requests.total, bw.length, cw.length),
    };
    const bCpu = cpuPerRequestMs(base);
    const cCpu = cpuPerRequestMs(current);
    if (bCpu !== undefined && cCpu !== undefined)
      out.load.cpuPerRequestMs = noisy(
        delta(round(bCpu, 4), round(cCpu, 4)),
        (w) => w.cpuMsPerRequest,
        'lower-is-better',
      );
    if (base.eventLoop && current.eventLoop) {
      out.load.saturated = base.eventLoop.utilization >= SATURATED && current.eventLoop.utilization >= SATURATED;
      if (base.eventLoop.cpu !== undefined && current.eventLoop.cpu !== undefined)
        out.load.appCpu = { base: base.eventLoop.cpu, current: current.eventLoop.cpu };
    }
    addCostNoise(out, [...fnParts, ...lineParts], bw, cw);
  }
  // Work that moved between functions: both rows say so, with the work's own change.
  const cpu = out.load
    ? { base: values(bw, (w) => w.cpuMsPerRequest), current: values(cw, (w) => w.cpuMsPerRequest) }
    : undefined;
  pairMovedWork(out.functions, fnParts, cpu, true);
  pairMovedWork(out.lines, lineParts, cpu, false);
  for (const row of [...out.functions, ...out.lines]) {
    if (!row.moved) continue;
    delete row.lowPct;
    delete row.highPct;
    if (row.moved.verdict !== undefined) row.verdict = row.moved.verdict;
    else delete row.verdict;
  }
  if (base.eventLoop && current.eventLoop) {
    const b = base.eventLoop;
    const c = current.eventLoop;
    const busy = windowChange((w) => w.utilization, 'lower-is-better');
    // Loop delay p99 is tested on each sub-window's timer interval p99 (the delay + the timer's
    // 10 ms: never 0); runs from before it have none, and p50 and max have no value per
    // sub-window: no spread, shown without a verdict. The loop's busy share carries one.
    const late = windowChange((w) => w.loopIntervalP99Ms, 'lower-is-better');
    out.eventLoop = {
      p50: delta(b.delayMs.p50, c.delayMs.p50),
      p99: { ...delta(b.delayMs.p99, c.delayMs.p99), ...(late ? { noise: late } : {}) },
      max: delta(b.delayMs.max, c.delayMs.max),
      utilization: { ...delta(b.utilization, c.utilization), ...(busy ? { noise: busy } : {}) },
    };
  }
  // Last: both read the request's figures, the loop's included.
  holdBackUncarried(out);
  const kept = keptHints(base, current, out.lines, out.unit, (current.eventLoop?.utilization ?? 0) >= SATURATED);
  if (kept.length > 0) out.keptHints = kept;
  const routes = routeChangesOfRuns(base, current);
  if (routes) out.routes = routes;
  return out;
}

/** A count (errors, timeouts, non-2xx) against the requests each run served: rateChangeOf. */
function counted(b: number, bReq: number, c: number, cReq: number, bWindows: number, cWindows: number): Delta {
  const r = rateChangeOf({ count: b, requests: bReq }, { count: c, requests: cReq });
  return {
    ...delta(b, c),
    noise: {
      changePct: r.changePct ?? (c > b ? 100 : c < b ? -100 : 0),
      ...(r.lowPct !== undefined ? { lowPct: r.lowPct, highPct: r.highPct } : {}),
      verdict: r.verdict,
      samples: { base: bWindows, current: cWindows },
    },
  };
}

/**
 * A line's or function's change is claimed only when the request carries it: the profile's
 * sampling error says nothing of the run-to-run spread of the whole, and a cost moved from one
 * line to another is no saving (a hash wrapped in a promise still runs on the main thread: its
 * line is cheaper, its new caller costlier, the request not). Carriers:
 * - CPU per request;
 * - the loop's busy share or its delay p99 (a hash moved to the threadpool frees the loop, not the
 *   CPU; on a starved machine the loop can stay busy, but it stops stalling);
 * - req/s and latency p50/p99, unless the loop was saturated in both runs: then they follow the
 *   CPU the machine gave the app between the runs, not the code.
 * Each carries only a change of its size (CARRY_REACH): moved the row's way, by at least half of
 * the row's share of the request's CPU — a line that was the whole request is not carried by a
 * loop delay 5% shorter (the batching of a saturated loop's turns changes with the code's shape),
 * nor a line 40 ms cheaper by a request 1.4 ms cheaper.
 * When every request figure is too short to tell, so is the row.
 */
function holdBackUncarried(out: Comparison): void {
  const l = out.load;
  const cpu = l?.cpuPerRequestMs;
  const carriers = [
    cpu?.noise,
    ...(l?.saturated ? [] : [l?.requestsPerSecond.noise, l?.latencyMs.p50.noise, l?.latencyMs.p99.noise]),
    out.eventLoop?.utilization.noise,
    out.eventLoop?.p99.noise,
  ].filter((n): n is Change => n !== undefined);
  const all = [
    cpu?.noise,
    l?.requestsPerSecond.noise,
    l?.latencyMs.p50.noise,
    l?.latencyMs.p99.noise,
    out.eventLoop?.utilization.noise,
  ].filter((n): n is Change => n !== undefined);
  if (all.length === 0) return; // runs without sub-windows: the rows' own test stands
  const allTooShort = all.every((n) => n.verdict === 'too short');
  /** The row's share of the request's CPU (0–1); 0 when the CPU is unknown: the verdict alone. */
  const shareOf = (row: CostChange): number => {
    const change = row.moved ? row.moved.current - row.moved.base : row.change;
    return cpu && cpu.base > 0 ? Math.min(1, Math.abs(change) / cpu.base) : 0;
  };
  /** How far a figure moved at most, % (its interval's far end). */
  const reachPct = (n: Change): number =>
    Math.max(Math.abs(n.lowPct ?? n.changePct), Math.abs(n.highPct ?? n.changePct));
  for (const row of [...out.functions, ...out.lines]) {
    if (!isChange(row.verdict)) continue;
    if (allTooShort) {
      row.verdict = 'too short';
      continue;
    }
    const share = shareOf(row);
    const carried = carriers.some((n) => n.verdict === row.verdict && (reachPct(n) / 100) * CARRY_REACH >= share);
    if (!carried) {
      row.verdict = 'within noise';
      row.heldBack = true;
      if (row.moved) row.moved.verdict = 'within noise';
    }
  }
}

/**
 * A row's change is carried by a request figure whose interval reaches at least half of the
 * row's share of the request: parts of a request's change can offset each other, but not by more
 * than that.
 */
const CARRY_REACH = 2;

/**
 * Lines keyed by their file, function and code, not their number: a fix that adds or removes
 * lines above moves every line below it, and the same code must still meet itself. Equal code
 * in one function (two `res.end(body)`) is told apart by its order; a line without code (a
 * report from before it was recorded) falls back to its number.
 */
function lineEntries(r: ReportV1): Entry[] {
  const seen = new Map<string, number>();
  const lines = r.lines;
  const intervalMs = r.profile.intervalUs / 1000;
  return [...lines]
    .sort((a, b) => a.line - b.line)
    .map((l) => {
      const base = `${l.file}\u0000${l.function}\u0000${l.thread ?? ''}\u0000${l.oneOf ? `one of ${l.oneOf.join(',')}` : (l.code ?? `#${l.line}`)}`;
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      return {
        key: `${base}\u0000${n}`,
        name: l.function,
        file: l.file,
        line: l.line,
        thread: l.thread,
        ms: l.ownMs,
        // The line's own interval (batch means); runs from before it, the binomial floor it has.
        pm:
          l.ownPctPm !== undefined && l.ownPct > 0
            ? (l.ownMs * l.ownPctPm) / l.ownPct
            : samplingPm(l.ownMs, intervalMs, 1),
        callees: l.callees ?? [], // shrunk reports (the page's fixtures) have none
        ...(l.code !== undefined && !l.oneOf ? { code: l.code } : {}),
      };
    });
}

/**
 * Functions by total time. Their totals have no interval of their own: the binomial one, widened
 * as much as the run's batch means widened its lines' (the run's autocorrelation).
 */
function functionEntries(r: ReportV1): Entry[] {
  const intervalMs = r.profile.intervalUs / 1000;
  const widen = designEffect(r);
  return yours(r.functions).map((f) => ({
    key: `${f.name}\u0000${f.file}\u0000${f.thread ?? ''}`,
    name: f.name,
    file: f.file,
    line: f.line,
    thread: f.thread,
    ms: f.totalMs,
    pm: samplingPm(f.totalMs, intervalMs, widen),
    callees: f.callees ?? [],
  }));
}

/** Half-width of the 95% interval of `ms` of samples taken every `intervalMs` (Poisson), × `widen`. */
const samplingPm = (ms: number, intervalMs: number, widen: number): number =>
  1.96 * Math.sqrt(Math.max(ms, 0) * Math.max(intervalMs, 1e-6)) * widen;

/** How much wider than the Poisson interval the run's lines' batch-means intervals are (median, ≥ 1). */
function designEffect(r: ReportV1): number {
  const intervalMs = r.profile.intervalUs / 1000;
  const ratios = r.lines
    .filter((l) => l.ownPctPm !== undefined && l.ownPct > 0 && l.ownMs > 0 && l.thread === undefined)
    .map((l) => (l.ownMs * l.ownPctPm!) / l.ownPct / samplingPm(l.ownMs, intervalMs, 1))
    .sort((a, b) => a - b);
  return ratios.length > 0 ? Math.max(1, ratios[Math.floor(ratios.length / 2)]) : 1;
}

/** An entry in the comparison's unit: its figure, interval and call links scaled alike. */
function scaled(e: Entry, scale: (ms: number) => number): Entry {
  return {
    ...e,
    ms: scale(e.ms),
    pm: scale(e.pm),
    callees: e.callees.map((c) => ({ ...c, totalMs: scale(c.totalMs) })),
  };
}

/** A loop busy this share of the window is saturated: the app took all the CPU it was given. */
export const SATURATED = 0.9;

const values = (ws: SubWindowFigures[], pick: (w: SubWindowFigures) => number | undefined): number[] =>
  ws.map(pick).filter((x): x is number => x !== undefined && Number.isFinite(x));

/** The app's CPU per request in the measured window, ms: from its sub-windows, else its CPU per second. */
function cpuPerRequestMs(r: ReportV1): number | undefined {
  const l = r.load;
  if (!l || l.requests.total <= 0) return undefined;
  const ws = l.subWindows?.measured ?? [];
  const cpuMs = ws.reduce((t, w) => t + (w.cpuMsPerRequest ?? NaN) * w.requests, 0);
  const requests = ws.reduce((t, w) => t + w.requests, 0);
  if (ws.length > 0 && Number.isFinite(cpuMs) && requests > 0) return cpuMs / requests;
  const cpu = r.eventLoop?.cpu;
  return cpu !== undefined ? (cpu * l.durationS * 1000) / l.requests.total : undefined;
}

/** Cheaper/costlier rows against the noise: the headline's CPU test widened by each row's own error. */
function addCostNoise(
  out: Comparison,
  parts: Array<[CostChange, RowParts]>,
  bw: SubWindowFigures[],
  cw: SubWindowFigures[],
): void {
  const bCpu = values(bw, (w) => w.cpuMsPerRequest);
  const cCpu = values(cw, (w) => w.cpuMsPerRequest);
  const partsOf = new Map(parts);
  for (const row of [...out.functions, ...out.lines]) {
    const p = partsOf.get(row);
    Object.assign(
      row,
      rowChangeOf(
        { ms: row.base, pmMs: p?.basePm ?? 0, cpu: bCpu },
        { ms: row.current, pmMs: p?.currentPm ?? 0, cpu: cCpu },
      ),
    );
  }
}

function yours(functions: ReportV1['functions']): ReportV1['functions'] {
  return functions.filter((f) => f.category === 'user');
}

interface Entry {
  key: string;
  name: string;
  file: string;
  line: number;
  thread?: 'worker' | 'process';
  ms: number;
  /** Half-width of the 95% interval of `ms` from the profile (same unit). */
  pm: number;
  callees: readonly CallLink[];
  /** A line's code (lines only): how a changed line is shown. */
  code?: string;
}

/**
 * Matched by name and file, not line: a fix moves lines. Functions only in one run count as 0 in
 * the other. Lines whose code changed (a key only in the base and another only now, in the same
 * function at the same place once the function's shift is taken out) are one row, before → after.
 */
function changes(
  base: Entry[],
  current: Entry[],
  limit: number,
  sources: RunSources | undefined,
  parts: Map<CostChange, RowParts>,
): CostChange[] {
  const merged = new Map<string, Merged>();
  for (const e of base) {
    const m = merged.get(e.key) ?? newMerged(e, false);
    m.base += e.ms;
    m.side.base.pm2 += e.pm ** 2;
    m.side.base.callees.push(...e.callees);
    m.side.base.code ??= e.code;
    merged.set(e.key, m);
  }
  for (const e of current) {
    const m = merged.get(e.key) ?? newMerged(e, true);
    m.current += e.ms;
    m.side.current.pm2 += e.pm ** 2;
    m.side.current.callees.push(...e.callees);
    m.side.current.code ??= e.code;
    m.inCurrent = true;
    m.e = e; // show where it is now
    merged.set(e.key, m);
  }
  const all = pairChangedLines([...merged.values()], sources)
    .map(({ e, base: b, current: c, changed, side }) => {
      const row: CostChange = {
        name: e.name,
        file: e.file,
        line: e.line,
        ...(e.thread ? { thread: e.thread } : {}),
        base: round(b, 3),
        current: round(c, 3),
        change: round(c - b, 3),
        ...(changed ? { codeChanged: changed } : {}),
      };
      parts.set(row, {
        baseCallees: side.base.callees,
        currentCallees: side.current.callees,
        ...(side.base.code !== undefined ? { baseCode: side.base.code } : {}),
        ...(side.current.code !== undefined ? { currentCode: side.current.code } : {}),
        basePm: Math.sqrt(side.base.pm2),
        currentPm: Math.sqrt(side.current.pm2),
      });
      return row;
    })
    // A changed line stays even at the same cost: that its cost did not move is the news.
    .filter((x) => x.change !== 0 || x.codeChanged !== undefined);
  const cheaper = all
    .filter((x) => x.change < 0)
    .sort((a, b) => a.change - b.change)
    .slice(0, limit);
  const costlier = all
    .filter((x) => x.change >= 0)
    .sort((a, b) => b.change - a.change)
    .slice(0, limit);
  return [...cheaper, ...costlier];
}

interface Merged {
  e: Entry;
  base: number;
  current: number;
  baseLine: number;
  inBase: boolean;
  inCurrent: boolean;
  changed?: CostChange['codeChanged'];
  /** Each side's parts: intervals (squared, summed), call links and code. */
  side: Record<'base' | 'current', { pm2: number; callees: CallLink[]; code?: string }>;
}

/** A rewritten line's row takes its old code's base side: interval, call links, code. */
function takeBase(row: Merged, g: Merged): void {
  row.side.base.pm2 += g.side.base.pm2;
  row.side.base.callees.push(...g.side.base.callees);
  row.side.base.code ??= g.side.base.code;
}

function newMerged(e: Entry, inCurrent: boolean): Merged {
  return {
    e,
    base: 0,
    current: 0,
    baseLine: e.line,
    inBase: !inCurrent,
    inCurrent,
    side: { base: { pm2: 0, callees: [] }, current: { pm2: 0, callees: [] } },
  };
}

/** Lines within this many of where a vanished line would now be count as its new code. */
const CHANGED_LINE_REACH = 2;

/**
 * A line only in the base and another only now are one row when the second is the first's new
 * code. A file whose text each run kept (RunSources) is diffed; any other by place and function.
 */
function pairChangedLines(rows: Merged[], sources?: RunSources): Merged[] {
  if (!sources) return pairByPlace(rows);
  const diffs = new Map<string, LineCorrespondence | 'same' | undefined>();
  const diffOf = (file: string): LineCorrespondence | 'same' | undefined => {
    if (!diffs.has(file)) {
      const b = sources.base.get(file);
      const c = sources.current.get(file);
      diffs.set(file, b === undefined || c === undefined ? undefined : b === c ? 'same' : correspondence(b, c));
    }
    return diffs.get(file);
  };
  const byPlace = rows.filter((m) => diffOf(m.e.file) === undefined);
  const diffed = rows.filter((m) => diffOf(m.e.file) !== undefined);
  return [...pairByPlace(byPlace), ...pairByDiff(diffed, diffOf)];
}

/**
 * Through the diff of the two texts: a line the diff kept is the same line, sampled or not; a
 * rewritten one's new code is where the diff put it — a row there carries its old cost even when
 * no sample landed on the new code (a promise around the same call costs microseconds). Without
 * this, an unchanged line that happened to be sampled only now was taken for the new code.
 */
function pairByDiff(rows: Merged[], diffOf: (file: string) => LineCorrespondence | 'same' | undefined): Merged[] {
  const dropped = new Set<Merged>();
  const added: Merged[] = [];
  /** Per file and thread, the row that took each rewritten new line (0-based). */
  const taken = new Map<string, Map<number, Merged>>();
  for (const g of rows.filter((m) => m.inBase && !m.inCurrent)) {
    const c = diffOf(g.e.file);
    if (c === undefined || c === 'same') continue;
    const place = newPlaceOf(c, g.baseLine - 1);
    if (!place) {
      // Unchanged (not sampled now) or deleted: a row of its own, never under the number another
      // line has now — the same code where it is now, a deleted line said to be one.
      const now = c.complete ? c.oldToNew[g.baseLine - 1] : -1;
      if (now >= 0) g.e = { ...g.e, line: now + 1 };
      else if (c.complete) g.changed = { baseLine: g.baseLine, ...(g.e.code ? { before: g.e.code } : {}) };
      continue;
    }
    const where = `${g.e.file}\u0000${g.e.thread ?? ''}`;
    const inFile = taken.get(where) ?? new Map<number, Merged>();
    taken.set(where, inFile);
    const free = rows
      .filter((a) => a.inCurrent && !a.inBase && a.e.file === g.e.file && a.e.thread === g.e.thread)
      .filter((a) => !inFile.has(a.e.line - 1))
      .filter((a) => a.e.line - 1 >= place.first && a.e.line - 1 <= place.last)
      // A hunk rewritten line for line: only the line at its offset is its new code (an async
      // function's rewritten header, sampled now, is not the rewritten call below it).
      .filter((a) => !place.sameSize || a.e.line - 1 === place.at)
      .sort((x, y) => rank(x, g, place.at) - rank(y, g, place.at));
    let row = free[0] ?? inFile.get(place.at);
    if (!row) {
      const code = c.newLines[place.at]?.trim().slice(0, 160);
      row = {
        ...newMerged(
          { ...g.e, key: `${g.e.key}\u0000now`, line: place.at + 1, callees: [], pm: 0, ...(code ? { code } : {}) },
          false,
        ),
        baseLine: g.baseLine,
      };
      added.push(row);
    }
    inFile.set(row.e.line - 1, row);
    row.base += g.base;
    takeBase(row, g);
    row.baseLine = g.baseLine;
    row.changed = changedLine(g, row);
    dropped.add(g);
  }
  return [...rows.filter((m) => !dropped.has(m)), ...added];
}

/** The base line `g` rewritten as `now`: its place and code before and after, its old function if another. */
function changedLine(g: Merged, now: Merged): NonNullable<Merged['changed']> {
  return {
    baseLine: g.baseLine,
    before: g.e.code,
    after: now.e.code,
    ...(g.e.name !== now.e.name ? { baseFunction: g.e.name } : {}),
  };
}

/** Candidates for a rewritten line's new code: its own function first, then the nearest its place. */
const rank = (a: Merged, g: Merged, at: number): number =>
  (a.e.name === g.e.name ? 0 : 1_000_000) + Math.abs(a.e.line - 1 - at);

function pairByPlace(rows: Merged[]): Merged[] {
  const groupOf = (m: Merged): string => `${m.e.file}\u0000${m.e.name}\u0000${m.e.thread ?? ''}`;
  const gone = rows.filter((m) => m.inBase && !m.inCurrent && m.e.code !== undefined);
  const added = rows.filter((m) => m.inCurrent && !m.inBase && m.e.code !== undefined);
  if (gone.length === 0 || added.length === 0) return rows;
  const dropped = new Set<Merged>();
  for (const group of new Set(gone.map(groupOf))) {
    const stay = rows.filter((m) => m.inBase && m.inCurrent && groupOf(m) === group);
    // The function's shift: lines added or removed above it move all of its lines alike.
    const shifts = stay.map((m) => m.e.line - m.baseLine).sort((a, b) => a - b);
    const shift = shifts.length > 0 ? shifts[Math.floor(shifts.length / 2)] : 0;
    const candidates = added.filter((m) => groupOf(m) === group && !dropped.has(m));
    const pairs: Array<{ g: Merged; a: Merged; d: number }> = [];
    for (const g of gone.filter((m) => groupOf(m) === group))
      for (const a of candidates) {
        const d = Math.abs(a.e.line - (g.baseLine + shift));
        if (d <= CHANGED_LINE_REACH) pairs.push({ g, a, d });
      }
    pairs.sort((x, y) => x.d - y.d);
    const used = new Set<Merged>();
    for (const { g, a } of pairs) {
      if (used.has(g) || used.has(a)) continue;
      used.add(g).add(a);
      // One row where the new code is, carrying the old code's cost as its base.
      a.base += g.base;
      takeBase(a, g);
      a.baseLine = g.baseLine;
      a.changed = changedLine(g, a);
      dropped.add(g);
    }
  }
  return rows.filter((m) => !dropped.has(m));
}

const round = (v: number, digits = 2): number => {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};
