// What a run records of itself in run.json: its settings (secrets redacted) and the load figures
// of its two windows. Pure: the run's measurements in, the record's parts out.
import type { AttachSpec, LaunchSpec } from '../app/index.ts';
import type { LoopReading, StackFrame } from '../inspector/index.ts';
import { isExternalResult, type PhaseResult } from '../load/index.ts';
import type { CpuProfile } from '../analysis/index.ts';
import type { LoadFigures, RunSettings } from '../report/index.ts';
import { redactBody, redactEnv, redactHeaders, redactUrl } from '../common/index.ts';
import type { Settings } from './settings.ts';
import type { ExtrasCaptured } from './extras.ts';
import type { StackCapturesV1 } from './stack-sampler.ts';

/** What the windows of a run measured. */
export interface Measured {
  measured: PhaseResult;
  profiled: PhaseResult;
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
    profiled: {
      durationS: m.profiled.durationS,
      requests: m.profiled.requests,
      latencyMs: m.profiled.latencyMs,
      errors: m.profiled.errors,
      non2xx: m.profiled.non2xx,
    },
  };
}


/** The settings as run.json keeps them: what was run and how, with secrets redacted. */
export function recordedSettings(s: Settings, t: LaunchSpec, attach: AttachSpec | undefined): RunSettings {
  return {
    ...(attach ? { attach: redactUrl(attach.target) } : { entry: t.entry, args: t.args, runtimeArgs: t.runtimeArgs }),
    url: redactUrl(s.url), method: s.method, headers: redactHeaders(s.headers), body: redactBody(s.body),
    connections: s.connections, pipelining: s.pipelining, durationS: s.durationS, warmupS: s.warmupS,
    samplingIntervalUs: s.samplingIntervalUs, timeoutS: s.timeoutS,
    ...(t.env && Object.keys(t.env).length > 0 ? { env: redactEnv(Object.fromEntries(Object.entries(t.env).filter((e): e is [string, string] => e[1] !== undefined))) } : {}),
  };
}
