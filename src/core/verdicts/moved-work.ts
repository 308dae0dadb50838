// Work that moved between functions: an edit that wraps a call in a helper, a callback or another
// function moves its cost, and a comparison keyed by function (and a line's key holds its
// function) then shows a saving where the work left and a new cost where it arrived — neither is
// a change of the request. The two rows are paired by the work they share: the same callee (a
// call link to the same function), most of the cost of each, fell in one and rose in the other;
// or, for a line, the same code left one function and appeared in another. A function whose fall
// is a callee that moved (a handler above it) moved with it. Both rows then carry the work's own
// change, judged as a row's is (verdict.ts rowChangeOf). Pure.
import type { CallLink } from '../analysis/model.ts';
import type { CostChange, MovedWork } from './compare-rows.ts';
import { rowChangeOf } from './verdict.ts';

/** What a row was made of on each side, beside its figures (compare.ts changes). */
export interface RowParts {
  /** Call links from the row, totals in the row's unit (ms per request or ms). */
  baseCallees: readonly CallLink[];
  currentCallees: readonly CallLink[];
  /** A line's code, base and now. */
  baseCode?: string;
  currentCode?: string;
  /** Half-widths of the 95% interval of each side's figure, in the row's unit. */
  basePm: number;
  currentPm: number;
}

/** A callee carries the work that moved when it is at least this share of the row's cost (each side). */
const MOST = 0.5;
/**
 * A callee's total past this many times a line's own cost is mostly other lines' own time (deeper
 * lines of your code): not this row's work.
 */
const WITHIN = 1.1;

const linkKey = (l: Pick<CallLink, 'name' | 'file' | 'line'>): string => `${l.name}\u0000${l.file}\u0000${l.line}`;

function totals(links: readonly CallLink[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const l of links) m.set(linkKey(l), (m.get(linkKey(l)) ?? 0) + l.totalMs);
  return m;
}

/**
 * Marks the rows whose cost moved to another row (`moved.to`) and the rows it went to
 * (`moved.from`); `cpu`: each run's CPU per request per sub-window, for the work's verdict
 * (undefined: runs without load figures, whose rows carry no verdict).
 * `functions`: rows are functions (a function is also paired through a callee that moved).
 */
export function pairMovedWork(
  rows: CostChange[],
  parts: ReadonlyMap<CostChange, RowParts>,
  cpu: { base: readonly number[]; current: readonly number[] } | undefined,
  functions: boolean,
): void {
  const partsOf = (r: CostChange): RowParts =>
    parts.get(r) ?? { baseCallees: [], currentCallees: [], basePm: 0, currentPm: 0 };
  // Only costs beyond their own sampling error: a few samples that moved are no finding.
  const fell = rows.filter((r) => r.change < 0 && r.thread === undefined && r.base > partsOf(r).basePm);
  const rose = rows.filter((r) => r.change > 0 && r.thread === undefined && r.current > partsOf(r).currentPm);
  if (fell.length === 0 || rose.length === 0) return;
  const place = (r: CostChange): MovedWork['to'] => ({ name: r.name, file: r.file, line: r.line });
  const mark = (g: CostChange, a: CostChange, base: number, current: number, how: MovedWork['how']): void => {
    const pg = partsOf(g);
    const pa = partsOf(a);
    const v = cpu
      ? rowChangeOf(
          { ms: base, pmMs: pg.basePm * (g.base > 0 ? base / g.base : 1), cpu: cpu.base },
          { ms: current, pmMs: pa.currentPm * (a.current > 0 ? current / a.current : 1), cpu: cpu.current },
        )
      : {};
    const work = { base: round(base), current: round(current), how, ...v };
    g.moved = { to: place(a), ...work };
    // The row the work went to names where it came from once (the first row that moved there).
    if (!a.moved) a.moved = { from: place(g), ...work };
  };
  // The same callee, most of each row's cost, fell here and rose there.
  for (const g of fell) {
    const pg = partsOf(g);
    const before = totals(pg.baseCallees);
    const after = totals(pg.currentCallees);
    let best: { a: CostChange; base: number; current: number } | undefined;
    for (const [key, ms] of before) {
      const lost = ms - (after.get(key) ?? 0);
      if (ms < g.base * MOST || ms > g.base * WITHIN || lost < -g.change * MOST) continue;
      for (const a of rose) {
        if (a === g || a.moved?.to) continue;
        const pa = partsOf(a);
        const now = totals(pa.currentCallees).get(key) ?? 0;
        const gained = now - (totals(pa.baseCallees).get(key) ?? 0);
        if (now < a.current * MOST || now > a.current * WITHIN || gained < a.change * MOST) continue;
        if (!best || gained > best.current) best = { a, base: ms, current: now };
      }
    }
    if (best) mark(g, best.a, best.base, best.current, 'callee');
  }
  // A line's own code that left one function and appeared in another, once each.
  if (!functions) {
    const taken = new Set<CostChange>();
    for (const g of fell.filter((r) => !r.moved && r.current === 0)) {
      const code = partsOf(g).baseCode;
      if (!code) continue;
      const same = rose.filter(
        (a) =>
          !taken.has(a) && a.base === 0 && partsOf(a).currentCode === code && (a.name !== g.name || a.file !== g.file),
      );
      if (same.length !== 1) continue; // ambiguous: no pair rather than a wrong one
      taken.add(same[0]);
      mark(g, same[0], g.base, same[0].current, 'code');
    }
  }
  // A function whose fall is a callee of its that moved: moved with it (a handler above the call).
  if (functions) {
    const movedFn = new Map(fell.filter((r) => r.moved?.to).map((r) => [linkKey(r), r]));
    for (const g of fell.filter((r) => !r.moved)) {
      const pg = partsOf(g);
      const after = totals(pg.currentCallees);
      for (const [key, ms] of totals(pg.baseCallees)) {
        const callee = movedFn.get(key);
        if (!callee?.moved || ms < -g.change * MOST || ms - (after.get(key) ?? 0) < -g.change * MOST) continue;
        g.moved = { ...callee.moved, to: callee.moved.to, via: place(callee) };
        break;
      }
    }
  }
}

const round = (v: number): number => Math.round(v * 1000) / 1000;
