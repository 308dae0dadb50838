// report.json, version 1 (design.md "Contracts"): fields are added, never renamed. Everything
// that shows a run (CLI text, language server, webviews) reads this shape and nothing else.
import type { Analysis, CategoryTimes, FunctionCost, Hint, LineCost } from './analysis/model.ts';
import type { LatencySummary } from './load-protocol.ts';

export const REPORT_VERSION = 1;

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
  /** The same load while the profiler ran: its req/s next to the figures above show its cost. */
  profiled: {
    durationS: number;
    requests: { perSecond: number; total?: number };
    latencyMs: LatencySummary;
    errors?: number;
    non2xx?: number;
  };
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
  /** App CPU (all threads) per wall second, in the measured and profiled windows. */
  cpu?: number;
  /** Not one 10 ms timer ran in the window: the delays are the window's length (a lower bound). */
  blockedThroughout?: boolean;
  /** Where the main thread was stuck then (the debugger paused it once), innermost first. */
  blockedAt?: Array<{ function: string; file: string; line: number }>;
  profiled?: { delayMs: { mean: number; p50: number; p99: number; max: number }; utilization: number; cpu?: number };
}

export interface RunSettings {
  entry?: string;
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
}

export interface ReportV1 {
  version: 1;
  /** Run id: the folder name under .hotline/runs. */
  id: string;
  startedAt: string;
  app: { command: string[]; cwd: string; pid: number; url: string };
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

/** Checks that a parsed report.json is one this version can show (the runs view skips others). */
export function isReportV1(value: unknown): value is ReportV1 {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Partial<ReportV1>;
  return r.version === 1 && typeof r.id === 'string' && Array.isArray(r.lines) && Array.isArray(r.functions) &&
    Array.isArray(r.hints) && typeof r.profile === 'object' && r.profile !== null && typeof r.categories === 'object';
}
