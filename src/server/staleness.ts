// Which line of the document, as it is now, a report line (counted in the text the run analyzed)
// lands on. Identical text maps each line to itself; otherwise a line diff of the snapshot
// (sources.json) against the current text: lines in unchanged regions follow their new numbers,
// lines inside a changed hunk are dropped. A cost on the wrong line is worse than none
// (docs/architecture.md, "How time is counted"), so nothing is guessed. A file the run has no snapshot of is not mapped at all:
// its costs are not shown (see mapLines' caller).
import { correspondence, splitLines } from '../core/index.ts';

export { splitLines };

export interface LineMapping {
  /** The texts are the same: every line maps to itself. */
  identical: boolean;
  /** More than half of the lines of interest were dropped: show nothing for this file. */
  changedBeyondMapping: boolean;
  /** Lines of interest (1-based, snapshot) that fell in a changed hunk. */
  dropped: number[];
  /** 1-based line in the snapshot → 0-based line in the current text, or undefined when dropped. */
  toCurrent(line: number): number | undefined;
  /** 0-based line in the current text → 1-based line in the snapshot, or undefined for a new or changed line. */
  toSnapshot(line0: number): number | undefined;
}

/**
 * Maps lines of `snapshot` to `current`. `linesOfInterest` (1-based, in the snapshot) are the
 * lines that carry a cost: the share of them dropped decides `changedBeyondMapping`.
 */
export function mapLines(snapshot: string, current: string, linesOfInterest: readonly number[]): LineMapping {
  const oldLines = splitLines(snapshot);
  const interest = [...new Set(linesOfInterest)].sort((a, b) => a - b);
  if (snapshot === current) {
    const inRange = (l: number): boolean => Number.isInteger(l) && l >= 1 && l <= oldLines.length;
    const dropped = interest.filter((l) => !inRange(l));
    return {
      identical: true,
      changedBeyondMapping: dropped.length * 2 > interest.length,
      dropped,
      toCurrent: (l) => (inRange(l) ? l - 1 : undefined),
      toSnapshot: (l0) => (inRange(l0 + 1) ? l0 + 1 : undefined),
    };
  }
  const { oldToNew, newToOld } = correspondence(snapshot, current);
  const toCurrent = (l: number): number | undefined => {
    if (!Number.isInteger(l) || l < 1 || l > oldToNew.length) return undefined;
    const m = oldToNew[l - 1];
    return m >= 0 ? m : undefined;
  };
  const toSnapshot = (l0: number): number | undefined => {
    if (!Number.isInteger(l0) || l0 < 0 || l0 >= newToOld.length) return undefined;
    const m = newToOld[l0];
    return m >= 0 ? m + 1 : undefined;
  };
  const dropped = interest.filter((l) => toCurrent(l) === undefined);
  return {
    identical: false,
    changedBeyondMapping: dropped.length * 2 > interest.length,
    dropped,
    toCurrent,
    toSnapshot,
  };
}
