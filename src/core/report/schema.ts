// report.json, version 1 (docs/architecture.md "Contracts"): fields are added, never renamed. Everything
// that shows a run (CLI text, language server, webviews) reads this shape and nothing else.
import type {
  Analysis,
  CategoryTimes,
  FunctionCost,
  Hint,
  LineCost,
  Stall,
  StallSummary,
  ThreadpoolWait,
} from '../analysis/model.ts';
import type { HeapFunction, HeapLine } from '../analysis/model.ts';

export const REPORT_VERSION = 1;

/** Latency percentiles of a window, ms. */
export interface LatencySummary {
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface LoadFigures {
  durationS: number;
  connections: number;
  requests: { total: number; perSecond: number };
  /**
   * Latency of every request sent in the window. Requests that timed out are counted at the
   * timeout (autocannon leaves them out), so with timeouts > 0 these are lower bounds.
   */
  latencyMs: LatencySummary;
  /** Completed responses only: what autocannon itself would print. */
  completedLatencyMs?: LatencySummary;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  /** The load generator, not the app, was the limit: the app could have served more. */
  loadLimited: boolean;
  /** CPU of the load generator per second (1 = one core saturated). */
  loadCpu?: number;
  /** The load came from the user's own tool (--load-command): its output, parsed where the format is known. */
  external?: ExternalLoadFigures;
  /**
   * The windows as they were taken: measured and profiled sub-windows alternating (M P M P …),
   * each with its own figures, which give every figure above its spread (verdicts/verdict.ts).
   * The figures above are all sub-windows of a kind together. Absent in runs from before
   * sub-windows; one of each with an external load (its command runs once per window).
   */
  subWindows?: { measured: SubWindowFigures[]; profiled: SubWindowFigures[] };
  /**
   * With a request mix (--requests, several --url): the load generator's own figures per route in
   * the measured window, each response matched to the request it answers (load/route-stats.ts).
   */
  routes?: RouteLoadFigures[];
  /** The same load while the profiler ran: its req/s next to the figures above show its cost. */
  profiled: {
    durationS: number;
    requests: { perSecond: number; total?: number };
    latencyMs: LatencySummary;
    errors?: number;
    non2xx?: number;
    /** With a request mix: each route's figures in the profiled window (CPU per request divides by these). */
    routes?: RouteLoadFigures[];
  };
}

/** One route of a request mix as the load generator saw it (`GET /orders/{n}`, common/routes.ts). */
export interface RouteLoadFigures {
  method: string;
  route: string;
  /** Responses received (any status). */
  requests: number;
  reqPerSec: number;
  /** Like LoadFigures.latencyMs: timed-out requests counted at the timeout. */
  latencyMs: LatencySummary;
  /** Socket errors and timeouts of this route's requests. */
  errors: number;
  timeouts: number;
  /** Responses whose status is not 2xx. */
  non2xx: number;
}

export interface SubWindowFigures {
  durationS: number;
  requests: number;
  perSecond: number;
  latencyMs: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  /** The app's CPU (all threads, and its child processes') per request served, ms; absent when it served none. */
  cpuMsPerRequest?: number;
  /** Share of the sub-window the app's event loop was busy (0–1). */
  utilization?: number;
  /**
   * p99 of the event-loop timer's interval in the sub-window, ms: the loop delay's p99 plus the
   * timer's 10 ms period (never 0, so two runs' ratio exists). The loop delay's noise test.
   */
  loopIntervalP99Ms?: number;
  /** With a request mix: each route's own figures in this sub-window (verdicts/route-compare.ts). */
  routes?: SubWindowRoute[];
}

/** One route of a request mix in one sub-window (a side-by-side gate's window: one round). */
export interface SubWindowRoute {
  method: string;
  /** As the load named it (the path with ids folded, common/routes.ts). */
  route: string;
  requests: number;
  perSecond: number;
  latencyMs: { p50: number; p99: number };
  /**
   * Main-thread time spent in this route's callbacks per request of it that finished, ms: the
   * route probe's timeline (in-app/scripts/route-probe.ts) without the profiler. Side by side it
   * comes from the round's labelled window of the same version (capture/side-by-side.ts).
   */
  threadMsPerRequest?: number;
  /** The median of the route's requests' own thread times, ms: a request the machine stretched moves it least. */
  threadMsP50?: number;
  /**
   * The app's CPU in the window split among the routes by their shares of that thread time, per
   * request of the route, ms (capture/extras/route-thread-time.ts): what the route's verdict reads.
   */
  cpuMsPerRequest?: number;
}

export interface ExternalLoadFigures {
  /** argv after the {url}/{port} placeholders, secrets redacted. */
  command: string[];
  /** wrk, ab, autocannon, artillery or k6: whose output format was read. */
  tool?: string;
  /** Both windows' outputs were parsed; false: the load figures are zeros, the raw output is in `log`. */
  parsed: boolean;
  /** Figures the tool's output did not have (reported as 0): e.g. "latency p90". */
  missing: string[];
  exitCodes: { measured: number | null; profiled: number | null };
  /** The raw output of each run, in the run folder. */
  log: string;
}

export interface EventLoopFigures {
  delayMs: { mean: number; p50: number; p99: number; max: number };
  utilization: number;
  /** App CPU (all threads, and its child processes') per wall second, in the measured and profiled windows. */
  cpu?: number;
  /** Not one 10 ms timer ran in the window: the delays are the window's length (a lower bound). */
  blockedThroughout?: boolean;
  /** Where the main thread was stuck then (the debugger paused it once), innermost first. */
  blockedAt?: Array<{ function: string; file: string; line: number }>;
  profiled?: { delayMs: { mean: number; p50: number; p99: number; max: number }; utilization: number; cpu?: number };
  /** The stalls of the profiled window (ReportV1.stalls) summed up; absent when the stall probe was off. */
  stalls?: StallSummary;
}

export interface RunSettings {
  entry?: string;
  /** The command line that started the app, run as it stands (--command, or an npm script that is not plain node). */
  command?: string;
  /** The npm script `command` came from. */
  script?: string;
  /** The run attached to a running app (--attach: inspector URL, port or pid) instead of starting it. */
  attach?: string;
  args?: string[];
  runtimeArgs?: string[];
  url: string;
  method: string;
  headers: Record<string, string>;
  /** Recorded with secrets redacted. */
  body?: string;
  connections: number;
  pipelining: number;
  durationS: number;
  warmupS: number;
  samplingIntervalUs: number;
  timeoutS: number;
  env?: Record<string, string>;
  /**
   * A request mix (--requests, several --url): each request's method, path (secrets in its query
   * redacted) and weight, in order; its headers and bodies are not kept (they may hold secrets).
   */
  requests?: Array<{ method: string; path: string; weight: number }>;
}

export interface ReportV1 {
  version: 1;
  /** Run id: the folder name under .hotline/runs. */
  id: string;
  startedAt: string;
  /** `node`: the app's Node version ("v20.20.0") as its inspector reported it; absent in older runs. */
  app: { command: string[]; cwd: string; pid: number; url: string; node?: string };
  settings: RunSettings;
  load?: LoadFigures;
  eventLoop?: EventLoopFigures;
  profile: { file: string; durationMs: number; samples: number; intervalUs: number };
  categories: CategoryTimes;
  nonIdleMs: number;
  functions: FunctionCost[];
  lines: LineCost[];
  hints: Hint[];
  notes: string[];
  /** The run ended early (the app crashed, the user cancelled): figures cover what was measured. */
  partial?: { reason: string };
  baseline?: { runId: string; deltas: Record<string, unknown> };
  /**
   * Every thread profiled: the main thread first (id 0, the figures above), then each worker
   * thread (id = its threadId) with its own profile file. Absent in runs from before workers.
   */
  threads?: ThreadSummary[];
  /**
   * The worker threads analyzed together (all workers' samples): their lines and user functions
   * are also in `lines`/`functions`, tagged `thread: 'worker'`, where their percentages are of
   * `workers.nonIdleMs` (the workers' CPU), not of the main thread's.
   */
  workers?: { nonIdleMs: number; durationMs: number; samples: number; categories: CategoryTimes; hints: Hint[] };
  /** Allocation sampling (`--heap`): bytes allocated per function of the main thread. */
  heap?: HeapFigures;
  /**
   * Every Node process profiled when the app started child processes (node:cluster workers,
   * child_process.fork): the process Hotline started first (role 'primary', the figures above),
   * then each child with its own profile file. Absent when the app had none.
   */
  processes?: ProcessSummary[];
  /**
   * The child processes analyzed together (all their samples): their lines and user functions are
   * also in `lines`/`functions`, tagged `thread: 'process'` (each line with its split by process),
   * where their percentages are of `childProcesses.nonIdleMs`. `allNonIdleMs` adds the primary's.
   */
  childProcesses?: {
    count: number;
    nonIdleMs: number;
    durationMs: number;
    samples: number;
    categories: CategoryTimes;
    hints: Hint[];
    allNonIdleMs: number;
  };
  /**
   * Every event-loop stall of at least eventLoop.stalls.thresholdMs in the profiled window, in
   * time order: measured by a timer in the app that could not run (start refined by the
   * profile's samples), with the lines of your code that ran in it. Absent when not measured.
   */
  stalls?: RouteOfStall[];
  /**
   * Requests your code handed to libuv's threadpool (crypto, zlib, fs, dns.lookup) in the profiled
   * window, per calling line and API, most waited first: the wait is measured, the queued part
   * inferred from the pool's size (analysis/time/threadpool-waits.ts). Absent when not measured.
   */
  waits?: ThreadpoolWait[];
  /** The app's threadpool and cores, as it saw them (with `waits`). */
  threadpool?: { size: number; cores: number };
  /**
   * Per route, when the run loaded several (a request mix) or the app's requests were labelled in
   * the app: each route's own figures from one mixed run (issue 35). Absent in single-URL runs
   * that did not label requests.
   */
  routes?: RouteFigures[];
  /** Where a typical request's latency goes (report/request-time.ts); absent without a load. */
  requestTime?: RequestTime;
}

/** A stall and the route (`GET /orders/:id`, or "(no request)") whose work filled most of it, measured in the app. */
export type RouteOfStall = Stall & { route?: string };

/**
 * One request's time to the loaded URL: the profiled window's latency p50 split into the main
 * thread's CPU per request by category (derived: the profile's CPU ÷ the requests served while it
 * ran), the waits per request (measured: mean wait a call × calls per request) and the rest
 * (inferred: the latency less the others, never below 0).
 */
export interface RequestTime {
  /** `GET /login`. */
  url: string;
  /** The profiled window's latency p50, ms: what the parts split (they were measured in that window). */
  latencyMs: number;
  /** The measured window's latency p50 (without the profiler and probes), ms, for reference. */
  measuredLatencyMs: number;
  /** Requests served while the profile ran: the CPU parts are its CPU divided by them. */
  requestsProfiled: number;
  /** In this order: user, dependencies, runtime, then threadpool, http and datastore (with waits), rest last. */
  parts: RequestTimePart[];
  /** How much the parts other than the rest add up to above latencyMs (0 when they fit). */
  overMs: number;
}

export interface RequestTimePart {
  key: 'user' | 'dependencies' | 'runtime' | 'threadpool' | 'http' | 'datastore' | 'rest';
  label: string;
  /** ms per request. */
  ms: number;
  /** derived from the profile and the load, measured by the wait probe, or inferred as what is left. */
  how: 'derived' | 'measured' | 'inferred';
}

export interface ProcessSummary {
  pid: number;
  role: 'primary' | 'worker';
  /** How a child was started: a node:cluster worker, child_process.fork, or another `node` it spawned. */
  kind?: 'cluster' | 'fork' | 'spawn';
  /** Its .cpuprofile in the run folder. */
  file: string;
  /** A child's script (absolute path). */
  script?: string;
  durationMs: number;
  samples: number;
  nonIdleMs: number;
  /** Its share of all processes' non-idle time, %. */
  sharePct: number;
  /** Its line of your code with the most own time; ownPct is of this process's non-idle time. */
  topLine?: { file: string; line: number; function: string; ownMs: number; ownPct: number };
  joinedLate?: boolean;
  exitedEarly?: boolean;
}

export interface ThreadSummary {
  /** 0 for the main thread, else the worker's threadId. */
  id: number;
  /** "main", or the worker's title ("[worker 1] hasher"). */
  title: string;
  /** Its .cpuprofile in the run folder. */
  file: string;
  /** The worker's script (absolute path); absent for the main thread. */
  script?: string;
  durationMs: number;
  samples: number;
  nonIdleMs: number;
  /** Its line of your code with the most own time; ownPct is of this thread's non-idle time. */
  topLine?: { file: string; line: number; function: string; ownMs: number; ownPct: number };
  /** It started after the profiled window began, or exited before it ended. */
  joinedLate?: boolean;
  exitedEarly?: boolean;
  /** It started at the app's boot (before the app first listened): its profile covers the whole window. */
  startedAtBoot?: boolean;
}

export interface HeapFigures {
  /** heap.heapprofile in the run folder (V8's SamplingHeapProfile; speedscope opens it). */
  file: string;
  samplingIntervalBytes: number;
  /** Estimated bytes allocated in the profiled window (V8 scales the samples), all code. */
  totalBytes: number;
  /** Bytes allocated with no frame of your code on the stack. */
  outsideUserBytes: number;
  /** totalBytes per second / per request of the profiled window, when the run had a load. */
  bytesPerSecond?: number;
  bytesPerRequest?: number;
  /**
   * Per function of your code (deepest frame of your code owns the bytes). `line` is where the
   * function starts: V8's sampling heap profile has no line per allocation. ownPct is of totalBytes.
   */
  lines: HeapLine[];
  functions: HeapFunction[];
}

export interface ReportParts {
  id: string;
  startedAt: string;
  app: ReportV1['app'];
  settings: RunSettings;
  load?: LoadFigures;
  eventLoop?: EventLoopFigures;
  profileFile: string;
  analysis: Analysis;
  notes?: string[];
  partial?: { reason: string };
}

export function buildReport(p: ReportParts): ReportV1 {
  const a = p.analysis;
  return {
    version: REPORT_VERSION,
    id: p.id,
    startedAt: p.startedAt,
    app: p.app,
    settings: p.settings,
    ...(p.load ? { load: p.load } : {}),
    ...(p.eventLoop ? { eventLoop: p.eventLoop } : {}),
    profile: { file: p.profileFile, durationMs: a.durationMs, samples: a.samples, intervalUs: a.intervalUs },
    categories: a.categories,
    nonIdleMs: a.nonIdleMs,
    functions: a.functions,
    lines: a.lines,
    hints: a.hints,
    notes: [...(p.notes ?? []), ...a.notes],
    ...(p.partial ? { partial: p.partial } : {}),
  };
}

/**
 * One route of a mixed run. `method` + `route` is the key: the route as the framework names it
 * (`/orders/:id`) where it says so, otherwise the path with ids folded (`/orders/{n}`, see
 * common/routes.ts). Load figures come from the load generator where Hotline drove the load
 * (`source: 'load'`), otherwise from the requests the app served (`source: 'app'`).
 */
export interface RouteFigures {
  method: string;
  route: string;
  /** Where the request figures were measured. */
  source: 'load' | 'app';
  /** Requests of this route in the measured window. */
  requests: number;
  reqPerSec: number;
  latencyMs?: { p50: number; p90: number; p99: number };
  errors: number;
  /** Main-thread CPU per request of this route in the profiled window (ms), measured in the app. */
  cpuMsPerRequest?: number;
  /** Share of the profiled window's main-thread CPU spent serving this route (0–100). */
  cpuPct?: number;
  /** This route's hottest lines of your code (own time while serving it), most first. */
  lines?: Array<{ file: string; line: number; function: string; ownMs: number; ownPct: number }>;
  /** Waits of this route's requests per awaiting line (ms per request), most first. */
  waits?: Array<{ file: string; line: number; kind: string; msPerRequest: number }>;
  /** The folded-path keys (`GET /orders/{n}`) of this route's requests when the framework named its pattern: how the load's rows find it. */
  aliases?: string[];
}
