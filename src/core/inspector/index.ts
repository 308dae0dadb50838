// The app's inspector: one CDP session (listening, event loop, CPU profiler) and its workers.
export { type CdpChannel } from './cdp-channel.ts';
export { type AppMark, between, type LoopDelay, type LoopReading, type WindowKind } from './loop-probe.ts';
export { type StallGap, type StallGaps, STALL_PROBE_PERIOD_MS } from './stall-probe.ts';
export { type WaitTrace, WAIT_PROBE_URL } from './wait-probe.ts';
export { type RouteTrace } from './route-probe.ts';
export { InspectorSession, type StackFrame } from './session.ts';
export {
  type CompanionFactory,
  MAX_CHILD_PROCESSES,
  type ProcessCapture,
  type ProcessInfo,
  ProcessProfilers,
  type ProfilerCompanion,
} from './process-sessions.ts';
export { type WorkerCapture } from './worker-session.ts';
export { WorkerProfilers } from './workers.ts';
export { nodeVersionOf } from './node-version.ts';
