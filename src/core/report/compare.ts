// Run vs baseline: did the fix help? Load and event-loop figures side by side, and per function
// and per line what got cheaper or costlier, in ms per request so runs of different length and
// throughput compare fairly. Pure: two reports in, one comparison out.
// Where both runs carry sub-windows (report.load.subWindows), each load figure also gets its
// 95% interval and a verdict (verdict.ts): "within noise" when the runs' own spread covers it.
import type { ReportV1, SubWindowFigures } from './schema.ts';
import { CATEGORIES, type Category } from '../analysis/model.ts';
import { changeOf, costChangeOf, logSd, type Change, type Direction, type VerdictWord } from './verdict.ts';

export interface Delta {
  base: number;
  current: number;
  change: number;
  /** Relative change in %, undefined when the base is 0. */
  changePct?: number;
  /** The change against the runs' noise (both runs with sub-windows): its interval and verdict. */
  noise?: Change;
}

export interface CostChange {
  name: string;
  file: string;
  line: number;
  /** ms of CPU per request served in the profiled window (ms of CPU when the run had no load). */
  base: number;
  current: number;
  change: number;
  /** Run in worker threads (the key includes it: the same line on the main thread is another entry). */
  thread?: 'worker' | 'process';
  /**
   * Against the noise: the 95% interval of the change in % and its verdict, inferred from the
   * samples behind each side and the runs' spread of CPU per request (verdict.ts costChangeOf).
   */
  verdict?: VerdictWord;
  lowPct?: number;
  highPct?: number;
}

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

export function compareReports(base: ReportV1, current: ReportV1, limit = 20): Comparison {
  const baseReq = profiledRequests(base);
  const curReq = profiledRequests(current);
  const perRequest = baseReq !== undefined && curReq !== undefined;
  const scaleBase = (ms: number): number => (perRequest ? ms / baseReq : ms);
  const scaleCur = (ms: number): number => (perRequest ? ms / curReq! : ms);

  const out: Comparison = {
    baseId: base.id,
    currentId: current.id,
    unit: perRequest ? 'ms/request' : 'ms',
    categories: Object.fromEntries(
      CATEGORIES.map((c) => [
        c,
        delta(round(scaleBase(base.categories[c] ?? 0), 3), round(scaleCur(current.categories[c] ?? 0), 3)),
      ]),
    ) as Record<Category, Delta>,
    // The user's own functions by total time: the framework frames above a fix all change by
    // the same amount and would bury it.
    functions: changes(
      yours(base.functions).map((f) => ({
        key: `${f.name}\u0000${f.file}\u0000${f.thread ?? ''}`,
        name: f.name,
        file: f.file,
        line: f.line,
        thread: f.thread,
        ms: scaleBase(f.totalMs),
      })),
      yours(current.functions).map((f) => ({
        key: `${f.name}\u0000${f.file}\u0000${f.thread ?? ''}`,
        name: f.name,
        file: f.file,
        line: f.line,
        thread: f.thread,
        ms: scaleCur(f.totalMs),
      })),
      limit,
    ),
    lines: changes(
      lineEntries(base.lines).map((e) => ({ ...e, ms: scaleBase(e.ms) })),
      lineEntries(current.lines).map((e) => ({ ...e, ms: scaleCur(e.ms) })),
      limit,
    ),
  };
  if (base.load && current.load) {
    const b = base.load;
    const c = current.load;
    const bw = b.subWindows?.measured ?? [];
    const cw = c.subWindows?.measured ?? [];
    const noisy = (d: Delta, pick: (w: SubWindowFigures) => number | undefined, direction: Direction): Delta => {
      const change =
        bw.length > 0 && cw.length > 0 ? changeOf(values(bw, pick), values(cw, pick), direction) : undefined;
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
      errors: delta(b.errors, c.errors),
      timeouts: delta(b.timeouts, c.timeouts),
      non2xx: delta(b.non2xx, c.non2xx),
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
    addCostNoise(out, base, current);
  }
  if (base.eventLoop && current.eventLoop) {
    const b = base.eventLoop;
    const c = current.eventLoop;
    out.eventLoop = {
      p50: delta(b.delayMs.p50, c.delayMs.p50),
      p99: delta(b.delayMs.p99, c.delayMs.p99),
      max: delta(b.delayMs.max, c.delayMs.max),
      utilization: delta(b.utilization, c.utilization),
    };
  }
  return out;
}

/**
 * Lines keyed by their file, function and code, not their number: a fix that adds or removes
 * lines above moves every line below it, and the same code must still meet itself. Equal code
 * in one function (two `res.end(body)`) is told apart by its order; a line without code (a
 * report from before it was recorded) falls back to its number.
 */
function lineEntries(lines: ReportV1['lines']): Entry[] {
  const seen = new Map<string, number>();
  return [...lines]
    .sort((a, b) => a.line - b.line)
    .map((l) => {
      const base = `${l.file}\u0000${l.function}\u0000${l.thread ?? ''}\u0000${l.oneOf ? `one of ${l.oneOf.join(',')}` : (l.code ?? `#${l.line}`)}`;
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      return { key: `${base}\u0000${n}`, name: l.function, file: l.file, line: l.line, thread: l.thread, ms: l.ownMs };
    });
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

/** Cheaper/costlier rows against the noise: the samples behind each side and the runs' CPU spread. */
function addCostNoise(out: Comparison, base: ReportV1, current: ReportV1): void {
  const side = (
    r: ReportV1,
    ms: number,
    perRequest: number,
  ): { ms: number; samples: number; cpuLogSd?: number; k?: number } => {
    const ws = r.load?.subWindows?.measured ?? [];
    // ms per request back to ms of profile, and ms of profile to samples.
    const samples = (ms * perRequest * 1000) / Math.max(r.profile.intervalUs, 1);
    return { ms, samples, cpuLogSd: logSd(ws.map((w) => w.cpuMsPerRequest ?? NaN)), k: ws.length };
  };
  const bReq = out.unit === 'ms/request' ? (profiledRequests(base) ?? 1) : 1;
  const cReq = out.unit === 'ms/request' ? (profiledRequests(current) ?? 1) : 1;
  for (const row of [...out.functions, ...out.lines]) {
    Object.assign(row, costChangeOf(side(base, row.base, bReq), side(current, row.current, cReq)));
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
}

/** Matched by name and file, not line: a fix moves lines. Functions only in one run count as 0 in the other. */
function changes(base: Entry[], current: Entry[], limit: number): CostChange[] {
  const merged = new Map<string, { e: Entry; base: number; current: number }>();
  for (const e of base) {
    const m = merged.get(e.key) ?? { e, base: 0, current: 0 };
    m.base += e.ms;
    merged.set(e.key, m);
  }
  for (const e of current) {
    const m = merged.get(e.key) ?? { e, base: 0, current: 0 };
    m.current += e.ms;
    m.e = e; // show where it is now
    merged.set(e.key, m);
  }
  const all = [...merged.values()]
    .map(({ e, base: b, current: c }) => ({
      name: e.name,
      file: e.file,
      line: e.line,
      ...(e.thread ? { thread: e.thread } : {}),
      base: round(b, 3),
      current: round(c, 3),
      change: round(c - b, 3),
    }))
    .filter((x) => x.change !== 0);
  const cheaper = all
    .filter((x) => x.change < 0)
    .sort((a, b) => a.change - b.change)
    .slice(0, limit);
  const costlier = all
    .filter((x) => x.change > 0)
    .sort((a, b) => b.change - a.change)
    .slice(0, limit);
  return [...cheaper, ...costlier];
}

const round = (v: number, digits = 2): number => {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};
