// Which line of one text of a file is which line of another: a line diff (jsdiff's Myers). The
// editor maps a run's costs through later edits with it (server/staleness.ts), and a comparison
// finds the lines a fix changed with it (compare.ts): a line's code, not its number, says what
// it is, and only the two texts say which lines were rewritten.
import { diffArrays } from 'diff';

/**
 * A diff of texts this different is not worth finishing: the file was rewritten. Bounds the work
 * per keystroke on large files.
 */
export const MAX_EDIT_LENGTH = 4000;

/** Splits text into lines the way editors count them (\n, \r\n or \r). */
export function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

export interface LineCorrespondence {
  oldLines: string[];
  newLines: string[];
  /** oldToNew[i]: the 0-based new line of 0-based old line i when it is unchanged, else -1. */
  oldToNew: Int32Array;
  /** newToOld[i] likewise, the other way. */
  newToOld: Int32Array;
  /** False when the diff was given up (past MAX_EDIT_LENGTH): no line corresponds. */
  complete: boolean;
}

export function correspondence(oldText: string, newText: string): LineCorrespondence {
  const oldLines = splitLines(oldText);
  const newLines = splitLines(newText);
  const oldToNew = new Int32Array(oldLines.length).fill(-1);
  const newToOld = new Int32Array(newLines.length).fill(-1);
  const changes = diffArrays(oldLines, newLines, { maxEditLength: MAX_EDIT_LENGTH });
  if (changes) {
    let o = 0;
    let n = 0;
    for (const c of changes) {
      if (c.added) n += c.count;
      else if (c.removed) o += c.count;
      else {
        for (let k = 0; k < c.count; k++) {
          oldToNew[o + k] = n + k;
          newToOld[n + k] = o + k;
        }
        o += c.count;
        n += c.count;
      }
    }
  }
  return { oldLines, newLines, oldToNew, newToOld, complete: changes !== undefined };
}

/**
 * Where a changed old line (0-based, oldToNew −1) is now: the new lines between its unchanged
 * neighbours' new places, the one at its own offset in that hunk, and whether the hunk kept its
 * number of lines (then that one is its new code, line for line). Undefined when the hunk has
 * no new lines (the line was deleted) or the diff was given up.
 */
export function newPlaceOf(
  c: LineCorrespondence,
  oldLine: number,
): { first: number; last: number; at: number; sameSize: boolean } | undefined {
  if (!c.complete || oldLine < 0 || oldLine >= c.oldToNew.length || c.oldToNew[oldLine] >= 0) return undefined;
  let before = oldLine - 1;
  while (before >= 0 && c.oldToNew[before] < 0) before--;
  let after = oldLine + 1;
  while (after < c.oldToNew.length && c.oldToNew[after] < 0) after++;
  const first = before >= 0 ? c.oldToNew[before] + 1 : 0;
  const last = after < c.oldToNew.length ? c.oldToNew[after] - 1 : c.newLines.length - 1;
  if (last < first) return undefined;
  // As many new lines as old ones: each rewritten line is the one at its own offset.
  const sameSize = last - first === after - before - 2;
  return { first, last, at: Math.min(first + (oldLine - before - 1), last), sameSize };
}
