// A hint whose fix was applied but whose cost did not move: the line's code changed, yet its CPU
// per request is where it was (or the event loop is still saturated). Dropping the hint then
// would tell the user the problem is gone (bcryptjs's async compare still hashes on the main
// thread, in chunks); it is kept on the line, reworded. Pure: a comparison's rows in, hints out.
import type { Hint } from '../analysis/model.ts';
import type { VerdictWord } from './verdict.ts';
import type { ReportV1 } from '../report/index.ts';

/** The rule of a kept hint, so that readers can tell it from the analysis's own. */
export const FIX_DID_NOT_HELP = 'fix-did-not-help';

/** The parts of a cheaper/costlier row (compare.ts CostChange) this reads. */
interface LineRow {
  name: string;
  file: string;
  line: number;
  base: number;
  current: number;
  verdict?: VerdictWord;
  codeChanged?: { baseLine: number };
  /** Its saving was not carried by the request (compare.ts holdBackUncarried). */
  heldBack?: true;
  /** Its work moved to another function of the main thread (moved-work.ts). */
  moved?: { to?: unknown };
}

/** `loopSaturated`: the current run's event loop was busy past compare.ts SATURATED. */
export function keptHints(
  base: ReportV1,
  current: ReportV1,
  lines: LineRow[],
  unit: string,
  loopSaturated: boolean,
): Hint[] {
  const out: Hint[] = [];
  const loopBusy = current.eventLoop?.utilization;
  for (const h of base.hints) {
    const row = lines.find(
      (l) =>
        (l.codeChanged?.baseLine === h.line ||
          ((l.heldBack || l.moved?.to) && l.line === h.line && l.current < l.base)) &&
        l.file === h.file &&
        (h.function === '' || l.name === h.function),
    );
    // A line whose cost left it without the request getting cheaper: the work moved, say where.
    if (!row || (row.current <= 0 && !row.heldBack && !row.moved?.to)) continue;
    const moved = row.verdict === 'better';
    if (moved && !loopSaturated) continue;
    if (current.hints.some((x) => x.file === row.file && x.line === row.line)) continue; // the analysis still names it
    const cost = `${fmt(row.base)} → ${fmt(row.current)} ${unit}`;
    const loop = loopBusy !== undefined ? `, the event loop ${Math.round(loopBusy * 100)}% busy` : '';
    // Wrapped rather than fixed (a promise around the same call): the analysis finds the API elsewhere.
    const movedTo = current.hints.find((x) => x.api === h.api && !(x.file === row.file && x.line === row.line));
    const now = movedTo ? `; ${h.api} now runs at ${baseName(movedTo.file)}:${movedTo.line}` : '';
    const what =
      row.current < row.base / 2
        ? `did not make the request cheaper: its cost left the line (${cost}) but stayed in the request${now}${loop}`
        : `did not move its cost (${cost}${loop})`;
    out.push({
      ...h,
      rule: FIX_DID_NOT_HELP,
      line: row.line,
      message: `still blocks the event loop: the change to this line (was ${h.api}) ${what}; the new code still does its work on the main thread`,
      fix: 'move the work to a worker thread, or use an implementation that runs off the main thread (a native module on the threadpool)',
    });
  }
  return out;
}

const baseName = (file: string): string => file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);

const fmt = (v: number): string => (v >= 10 ? v.toFixed(0) : v >= 1 ? v.toFixed(1) : v.toFixed(3));
