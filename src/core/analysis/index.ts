// The analysis: a CPU profile (and the app's sources) in, where the time went out. Pure: no I/O
// but what callers pass in. It reads profiles through src/core/profile/ (the formats, the profile
// tree, the merge), below it. Its parts, lowest first (imports go downwards only;
// eslint.config.mjs): attribution/ (which line a piece of time belongs to) → time/ (timeline,
// stalls, threadpool waits), heap/ and hints/ → analyze.ts (the entry) and path-map.ts; `model.ts` (the data model) is read by all. The report schema imports `model.ts`
// directly; the webviews (and src/protocol.ts) import it and `time/` directly, which must not pull
// the rest. Everything else comes in through here.
export { analyzeProfile, analyzeProfileWithTimeline } from './analyze.ts';
export { Workspace } from './attribution/categories.ts';
export { readStackCaptures } from './attribution/read-stack-captures.ts';
export { mergeStackCaptures, type StacksPart } from './attribution/stacks-merge.ts';
export { buildStackEvidence, type StackCapturesInput, type StackFrameV1 } from './attribution/stacks.ts';
export { analyzeHeapProfile, type HeapAnalysis } from './heap/heap.ts';
export {
  type Analysis,
  type CallLink,
  type FunctionCost,
  type HeapLine,
  type Hint,
  type LineCost,
  type Stall,
  type StallLine,
  type StallSummary,
  type ThreadpoolWait,
} from './model.ts';
export { placeFunctionHeads } from './attribution/function-heads.ts';
export {
  mapHeapProfilePaths,
  mapPath,
  mapProfilePaths,
  PathMapError,
  type PathMapping,
  parsePathMapping,
} from './path-map.ts';
export { type SourceMapInput } from './attribution/sourcemaps.ts';
export {
  applyRuntimeScripts,
  asRunPath,
  type RuntimeScriptInput,
  type RuntimeScriptsApplied,
  unmappedNote,
} from './attribution/apply-runtime-scripts.ts';
export {
  findStalls,
  type LineStalls,
  periodicStall,
  periodicStallHint,
  stallsByLine,
  summarizeStalls,
  type TimedStall,
} from './time/stalls.ts';
export { blockedLoopHints, type BlockedLoopInput } from './hints/blocked-loop.ts';
export {
  apiOfType,
  outgoingCallOfType,
  poolLimitHint,
  threadpoolWaits,
  type WaitTraceInput,
} from './time/threadpool-waits.ts';
export { DATA_STORE_APIS, dbPoolQueueHint, repeatedQueryHint } from './time/data-store-hints.ts';
export { serialAwaitsHints } from './time/serial-awaits.ts';
export { awaitDependence, type AwaitDependence } from './attribution/await-dependence.ts';
export {
  cutProfile,
  sampleStarts,
  TIMELINE_FILE,
  timelineJson,
  timelineJsonFits,
  timelineJsonParts,
  type TimelineV1,
} from './time/timeline.ts';
