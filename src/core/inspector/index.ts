// The app's inspector: one CDP session (listening, event loop, CPU profiler) and its workers.
export { between, InspectorSession, type LoopDelay, type LoopReading, type StackFrame } from './session.ts';
export { type CdpChannel, type WorkerCapture, WorkerProfilers } from './workers.ts';
