// What a run records of itself in run.json: its settings (secrets redacted) and the load figures
// of its two windows. Pure: the run's measurements in, the record's parts out.
import type { AttachSpec, LaunchSpec } from '../app/index.ts';
import type { LoopDelay, LoopReading, StackFrame } from '../inspector/index.ts';
import { isExternalResult, type PhaseResult } from '../load/index.ts';
import type { CpuProfile } from '../profile/index.ts';
import type { LoadFigures, RunSettings, SubWindowFigures } from '../report/index.ts';
import { redactBody, redactCommand, redactEnv, redactHeaders, redactUrl } from '../common/index.ts';
import type { Settings } from './run-settings.ts';
import type { ExtrasCaptured } from './extras/extras.ts';
import type { StackCapturesV1 } from './stacks/stack-sampler.ts';
import { withThreadTime } from './extras/route-thread-time.ts';

/** One sub-window as taken: the load's figures and the app's own (CPU, loop) between its edges. */
export interface SubWindowTaken {
  result: PhaseResult;
  app: { wallS: number; cpuS: number; cpu: number; utilization: number; loopIntervalP99Ms?: number };
}

/** What the windows of a run measured. */
export interface Measured {
  /** All measured sub-windows together, and all profiled ones. */
  measured: PhaseResult;
  profiled: PhaseResult;
  subWindows: { measured: SubWindowTaken[]; profiled: SubWindowTaken[] };
  loop: LoopReading;
  /** Absent when the app died in the profiled window. */
  profiledLoop?: LoopReading;
  profile: CpuProfile;
  /** The profiled window's stack captures (main thread), when they ran. */
  stacks?: StackCapturesV1;
  partial?: { reason: string };
  blockedAt?: StackFrame[];
  /** Worker threads' profiles and the allocation profile. */
  extras?: ExtrasCaptured;
}

/** The figures come from the window without the profiler; the profiled window sits beside them. */
export function loadFigures(s: Settings, m: Measured): LoadFigures {
  const w = m.measured;
  return {
    durationS: w.durationS,
    connections: s.connections,
    requests: w.requests,
    latencyMs: w.latencyMs,
    completedLatencyMs: w.completedLatencyMs,
    errors: w.errors,
    timeouts: w.timeouts,
    non2xx: w.non2xx,
    statusCodes: w.statusCodes,
    // The generator saturated a core while the app's event loop still had room.
    loadLimited: w.loadCpu >= 0.85 && m.loop.utilization < 0.85,
    loadCpu: w.loadCpu,
    ...(isExternalResult(m.profiled) && m.profiled.external.summary ? { external: m.profiled.external.summary } : {}),
    subWindows: {
      measured: m.subWindows.measured.map(subWindowFigures),
      profiled: profiledWithRoutes(m),
    },
    ...(w.routes ? { routes: w.routes } : {}),
    profiled: {
      durationS: m.profiled.durationS,
      requests: m.profiled.requests,
      latencyMs: m.profiled.latencyMs,
      errors: m.profiled.errors,
      non2xx: m.profiled.non2xx,
      ...(m.profiled.routes ? { routes: m.profiled.routes } : {}),
    },
  };
}

/**
 * The profiled sub-windows, each route's thread time per request added from the route probe of
 * the same sub-window (when every sub-window has one: they are matched by order).
 */
function profiledWithRoutes(m: Measured): SubWindowFigures[] {
  const windows = m.subWindows.profiled.map(subWindowFigures);
  const times = m.extras?.routeTimes;
  if (!times || times.length !== windows.length) return windows;
  return windows.map((w, i) => {
    const t = times[i];
    if (!t) return w;
    const cpuMs = w.cpuMsPerRequest !== undefined ? w.cpuMsPerRequest * w.requests : undefined;
    const routes = withThreadTime(w.routes, t, w.durationS, cpuMs);
    // One route alone is the run's own figures.
    return routes.length > 1 ? { ...w, routes } : w;
  });
}

export function subWindowFigures(w: SubWindowTaken): SubWindowFigures {
  const r = w.result;
  return {
    durationS: r.durationS,
    requests: r.requests.total,
    perSecond: r.requests.perSecond,
    latencyMs: { p50: r.latencyMs.p50, p99: r.latencyMs.p99 },
    errors: r.errors,
    timeouts: r.timeouts,
    ...cpuPerRequest(w),
    utilization: round(w.app.utilization, 3),
    ...(w.app.loopIntervalP99Ms !== undefined ? { loopIntervalP99Ms: w.app.loopIntervalP99Ms } : {}),
    ...(r.routes && r.routes.length > 1
      ? {
          routes: r.routes.map((x) => ({
            method: x.method,
            route: x.route,
            requests: x.requests,
            perSecond: x.reqPerSec,
            latencyMs: { p50: x.latencyMs.p50, p99: x.latencyMs.p99 },
          })),
        }
      : {}),
  };
}

/**
 * The app's CPU per request as a ratio of rates: its CPU per second between the window's two
 * edges over the requests per second the load counted in it. The edges are read through the
 * inspector, so in a measured sub-window they span its close and reopen too, a few ms (a second
 * on a busy machine), while the load counts only the time it was closed (its req/s must be the
 * plain app's). Counting that time's CPU without its requests made CPU per request 1–2% high.
 */
function cpuPerRequest(w: SubWindowTaken): { cpuMsPerRequest?: number } {
  const { total } = w.result.requests;
  if (total <= 0 || w.result.durationS <= 0 || w.app.wallS <= 0) return {};
  return { cpuMsPerRequest: round(((w.app.cpuS / w.app.wallS) * 1000 * w.result.durationS) / total, 4) };
}

/** The loop figures of all sub-windows of a kind: the delay histogram's, CPU and busy share over their time. */
export function loopOf(delay: LoopDelay, windows: SubWindowTaken[]): LoopReading {
  const wallS = windows.reduce((t, w) => t + w.app.wallS, 0);
  const cpuS = windows.reduce((t, w) => t + w.app.cpuS, 0);
  const busyS = windows.reduce((t, w) => t + w.app.utilization * w.app.wallS, 0);
  return {
    ...delay,
    utilization: wallS > 0 ? round(busyS / wallS, 3) : 0,
    cpu: wallS > 0 ? round(cpuS / wallS, 3) : 0,
  };
}

const round = (v: number, digits = 2): number => {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};

/** The settings as run.json keeps them: what was run and how, with secrets redacted. */
export function recordedSettings(s: Settings, t: LaunchSpec, attach: AttachSpec | undefined): RunSettings {
  return {
    ...(attach
      ? { attach: redactUrl(attach.target) }
      : t.command !== undefined
        ? { command: redactCommand(t.command), ...(t.script !== undefined ? { script: t.script } : {}) }
        : { entry: t.entry, args: t.args, runtimeArgs: t.runtimeArgs }),
    url: redactUrl(s.url),
    method: s.method,
    headers: redactHeaders(s.headers),
    body: redactBody(s.body),
    connections: s.connections,
    pipelining: s.pipelining,
    durationS: s.durationS,
    warmupS: s.warmupS,
    samplingIntervalUs: s.samplingIntervalUs,
    timeoutS: s.timeoutS,
    ...(s.requests
      ? { requests: s.requests.map((r) => ({ method: r.method, path: redactUrl(r.path), weight: r.weight })) }
      : {}),
    ...(t.env && Object.keys(t.env).length > 0
      ? {
          env: redactEnv(
            Object.fromEntries(Object.entries(t.env).filter((e): e is [string, string] => e[1] !== undefined)),
          ),
        }
      : {}),
  };
}
