// Block coverage (V8 precise coverage, taken during the warm-up under the same load) says which
// blocks of a function ran and how often. When a caller has several calls with the callee's name,
// it tells which of them actually ran, and in what proportion. Pure: the data comes in parsed.
import { fileOfUrl } from './categories.ts';

export interface CoverageRange {
  startOffset: number;
  endOffset: number;
  count: number;
}

/** Block ranges of every function of each script, by generated file path. */
export type CoverageByFile = ReadonlyMap<string, readonly CoverageRange[]>;

/** Reads Profiler.takePreciseCoverage's `result` (or a saved copy); anything malformed is skipped. */
export function readCoverage(raw: unknown): Map<string, CoverageRange[]> {
  const out = new Map<string, CoverageRange[]>();
  if (!Array.isArray(raw)) return out;
  for (const script of raw) {
    if (typeof script !== 'object' || script === null) continue;
    const { url, functions } = script as { url?: unknown; functions?: unknown };
    if (typeof url !== 'string' || !Array.isArray(functions)) continue;
    const ranges: CoverageRange[] = [];
    for (const fn of functions) {
      const list = (fn as { ranges?: unknown })?.ranges;
      if (!Array.isArray(list)) continue;
      for (const r of list) {
        const { startOffset, endOffset, count } = (r ?? {}) as Partial<CoverageRange>;
        if (Number.isInteger(startOffset) && Number.isInteger(endOffset) && Number.isInteger(count) && endOffset! >= startOffset! && count! >= 0) {
          ranges.push({ startOffset: startOffset!, endOffset: endOffset!, count: count! });
        }
      }
    }
    if (ranges.length > 0) out.set(fileOfUrl(url), ranges);
  }
  return out;
}

/** How often the code at `offset` ran: the count of the innermost block holding it. */
export function executionCount(ranges: readonly CoverageRange[], offset: number): number | undefined {
  let best: CoverageRange | undefined;
  for (const r of ranges) {
    if (r.startOffset <= offset && offset < r.endOffset && (!best || r.endOffset - r.startOffset < best.endOffset - best.startOffset)) best = r;
  }
  return best?.count;
}
