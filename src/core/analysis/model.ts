// The analysis result: plain data, the same shapes report.json carries (src/core/report/schema.ts).
/** Where a sample's top frame lives: the buckets of "where the CPU went". */
export type Category = 'user' | 'dependencies' | 'nodeInternals' | 'native' | 'gc' | 'idle' | 'program';
export const CATEGORIES: readonly Category[] = [
  'user',
  'dependencies',
  'nodeInternals',
  'native',
  'gc',
  'idle',
  'program',
];

export type CategoryTimes = Record<Category, number>;

export interface CallLink {
  name: string;
  file: string;
  /** 1-based; 0 for native code. */
  line: number;
  totalMs: number;
  /** The caller's line was found by reading its source, not given by V8. */
  inferred?: boolean;
}

export interface FunctionCost {
  name: string;
  /** Absolute path for code on disk, `node:…` for Node internals, "" for native code. */
  file: string;
  line: number;
  column: number;
  /** Last line of the function when its source was read (for lenses and ranges). */
  endLine?: number;
  category: Category;
  selfMs: number;
  totalMs: number;
  /** Of the non-idle time (`nonIdleMs`); V8's synthetic (idle), (program), (garbage collector) are in `categories`, not here. */
  selfPct: number;
  /**
   * Half-width of the 95% interval of selfPct, in points: from the run's samples in time (batch
   * means over consecutive blocks, never narrower than the binomial): `selfPct ± selfPctPm`.
   */
  selfPctPm?: number;
  totalPct: number;
  callers: CallLink[];
  callees: CallLink[];
  /** Run in worker threads: the percentages are of the workers' non-idle time (report.workers). */
  thread?: 'worker' | 'process';
}

export interface LineCost {
  file: string;
  line: number;
  /** The function the line belongs to. */
  function: string;
  /** Samples whose deepest workspace frame sits on this line (executing it or calling from it). */
  ownMs: number;
  ownPct: number;
  /**
   * Half-width of the 95% interval of ownPct, in points: from the run's samples in time and the
   * stack captures that split a call's time between lines (batch means over consecutive blocks,
   * never narrower than the binomial): `ownPct ± ownPctPm`. docs/attribution.md, "Precision".
   */
  ownPctPm?: number;
  /** Samples executing this line itself (top frame). */
  selfMs: number;
  /** Self time plus the calls made from this line, each sample once. */
  totalMs: number;
  selfPct: number;
  totalPct: number;
  callees: CallLink[];
  /** Where the line is in the generated JavaScript, when a source map moved it. */
  generated?: { file: string; line: number };
  /**
   * Run in worker threads: the percentages are of the workers' non-idle time (report.workers).
   * Run in the app's child processes ('process'): of theirs, all together (report.childProcesses).
   */
  thread?: 'worker' | 'process';
  /** With thread 'process': each child process's own time on the line, largest first. */
  processes?: Array<{ pid: number; ownMs: number }>;
  /**
   * The time belongs to one of these lines (1-based, `line` is the first) and nothing measured
   * which: a callee called from several lines with no stack capture to tell them apart.
   */
  oneOf?: number[];
  /** The line's code as analyzed (trimmed, at most 160 characters): a later run finds the line by it, whatever moved. */
  code?: string;
}

export interface Hint {
  rule: string;
  file: string;
  line: number;
  api: string;
  function: string;
  totalMs: number;
  totalPct: number;
  message: string;
  fix: string;
  /** The call is on one of these lines, which one unknown (see LineCost.oneOf). */
  oneOf?: number[];
}

export interface Analysis {
  durationMs: number;
  samples: number;
  intervalUs: number;
  /** Percentages in this result are of this: all sampled time but (idle). */
  nonIdleMs: number;
  categories: CategoryTimes;
  functions: FunctionCost[];
  lines: LineCost[];
  hints: Hint[];
  /** What the analysis had to skip or guess (a source map it ignored, a file it could not parse). */
  notes: string[];
}

// ---- allocation sampling (heap/heap.ts) ----

export interface HeapLine {
  file: string;
  /** 1-based: the first line of the allocating function (see the precision note above). */
  line: number;
  function: string;
  /** Bytes whose deepest frame of your code is this function (each byte counted once). */
  ownBytes: number;
  /** Of all bytes sampled in the profile. */
  ownPct: number;
}

export interface HeapFunction {
  name: string;
  file: string;
  line: number;
  column: number;
  category: Category;
  /** Allocated with this function on top of the stack (built-ins it calls count here too). */
  selfBytes: number;
  /** Allocated while it was on the stack, each byte once even under recursion. */
  totalBytes: number;
  selfPct: number;
  totalPct: number;
}

// ---- event-loop stalls (time/stalls.ts) ----

export interface StallLine {
  file: string;
  line: number;
  function: string;
  /** Own time of the line in the stall, ms (its samples in the stall's interval). */
  ownMs: number;
}

export interface Stall {
  /** ms from the profiled window's start (the merged profile's startTime). */
  startMs: number;
  durationMs: number;
  /** Lines of your code that ran in it, most own time first (at most STALL_LINES). */
  lines: StallLine[];
}

export interface StallSummary {
  thresholdMs: number;
  count: number;
  maxMs: number;
  totalMs: number;
}

// ---- threadpool waits (time/threadpool-waits.ts) ----

/** Requests a line of your code handed to libuv's threadpool (one API), and how long they waited. */
export interface ThreadpoolWait {
  file: string;
  line: number;
  function: string;
  /**
   * crypto.pbkdf2, zlib, fs, dns.lookup, …; `http.request` or `fetch` for an outgoing HTTP call;
   * `pg`, `mysql`, `redis` or `mongodb` for a data store.
   */
  api: string;
  /**
   * An outgoing call's target (its first seen, for one line): an HTTP call's method and host,
   * `GET 127.0.0.1:8080`; a data store's host and statement, `127.0.0.1:5432 SELECT … FROM orders`.
   */
  target?: string;
  /** Requests made in the profiled window that got their callback in it. */
  count: number;
  /** Requests per HTTP request served in the profiled window (0 when unknown). */
  perRequest: number;
  /** From the call to its callback: measured. */
  waitMs: { p50: number; p99: number; total: number };
  /**
   * Of it, waiting for a free thread: inferred (time/threadpool-waits.ts), an upper bound when the event
   * loop is busy. Always 0 for an HTTP call (it waits on the other side, not for the pool). For a
   * data store, waiting for a connection of the app's pool: measured (in-app/scripts/pool-probe.ts).
   */
  queuedMs: { p50: number; p99: number };
  /** A data store's calls that waited for a pool's connection: the pool's size (`max`, `connectionLimit`). */
  poolSize?: number;
}
