// The IPC contract between `LoadRun` (load-run.ts, in the caller's process) and the load runner
// child (runner.ts, forked). Plain data only: every message goes through Node's JSON
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

import {
  arr,
  count,
  isObject,
  num,
  oneOf,
  record,
  shape,
  str,
  type LatencySummary,
  type RouteLoadFigures,
} from '../report/index.ts';
import type { MixRequest } from './mix-types.ts';

export type LoadPhase = 'warmup' | 'measured' | 'profiled';
export const LOAD_PHASES: readonly LoadPhase[] = ['warmup', 'measured', 'profiled'];

/** Milliseconds. */
export type { LatencySummary, RouteLoadFigures };

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
  /** With a request mix: each route's own figures in the phase (route-stats.ts). */
  routes?: RouteLoadFigures[];
}

/** One second of the current phase; `second` counts from 1 and restarts with each phase. */
export interface LoadTick {
  phase: LoadPhase;
  second: number;
  requests: number;
  errors: number;
  non2xx: number;
}

/** What the runner needs to drive autocannon: validated and defaulted by normalizeLoadOptions (load-run.ts). */
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
  /** A request mix: sent in proportion to their weights, to `url`'s host and port; `headers` go with each. */
  requests?: MixRequest[];
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

const isLatencySummary = shape({ mean: num, p50: num, p90: num, p99: num, max: num });

export function isLoadPhase(x: unknown): x is LoadPhase {
  return oneOf(...LOAD_PHASES)(x);
}

const isRunnerOptions = shape(
  { url: str, method: str, headers: record(str), connections: count, pipelining: count, timeoutS: num },
  {
    body: str,
    maxDurationS: (v) => num(v) && (v as number) > 0,
    requests: arr(
      shape(
        { method: str, path: str, headers: record(str), weight: (v) => num(v) && (v as number) > 0 },
        { body: str },
      ),
    ),
  },
) as (x: unknown) => x is RunnerOptions;

const isPhaseResult = shape(
  {
    phase: isLoadPhase,
    durationS: num,
    requests: shape({ total: count, perSecond: num }),
    latencyMs: isLatencySummary,
    completedLatencyMs: isLatencySummary,
    errors: count,
    timeouts: count,
    non2xx: count,
    statusCodes: record(count),
    bytesPerSecond: num,
    loadCpu: num,
  },
  {
    routes: arr(
      shape({
        method: str,
        route: str,
        requests: count,
        reqPerSec: num,
        latencyMs: isLatencySummary,
        errors: count,
        timeouts: count,
        non2xx: count,
      }),
    ),
  },
) as (x: unknown) => x is PhaseResult;

const isTick = shape({ phase: isLoadPhase, second: count, requests: count, errors: count, non2xx: count }) as (
  x: unknown,
) => x is LoadTick;

/** Validates a message received by the runner (child side); null for anything unknown. */
export function parseParentMessage(x: unknown): ParentMessage | null {
  if (!isObject(x)) return null;
  switch (x.type) {
    case 'start':
      return isRunnerOptions(x.options) ? { type: 'start', options: x.options } : null;
    case 'switch':
      return count(x.seq) && isLoadPhase(x.next) ? { type: 'switch', seq: x.seq, next: x.next } : null;
    case 'finish':
      return count(x.seq) ? { type: 'finish', seq: x.seq } : null;
    default:
      return null;
  }
}

/** Validates a message received by LoadRun (parent side); null for anything unknown. */
export function parseRunnerMessage(x: unknown): RunnerMessage | null {
  if (!isObject(x)) return null;
  switch (x.type) {
    case 'started':
      return isLoadPhase(x.phase) ? { type: 'started', phase: x.phase } : null;
    case 'tick':
      return isTick(x.tick) ? { type: 'tick', tick: x.tick } : null;
    case 'phase-result':
      return count(x.seq) && isPhaseResult(x.result) && (x.total === undefined || isPhaseResult(x.total))
        ? { type: 'phase-result', seq: x.seq, result: x.result, ...(x.total !== undefined ? { total: x.total } : {}) }
        : null;
    case 'fatal':
      return typeof x.message === 'string' ? { type: 'fatal', message: x.message } : null;
    default:
      return null;
  }
}
