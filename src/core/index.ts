// The engine's front door: the CLI, the language server and the extension import the engine from
// here only. Bundles keep only what they use (package.json "sideEffects": false), so the
// extension, which captures, carries no analysis.
export { type Analysis, analyzeHeapProfile, type CallFrame, type CallLink, cutProfile, type FunctionCost, type HeapAnalysis, type HeapLine, HeapProfileError, type Hint, type LineCost, parseCpuProfileText, parseHeapProfileText, ProfileFormatError, TIMELINE_FILE, type TimelineV1 } from './analysis/index.ts';
export { analyzeFile, analyzeRunDir, type ProfiledRun, profileUnderLoad, readProfileFile, writeSourceSnapshot, writeTimeline } from './analyze-run/index.ts';
export { type AttachSpec, descendantsOf, fromNodeCommand, type LaunchSpec, type NodeProcess, nodeProcessesIn, parseAttachTarget, REMOTE_ATTACH_WARNING, remoteHostOf, resolveTarget, TargetError } from './app/index.ts';
export { captureUnderLoad, type LoadSettings, RUN_DEFAULTS, type RunOptions, type RunProgress, type RunResult } from './capture/index.ts';
export { isBelow, isWithin, redactUrl, RunError } from './common/index.ts';
export { buildReport, type Change, compareReports, type Comparison, type Delta, type GateVerdict, intervalPct, isReportV1, MINUS, minus, parseThreshold, profilerCostOf, regressionGate, type ReportV1, type RunSettings, signedPct, ThresholdError, timeoutHint, withSign } from './report/index.ts';
export { listRuns, newRunId, PROFILE_FILE, readRun, REPORT_FILE, runsDirOf, SOURCES_FILE, StoreError, writeFileAtomic, writeReport } from './store/index.ts';
