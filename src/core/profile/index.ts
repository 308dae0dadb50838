// The profiles Hotline reads and writes, below everything that captures or analyses them: V8's
// .cpuprofile (its model, the readers for text, bytes and streams too large for one string, the
// merge of several into one timeline), the profile tree the analysis walks, the sampling heap
// profile, and what a call frame's URL names. Pure: no I/O but what callers pass in; imports
// src/core/common only (eslint.config.mjs).
export {
  type CallFrame,
  type CpuProfile,
  type CpuProfileNode,
  type PositionTick,
  parseCpuProfileText,
  ProfileFormatError,
  readCpuProfile,
} from './cpuprofile.ts';
export {
  MAX_STRING_BYTES,
  parseCpuProfileBytes,
  readCpuProfileBytes,
  readCpuProfileStream,
} from './cpuprofile-reader.ts';
export { buildProfileTree, type Frame, MAX_SAMPLE_WEIGHT, type ProfileTree } from './profile-tree.ts';
export { mergedClock, mergeProfiles } from './merge.ts';
export { OWN_FRAMES_NAME, withoutOwnFrames } from './own-frames.ts';
export { fileOfUrl, HOTLINE_SCRIPT_PREFIX } from './frame-urls.ts';
export {
  type HeapCallFrame,
  HeapProfileError,
  parseHeapProfileText,
  type SamplingHeapNode,
  type SamplingHeapProfile,
} from './heap-profile.ts';
export { mergeHeapProfiles } from './heap-merge.ts';
export { looksLikePprof, type PprofContent, readPprof } from './pprof.ts';
export { cpuProfileToPprof } from './pprof-out.ts';
