// Run vs baseline: did the fix help? Load and event-loop figures side by side, and per function
// and per line what got cheaper or costlier, in ms per request so runs of different length and
// throughput compare fairly. Pure: two reports in, one comparison out.
import type { ReportV1 } from './schema.ts';
import { CATEGORIES, type Category } from '../analysis/model.ts';

export interface Delta {
  base: number;
  current: number;
  change: number;
  /** Relative change in %, undefined when the base is 0. */
  changePct?: number;
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
  thread?: 'worker';
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
  };
  eventLoop?: { p50: Delta; p99: Delta; max: Delta; utilization: Delta };
  categories: Record<Category, Delta>;
  /** Functions of the user's code by total time; the largest savings first, then the increases. */
  functions: CostChange[];
  lines: CostChange[];
}

export function delta(base: number, current: number): Delta {
  const change = round(current - base);
  return base !== 0 ? { base, current, change, changePct: round(((current - base) / Math.abs(base)) * 100, 1) } : { base, current, change };
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
    categories: Object.fromEntries(CATEGORIES.map((c) => [c, delta(round(scaleBase(base.categories[c] ?? 0), 3), round(scaleCur(current.categories[c] ?? 0), 3))])) as Record<Category, Delta>,
    // The user's own functions by total time: the framework frames above a fix all change by
    // the same amount and would bury it.
    functions: changes(
      yours(base.functions).map((f) => ({ key: `${f.name}\u0000${f.file}\u0000${f.thread ?? ''}`, name: f.name, file: f.file, line: f.line, thread: f.thread, ms: scaleBase(f.totalMs) })),
      yours(current.functions).map((f) => ({ key: `${f.name}\u0000${f.file}\u0000${f.thread ?? ''}`, name: f.name, file: f.file, line: f.line, thread: f.thread, ms: scaleCur(f.totalMs) })),
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
    out.load = {
      requestsPerSecond: delta(b.requests.perSecond, c.requests.perSecond),
      latencyMs: { p50: delta(b.latencyMs.p50, c.latencyMs.p50), p90: delta(b.latencyMs.p90, c.latencyMs.p90), p99: delta(b.latencyMs.p99, c.latencyMs.p99), max: delta(b.latencyMs.max, c.latencyMs.max) },
      errors: delta(b.errors, c.errors),
      timeouts: delta(b.timeouts, c.timeouts),
      non2xx: delta(b.non2xx, c.non2xx),
    };
  }
  if (base.eventLoop && current.eventLoop) {
    const b = base.eventLoop;
    const c = current.eventLoop;
    out.eventLoop = { p50: delta(b.delayMs.p50, c.delayMs.p50), p99: delta(b.delayMs.p99, c.delayMs.p99), max: delta(b.delayMs.max, c.delayMs.max), utilization: delta(b.utilization, c.utilization) };
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
  return [...lines].sort((a, b) => a.line - b.line).map((l) => {
    const base = `${l.file}\u0000${l.function}\u0000${l.thread ?? ''}\u0000${l.oneOf ? `one of ${l.oneOf.join(',')}` : l.code ?? `#${l.line}`}`;
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return { key: `${base}\u0000${n}`, name: l.function, file: l.file, line: l.line, thread: l.thread, ms: l.ownMs };
  });
}

function yours(functions: ReportV1['functions']): ReportV1['functions'] {
  return functions.filter((f) => f.category === 'user');
}

interface Entry {
  key: string;
  name: string;
  file: string;
  line: number;
  thread?: 'worker';
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
    .map(({ e, base: b, current: c }) => ({ name: e.name, file: e.file, line: e.line, ...(e.thread ? { thread: e.thread } : {}), base: round(b, 3), current: round(c, 3), change: round(c - b, 3) }))
    .filter((x) => x.change !== 0);
  const cheaper = all.filter((x) => x.change < 0).sort((a, b) => a.change - b.change).slice(0, limit);
  const costlier = all.filter((x) => x.change > 0).sort((a, b) => b.change - a.change).slice(0, limit);
  return [...cheaper, ...costlier];
}

const round = (v: number, digits = 2): number => {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};
