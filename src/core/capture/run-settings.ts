// A run's settings: defaults, and the checks made before anything starts.
import type { LoadOptions, MixRequest } from '../load/index.ts';
import { isLoopback, redactUrl, RunError } from '../common/index.ts';

/** The load of a run: the load generator's options, with a URL that may be a bare path. */
export interface LoadSettings extends Omit<LoadOptions, 'url' | 'maxDurationS'> {
  /** A path (`/login`, joined to the port the app opened) or a full loopback URL. */
  url: string;
  /** Seconds of each window: measured, then profiled. */
  durationS?: number;
  warmupS?: number;
  samplingIntervalUs?: number;
  /** Also sample the main thread's allocations in the profiled window (heap.heapprofile). */
  heap?: { samplingIntervalBytes?: number };
  /** What reading the request mix left out (a HAR's other hosts, its secrets): kept in the run's notes. */
  requestsNotes?: string[];
}

export const RUN_DEFAULTS = {
  method: 'GET',
  connections: 10,
  pipelining: 1,
  durationS: 10,
  warmupS: 2,
  samplingIntervalUs: 1000,
  timeoutS: 10,
  listenTimeoutS: 30,
  stopGraceS: 5,
} as const;

export type Settings = Required<Omit<LoadSettings, 'body' | 'headers' | 'heap' | 'requests' | 'requestsNotes'>> & {
  body?: string;
  headers: Record<string, string>;
  requests?: MixRequest[];
};

export function withDefaults(o: LoadSettings): Settings {
  return {
    url: o.url,
    method: (o.method ?? RUN_DEFAULTS.method).toUpperCase(),
    headers: o.headers ?? {},
    body: o.body,
    connections: o.connections ?? RUN_DEFAULTS.connections,
    pipelining: o.pipelining ?? RUN_DEFAULTS.pipelining,
    durationS: o.durationS ?? RUN_DEFAULTS.durationS,
    warmupS: o.warmupS ?? RUN_DEFAULTS.warmupS,
    samplingIntervalUs: o.samplingIntervalUs ?? RUN_DEFAULTS.samplingIntervalUs,
    timeoutS: o.timeoutS ?? RUN_DEFAULTS.timeoutS,
    ...(o.requests ? { requests: o.requests } : {}),
  };
}

/** What the load generator takes for a window at `url`, stopping by itself after `maxDurationS`. */
export function loadOptionsOf(s: Settings, url: string, maxDurationS: number): LoadOptions {
  return {
    url,
    method: s.method,
    headers: s.headers,
    body: s.body,
    connections: s.connections,
    pipelining: s.pipelining,
    timeoutS: s.timeoutS,
    maxDurationS,
    ...(s.requests ? { requests: s.requests } : {}),
  };
}

/** What the probe before the load sends: the one request, or a mix's first one. */
export function probeOptionsOf(o: LoadOptions): LoadOptions {
  const first = o.requests?.[0];
  if (!first) return o;
  return {
    url: new URL(first.path, o.url).href,
    method: first.method,
    headers: { ...o.headers, ...first.headers },
    body: first.body,
    connections: o.connections,
    pipelining: o.pipelining,
    timeoutS: o.timeoutS,
    maxDurationS: o.maxDurationS,
  };
}

export function validate(s: Settings, stopGraceS?: number, measuredS?: number): void {
  if (measuredS !== undefined && (!Number.isFinite(measuredS) || measuredS <= 0 || measuredS > 3600))
    throw new RunError('bad-options', `a measured sub-window must be above 0 and at most 3600 s (got ${measuredS}).`);
  if (stopGraceS !== undefined && (!Number.isFinite(stopGraceS) || stopGraceS < 0 || stopGraceS > 600)) {
    throw new RunError('bad-options', `the stop grace period must be 0–600 s (got ${stopGraceS}).`);
  }
  const positive = (v: number, what: string, max: number): void => {
    if (!Number.isFinite(v) || v <= 0 || v > max)
      throw new RunError('bad-options', `${what} must be a number above 0 and at most ${max} (got ${v}).`);
  };
  positive(s.connections, 'connections', 10_000);
  positive(s.pipelining, 'pipelining', 100);
  positive(s.durationS, 'duration', 3600);
  positive(s.timeoutS, 'timeout', 600);
  if (!Number.isFinite(s.warmupS) || s.warmupS < 0 || s.warmupS > 600)
    throw new RunError('bad-options', `warm-up must be 0–600 s (got ${s.warmupS}).`);
  if (!Number.isFinite(s.samplingIntervalUs) || s.samplingIntervalUs < 50 || s.samplingIntervalUs > 100_000) {
    throw new RunError('bad-options', `the sampling interval must be 50–100000 µs (got ${s.samplingIntervalUs}).`);
  }
  if (!s.url.startsWith('/') && !/^https?:\/\//.test(s.url))
    throw new RunError('bad-options', `--url must be a path (/login) or a full http:// URL (got ${redactUrl(s.url)}).`);
  if (/^https?:\/\//.test(s.url) && !isLoopback(new URL(s.url).hostname)) {
    throw new RunError(
      'bad-options',
      `Load tests only target this machine: ${new URL(s.url).hostname} is not a loopback address (use 127.0.0.1 or localhost).`,
    );
  }
}

/** At most this many stack captures a second: each costs the app 20–35 µs of CPU (docs/attribution.md). */
export const MAX_STACK_RATE_HZ = 1000;

/** 0 turns the stack captures off; otherwise up to MAX_STACK_RATE_HZ. */
export function validateStackRate(hz: number | undefined): void {
  if (hz === undefined) return;
  if (!Number.isFinite(hz) || hz < 0 || hz > MAX_STACK_RATE_HZ)
    throw new RunError(
      'bad-options',
      `the stack capture rate must be 0 (off) to ${MAX_STACK_RATE_HZ} a second (got ${hz}).`,
    );
}

/** Event-loop stalls listed by default: at least this long (ms). */
export const DEFAULT_STALL_THRESHOLD_MS = 50;

/** 0 turns the stall probe off; otherwise at least twice its timer's period, at most a minute. */
export function validateStallThreshold(ms: number | undefined): void {
  if (ms === undefined || ms === 0) return;
  if (!Number.isFinite(ms) || ms < 20 || ms > 60_000)
    throw new RunError('bad-options', `the stall threshold must be 0 (off) or 20–60000 ms (got ${ms}).`);
}

/** Sub-windows of at least this long: shorter ones are mostly edges. */
const MIN_SUB_WINDOW_S = 2;
/** More than this adds gaps without narrowing the spread much. */
const MAX_SUB_WINDOWS = 10;

/**
 * How the measured and profiled windows (durationS each) are cut into alternating sub-windows:
 * as many as fit at MIN_SUB_WINDOW_S, at most MAX_SUB_WINDOWS (10 s → 5 × 2 s of each kind).
 * An external load command runs once per window: one of each.
 */
export function subWindowPlan(durationS: number, external: boolean): { count: number; seconds: number } {
  const count = external ? 1 : Math.max(1, Math.min(MAX_SUB_WINDOWS, Math.floor(durationS / MIN_SUB_WINDOW_S)));
  return { count, seconds: durationS / count };
}
