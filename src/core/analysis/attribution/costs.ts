// The analysis' output rows: per-function and per-line accumulators → the functions and lines of
// report.json, rounded and ranked. Pure.
import type { Category } from './categories.ts';
import type { FunctionScope, ScriptIndex } from './callsites.ts';
import type { CallLink, FunctionCost, LineCost } from '../model.ts';

export interface FunctionInfo {
  name: string;
  file: string;
  line: number;
  column: number;
  category: Category;
  generatedFile: string;
  scope?: FunctionScope;
  index?: ScriptIndex;
  /** The frame's position is no function head in the source at hand: the file changed since the profile. */
  stale?: boolean;
}

export interface LineAcc {
  file: string;
  line: number;
  fn: string;
  /** Every function a line record was asked for under (a line holding several: a callback's), with its own time. */
  fnOwnUs?: Map<string, number>;
  ownUs: number;
  selfUs: number;
  totalUs: number;
  callees: Map<number, { us: number; inferred: boolean }>;
  generated?: { file: string; line: number };
  /** Half-width of the 95% interval of the line's own share (0..1 of non-idle time): time/line-intervals.ts. */
  ownPm?: number;
  /** Time that belongs to one of these lines, which one unknown (nothing measured told them apart). */
  oneOf?: number[];
}

export const ms = (us: number): number => Math.round(us / 10) / 100;
/** A half-width in points of percentage, from a fraction: rounded up (an interval never claims more than it has). */
const pm = (frac: number): number => Math.ceil(frac * 10000) / 100;
export const pct = (part: number, whole: number): number => (whole > 0 ? Math.round((part / whole) * 10000) / 100 : 0);

/** The functions of report.json: by self time, every one of the user's code and others to `limit`. */
export function functionCosts(
  fns: readonly FunctionInfo[],
  times: {
    fnSelf: Float64Array;
    fnTotal: Float64Array;
    edges: Map<number, Map<number, number>>;
    /** Per function: half-width of its self share's 95% interval (0..1), when known. */
    fnPm?: Float64Array;
  },
  nonIdleUs: number,
  limit: number,
  hasSourceMap: (generatedFile: string) => boolean,
): FunctionCost[] {
  const { fnSelf, fnTotal, edges, fnPm } = times;
  const callers = new Map<number, Map<number, number>>();
  for (const [from, out] of edges) {
    for (const [to, us] of out) {
      const into = callers.get(to) ?? new Map<number, number>();
      into.set(from, (into.get(from) ?? 0) + us);
      callers.set(to, into);
    }
  }
  const links = (m: Map<number, number> | undefined): CallLink[] =>
    [...(m ?? new Map<number, number>())]
      .filter(([fi]) => !isSynthetic(fns[fi]))
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([fi, us]) => ({ name: fns[fi].name, file: fns[fi].file, line: fns[fi].line, totalMs: ms(us) }));
  const order = fns
    .map((_, i) => i)
    // V8's synthetic frames, (idle), (program) and (garbage collector), are no function: their
    // time is in the categories, whose base is stated there. A share of non-idle time for (idle)
    // would exceed 100% on a mostly idle app, and rank it as "the top function".
    .filter((i) => (fnTotal[i] > 0 || fnSelf[i] > 0) && !isSynthetic(fns[i]))
    .sort((a, b) => fnSelf[b] - fnSelf[a] || fnTotal[b] - fnTotal[a]);
  // Every function of the user's code is kept (the editor puts a lens on each); others to a limit.
  const kept = order.filter((i, rank) => rank < limit || fns[i].category === 'user');
  return kept.map((i) => {
    const f = fns[i];
    return {
      name: f.name,
      file: f.file,
      line: f.line,
      column: f.column,
      endLine: f.scope && !f.scope.isProgram && !hasSourceMap(f.generatedFile) ? f.scope.endLine : undefined,
      category: f.category,
      selfMs: ms(fnSelf[i]),
      totalMs: ms(fnTotal[i]),
      selfPct: pct(fnSelf[i], nonIdleUs),
      ...(fnPm && fnSelf[i] > 0 ? { selfPctPm: pm(fnPm[i]) } : {}),
      totalPct: pct(fnTotal[i], nonIdleUs),
      callers: links(callers.get(i)),
      callees: links(edges.get(i)),
    };
  });
}

/** The lines of report.json, by own time. */
export function lineCosts(
  lines: Iterable<LineAcc>,
  fns: readonly FunctionInfo[],
  nonIdleUs: number,
  limit: number,
): LineCost[] {
  return [...lines]
    .filter((l) => l.ownUs > 0 || l.totalUs > 0)
    .sort((a, b) => b.ownUs - a.ownUs || b.totalUs - a.totalUs)
    .slice(0, limit)
    .map((l) => ({
      file: l.file,
      line: l.line,
      function: l.fn,
      ownMs: ms(l.ownUs),
      ownPct: pct(l.ownUs, nonIdleUs),
      ...(l.ownPm !== undefined && l.ownUs > 0 ? { ownPctPm: pm(l.ownPm) } : {}),
      selfMs: ms(l.selfUs),
      totalMs: ms(l.totalUs),
      selfPct: pct(l.selfUs, nonIdleUs),
      totalPct: pct(l.totalUs, nonIdleUs),
      callees: [...l.callees]
        .sort((a, b) => b[1].us - a[1].us)
        .slice(0, 8)
        .map(([fi, c]) => ({
          name: fns[fi].name,
          file: fns[fi].file,
          line: fns[fi].line,
          totalMs: ms(c.us),
          inferred: c.inferred,
        })),
      ...(l.generated ? { generated: l.generated } : {}),
      ...(l.oneOf ? { oneOf: l.oneOf } : {}),
    }));
}

function isSynthetic(f: FunctionInfo): boolean {
  return f.file === '' && f.name.startsWith('(');
}
