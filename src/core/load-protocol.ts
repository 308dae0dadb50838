// The IPC contract between `LoadRun` (load.ts, in the caller's process) and the load runner
// child (load-runner.ts, forked). Plain data only: every message goes through Node's JSON
// IPC serialization. Both sides validate what they receive and ignore anything unknown.
//
// Order of a run:
//   parent → child  start            (once, right after fork)
//   child  → parent started          (autocannon is running, phase 'warmup' has begun)
//   child  → parent tick             (every second of the current phase)
//   parent → child  switch / finish  (each answered by one phase-result with the same seq; a
//                                     phase entered again adds to its total: sub-windows)
//   child  → parent fatal            (any time: the runner could not go on; it exits after)
// After `finish` is answered the child exits by itself. If the IPC channel closes
// (parent gone, or `disconnect()`), the child stops the load and exits at once.

export type LoadPhase = 'warmup' | 'measured' | 'profiled';
export const LOAD_PHASES: readonly LoadPhase[] = ['warmup', 'measured', 'profiled'];

/** Milliseconds. */
export interface LatencySummary {
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface PhaseResult {
  phase: LoadPhase;
  /** Measured by the runner, from the phase's start to its end. */
  durationS: number;
  /** `total`: responses received in the phase (any status code), like autocannon's. */
  requests: { total: number; perSecond: number };
  /**
   * Completed responses plus timed-out requests, each timeout counted AT the timeout value:
   * the percentiles are honest lower bounds. Socket errors carry no latency and are left out.
   */
  latencyMs: LatencySummary;
  /** Completed responses only (what autocannon prints: it leaves timeouts out). */
  completedLatencyMs: LatencySummary;
  /** Socket errors + timeouts (timeouts are a kind of error, as in autocannon). */
  errors: number;
  timeouts: number;
  /** Responses whose status is not 2xx. */
  non2xx: number;
  /** Status code → responses, e.g. { "200": 1234, "500": 2 }. */
  statusCodes: Record<string, number>;
  bytesPerSecond: number;
  /** CPU seconds used by the runner process during the phase ÷ phase seconds (1.0 ≈ one core). */
  loadCpu: number;
}

/** One second of the current phase; `second` counts from 1 and restarts with each phase. */
export interface LoadTick {
  phase: LoadPhase;
  second: number;
  requests: number;
  errors: number;
  non2xx: number;
}

/** What the runner needs to drive autocannon: already validated and defaulted by load.ts. */
export interface RunnerOptions {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  connections: number;
  pipelining: number;
  timeoutS: number;
  /** The load stops by itself after this many seconds, whatever happens to its parent. */
  maxDurationS?: number;
}

// ---------------------------------------------------------------------------------------------
// parent → child

export type ParentMessage =
  | { type: 'start'; options: RunnerOptions }
  | { type: 'switch'; seq: number; next: LoadPhase }
  | { type: 'finish'; seq: number };

// child → parent

export type RunnerMessage =
  | { type: 'started'; phase: LoadPhase }
  | { type: 'tick'; tick: LoadTick }
  /** `total`: every sub-window of this phase kind so far, this one included (see LoadRun.total). */
  | { type: 'phase-result'; seq: number; result: PhaseResult; total?: PhaseResult }
  | { type: 'fatal'; message: string };

// ---------------------------------------------------------------------------------------------
// validation

type Obj = Record<string, unknown>;

function isObj(x: unknown): x is Obj {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}
function isNum(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x);
}
function isCount(x: unknown): x is number {
  return isNum(x) && Number.isInteger(x) && x >= 0;
}
export function isLoadPhase(x: unknown): x is LoadPhase {
  return typeof x === 'string' && (LOAD_PHASES as readonly string[]).includes(x);
}
function isLatency(x: unknown): x is LatencySummary {
  return isObj(x) && isNum(x.mean) && isNum(x.p50) && isNum(x.p90) && isNum(x.p99) && isNum(x.max);
}
function isStringRecord(x: unknown, value: (v: unknown) => boolean): boolean {
  return isObj(x) && Object.values(x).every(value);
}

function isRunnerOptions(x: unknown): x is RunnerOptions {
  return (
    isObj(x) &&
    typeof x.url === 'string' &&
    typeof x.method === 'string' &&
    isStringRecord(x.headers, (v) => typeof v === 'string') &&
    (x.body === undefined || typeof x.body === 'string') &&
    isCount(x.connections) &&
    isCount(x.pipelining) &&
    isNum(x.timeoutS) &&
    (x.maxDurationS === undefined || (isNum(x.maxDurationS) && x.maxDurationS > 0))
  );
}

function isPhaseResult(x: unknown): x is PhaseResult {
  return (
    isObj(x) &&
    isLoadPhase(x.phase) &&
    isNum(x.durationS) &&
    isObj(x.requests) &&
    isCount(x.requests.total) &&
    isNum(x.requests.perSecond) &&
    isLatency(x.latencyMs) &&
    isLatency(x.completedLatencyMs) &&
    isCount(x.errors) &&
    isCount(x.timeouts) &&
    isCount(x.non2xx) &&
    isStringRecord(x.statusCodes, isCount) &&
    isNum(x.bytesPerSecond) &&
    isNum(x.loadCpu)
  );
}

function isTick(x: unknown): x is LoadTick {
  return (
    isObj(x) &&
    isLoadPhase(x.phase) &&
    isCount(x.second) &&
    isCount(x.requests) &&
    isCount(x.errors) &&
    isCount(x.non2xx)
  );
}

/** Validates a message received by the runner (child side); null for anything unknown. */
export function parseParentMessage(x: unknown): ParentMessage | null {
  if (!isObj(x)) return null;
  switch (x.type) {
    case 'start':
      return isRunnerOptions(x.options) ? { type: 'start', options: x.options } : null;
    case 'switch':
      return isCount(x.seq) && isLoadPhase(x.next) ? { type: 'switch', seq: x.seq, next: x.next } : null;
    case 'finish':
      return isCount(x.seq) ? { type: 'finish', seq: x.seq } : null;
    default:
      return null;
  }
}

/** Validates a message received by LoadRun (parent side); null for anything unknown. */
export function parseRunnerMessage(x: unknown): RunnerMessage | null {
  if (!isObj(x)) return null;
  switch (x.type) {
    case 'started':
      return isLoadPhase(x.phase) ? { type: 'started', phase: x.phase } : null;
    case 'tick':
      return isTick(x.tick) ? { type: 'tick', tick: x.tick } : null;
    case 'phase-result':
      return isCount(x.seq) && isPhaseResult(x.result) && (x.total === undefined || isPhaseResult(x.total))
        ? { type: 'phase-result', seq: x.seq, result: x.result, ...(x.total !== undefined ? { total: x.total } : {}) }
        : null;
    case 'fatal':
      return typeof x.message === 'string' ? { type: 'fatal', message: x.message } : null;
    default:
      return null;
  }
}
