// The analysis: a CPU profile (and the app's sources) in, where the time went out. Pure: no I/O
// but what callers pass in. `model.ts` (the data model) and `timeline.ts` are also read directly by
// the report schema and the webviews, which must not pull the rest.
export { analyzeProfile, analyzeProfileWithTimeline } from './analyze.ts';
export { fileOfUrl, Workspace } from './categories.ts';
export { readStackCaptures } from './stacks-file.ts';
export { mergeStackCaptures, type StacksPart } from './stacks-merge.ts';
export { buildStackEvidence, type StackCapturesInput, type StackFrameV1 } from './stacks.ts';
export {
  MAX_STRING_BYTES,
  parseCpuProfileBytes,
  readCpuProfileBytes,
  readCpuProfileStream,
} from './cpuprofile-reader.ts';
export { type CallFrame, type CpuProfile, parseCpuProfileText, ProfileFormatError } from './cpuprofile.ts';
export {
  analyzeHeapProfile,
  type HeapAnalysis,
  HeapProfileError,
  parseHeapProfileText,
  type SamplingHeapProfile,
} from './heap.ts';
export { mergeHeapProfiles } from './heap-merge.ts';
export { mergedClock, mergeProfiles } from './merge.ts';
export { OWN_FRAMES_NAME, withoutOwnFrames } from './own-frames.ts';
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
export { placeFunctionHeads } from './function-heads.ts';
export {
  mapHeapProfilePaths,
  mapPath,
  mapProfilePaths,
  PathMapError,
  type PathMapping,
  parsePathMapping,
} from './path-map.ts';
export { looksLikePprof, type PprofContent, readPprof } from './pprof.ts';
export { cpuProfileToPprof } from './pprof-out.ts';
export { type SourceMapInput } from './sourcemaps.ts';
export {
  applyRuntimeScripts,
  asRunPath,
  type RuntimeScriptInput,
  type RuntimeScriptsApplied,
  unmappedNote,
} from './runtime-scripts.ts';
export {
  findStalls,
  type LineStalls,
  periodicStall,
  periodicStallHint,
  stallsByLine,
  summarizeStalls,
  type TimedStall,
} from './stalls.ts';
export { poolLimitHint, threadpoolWaits, type WaitTraceInput } from './waits.ts';
export {
  cutProfile,
  TIMELINE_FILE,
  timelineJson,
  timelineJsonFits,
  timelineJsonParts,
  type TimelineV1,
} from './timeline.ts';
