// One request's time: where a typical request to the loaded URL spends its latency, from figures
// the run already has. The main thread's CPU per request is derived (the profile's CPU by category
// over the requests served while it ran); the waits per request are measured (the wait probe's
// mean wait a call times calls per request); the rest (queueing behind other requests on the event
// loop, idle, anything not seen) is inferred: the latency p50 less the parts. The p50 split is the
// profiled window's, where the parts were measured: the measured window's can differ a lot (the
// probes' and profiler's cost, another moment of the app), which would make the rest meaningless.
// Pure and browser-safe.
import type { ReportV1, RequestTime, RequestTimePart } from './schema.ts';

const LABELS: Record<RequestTimePart['key'], string> = {
  user: 'your code (CPU)',
  dependencies: 'dependencies (CPU)',
  runtime: 'Node internals, GC, native (CPU)',
  threadpool: 'threadpool wait',
  http: 'downstream HTTP wait',
  datastore: 'data-store wait',
  rest: 'the rest (queueing, idle)',
};

/** Undefined without a load that served requests, or without a latency to split. */
export function requestTimeOf(r: ReportV1): RequestTime | undefined {
  const load = r.load;
  if (!load || load.profiled.latencyMs.p50 <= 0 || r.profile.durationMs <= 0) return undefined;
  // The profile covers the profiled sub-windows: the requests served in its time.
  const served = (load.profiled.requests.perSecond * r.profile.durationMs) / 1000;
  if (served < 1) return undefined;
  const c = r.categories;
  const cpu = (ms: number): number => ms / served;
  const waited = (part: 'threadpool' | 'http' | 'datastore'): number =>
    (r.waits ?? [])
      .filter((w) => waitPart(w) === part && w.count > 0)
      .reduce((t, w) => t + (w.waitMs.total / w.count) * w.perRequest, 0);
  const parts: Array<Omit<RequestTimePart, 'label'>> = [
    { key: 'user', ms: cpu(c.user), how: 'derived' },
    { key: 'dependencies', ms: cpu(c.dependencies), how: 'derived' },
    { key: 'runtime', ms: cpu(c.nodeInternals + c.gc + c.native + c.program), how: 'derived' },
  ];
  if (r.waits)
    parts.push(
      { key: 'threadpool', ms: waited('threadpool'), how: 'measured' },
      { key: 'http', ms: waited('http'), how: 'measured' },
      { key: 'datastore', ms: waited('datastore'), how: 'measured' },
    );
  const latencyMs = load.profiled.latencyMs.p50;
  const known = parts.reduce((t, p) => t + p.ms, 0);
  parts.push({ key: 'rest', ms: Math.max(0, latencyMs - known), how: 'inferred' });
  return {
    url: `${r.settings.method} ${r.settings.url}`,
    latencyMs,
    measuredLatencyMs: load.latencyMs.p50,
    requestsProfiled: Math.round(served),
    parts: parts.map((p) => ({ ...p, ms: round2(p.ms), label: LABELS[p.key] })),
    // Waits of one request can run side by side (Promise.all), and the profiled window's CPU
    // includes the profiler's: the parts may add up to more than the measured p50.
    overMs: round2(Math.max(0, known - latencyMs)),
  };
}

/** Which part of a request a wait is: the threadpool's (no target), a downstream HTTP call's, or a data store's. */
function waitPart(w: { api: string; target?: string }): 'threadpool' | 'http' | 'datastore' {
  if (w.target === undefined) return 'threadpool';
  return w.api === 'http.request' || w.api === 'fetch' ? 'http' : 'datastore';
}

const round2 = (v: number): number => Math.round(v * 100) / 100;
