// One capture under load: the order of a run, its settings, what run.json records. No analysis.
export { PHASE_NAMES, type RunOptions, type RunProgress, type RunResult } from './run-types.ts';
export { captureUnderLoad } from './run.ts';
export { DEFAULT_STALL_THRESHOLD_MS, type LoadSettings, RUN_DEFAULTS } from './run-settings.ts';
export { DEFAULT_STACK_RATE_HZ } from './stacks/stack-sampler.ts';
export { measureSideBySide, type SideBySideOptions } from './side-by-side.ts';
