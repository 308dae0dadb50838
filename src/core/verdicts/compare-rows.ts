// The rows of a run-vs-baseline comparison (compare.ts): a figure's change, a line's or a
// function's change and the work that moved between rows. Apart from compare.ts so that the
// modules it calls (moved-work.ts, route-compare.ts) can name them without a cycle.
import type { Change, VerdictWord } from './verdict.ts';

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
   * Against the noise: the 95% interval of the change in % and its verdict, by the headline's
   * test of CPU per request widened by the row's own sampling error (verdict.ts rowChangeOf).
   * A row whose work moved (`moved`): the work's verdict, its interval in `moved`.
   */
  verdict?: VerdictWord;
  lowPct?: number;
  highPct?: number;
  /**
   * The profile alone called it cheaper or costlier, but the request's CPU per request did not
   * move that way beyond its noise: the verdict is then `within noise` (a line's saving is claimed
   * only when the request carries it).
   */
  heldBack?: true;
  /** A line whose code changed: one row, before → after, not a vanished line and a new one. */
  codeChanged?: {
    baseLine: number;
    before?: string;
    after?: string;
    /** The function the line was in, when the rewrite put it in another (a callback of new code). */
    baseFunction?: string;
  };
  /** Its cost moved to another row or came from one (moved-work.ts): no saving, no new cost. */
  moved?: MovedWork;
}

/** A line of the base whose code is gone now (deleted, not rewritten): its row is where it was. */
export function isRemovedLine(x: CostChange): boolean {
  return x.codeChanged?.after === undefined && x.codeChanged?.before !== undefined && x.current === 0;
}

export interface Place {
  name: string;
  file: string;
  line: number;
}

/** Work that left one row for another, and its own change (moved-work.ts). */
export interface MovedWork {
  /** On the row the work left: where it is now. */
  to?: Place;
  /** On the row it went to: where it was. */
  from?: Place;
  /** A function that moved with a callee of its (the handler above a moved call): that callee. */
  via?: Place;
  /** How the pair was found: a callee that is most of both rows' cost, or a line's own code. */
  how: 'callee' | 'code';
  /** The work's cost where it was and where it is now, in the comparison's unit. */
  base: number;
  current: number;
  verdict?: VerdictWord;
  lowPct?: number;
  highPct?: number;
}
