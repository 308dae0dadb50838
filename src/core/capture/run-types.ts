// What a run takes and what it reports as it goes: its options, phases, progress and result.
import type { AttachSpec, LaunchSpec } from '../app/index.ts';
import type { LoadSettings } from './run-settings.ts';

export interface RunOptions extends LoadSettings {
  /** With `attach`, only `cwd` counts: the app's folder (its code is "yours", its runs are kept there). */
  target: LaunchSpec;
  /** Profile an app that already runs instead of starting one; it is left running afterwards. */
  attach?: AttachSpec;
  /** The user's load tool instead of autocannon (`wrk -d10s {url}`): each window lasts as long as it runs. */
  loadCommand?: string;
  /** How long the app may take to start listening. */
  listenTimeoutS?: number;
  /** Seconds the app may take to end after its SIGTERM (a graceful shutdown) before SIGKILL. */
  stopGraceS?: number;
  /** Seconds between profiler restarts in the profiled window (what a crash can lose at most). */
  segmentS?: number;
  /**
   * How many alternating measured/profiled sub-windows the windows are cut into (default: the
   * plan in run-settings.ts). 1 keeps the profiled window continuous in time (the heat map's seconds
   * are then the app's).
   */
  subWindows?: number;
  /**
   * Seconds of each measured sub-window (default: as long as each profiled one). Shorter for a run
   * read for its profile alone (the known-answer tests): the measured figures then rest on fewer
   * requests, the profiled window is unchanged.
   */
  measuredS?: number;
  /** Stack captures per second in the profiled window, for exact calling lines (stack-sampler.ts); 0: none. */
  stackRateHz?: number;
  /**
   * Keep the app's inspector open through the measured sub-windows (a launched app's is closed
   * there by default, closed-inspector.ts). For comparisons of the two (bench/honest.ts).
   */
  keepInspectorOpen?: boolean;
  /**
   * Profile the launched app's Node child processes too (cluster workers, forks, any `node` it
   * starts with its environment); default true. An app attached to is profiled alone.
   */
  childProcesses?: boolean;
  /** Event-loop stalls of at least this many ms are listed (default 50); 0: the stall probe is off. */
  stallThresholdMs?: number;
  /** Note the app's threadpool requests in the profiled window (default on; wait-probe.ts). */
  waits?: boolean;
  /**
   * Cost per route: label the main thread's work with the HTTP request it serves, in the profiled
   * window (route-probe.ts); default on with an external load or an attached app, off otherwise.
   */
  routes?: boolean;
  /** Where runs are kept; default <app dir>/.hotline/runs. */
  runsDir?: string;
  signal?: AbortSignal;
  onProgress?: (p: RunProgress) => void;
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
}

export type RunPhase = 'starting' | 'warmup' | 'measuring' | 'profiling' | 'analyzing' | 'done';

export interface RunProgress {
  phase: RunPhase;
  message: string;
  /** Seconds into the phase and the phase's length, during load phases. */
  second?: number;
  of?: number;
  requestsPerSecond?: number;
}

export interface RunResult {
  runDir: string;
}

export const PHASE_NAMES: Record<RunPhase, string> = {
  starting: 'starting the app',
  warmup: 'warm-up',
  measuring: 'measuring (profiler off)',
  profiling: 'profiling',
  analyzing: 'analyzing',
  done: 'done',
};
