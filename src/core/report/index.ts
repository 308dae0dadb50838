// report.json: its shape, and how two reports compare and gate. Pure and browser-safe: the
// webviews import it.
export { compareReports, type Comparison, type CostChange, type Delta, type RunSources } from './compare.ts';
export { isRemovedLine } from './compare-rows.ts';
export { correspondence, splitLines } from './line-correspondence.ts';
export { comparabilityOf, type Comparability, IncomparableError, pathAndQuery, refusalLine } from './comparable.ts';
export { type GateVerdict, parseThreshold, regressionGate, type RouteGateCheck, ThresholdError } from './gate.ts';
export { routeChanges, routeChangesOfRuns, type RouteChange, type RouteWindows } from './route-compare.ts';
export { routeRows } from './route-order.ts';
export {
  buildReport,
  type ExternalLoadFigures,
  type HeapFigures,
  type LatencySummary,
  type LoadFigures,
  type ReportParts,
  type ReportV1,
  type RequestTime,
  type RequestTimePart,
  type RouteFigures,
  type RouteLoadFigures,
  type RunSettings,
  type SubWindowFigures,
  type SubWindowRoute,
  type ProcessSummary,
  type ThreadSummary,
} from './schema.ts';
export { arr, bool, type Check, count, isObject, num, oneOf, record, shape, str } from './shape-checks.ts';
export { isCategory, isReportV1 } from './report-check.ts';
export { intervalPct, MINUS, minus, signedPct, withSign } from './signs.ts';
export {
  compareSideBySide,
  sequentialConfidence,
  type LoadComparison,
  type SideBySideFigures,
  type SideFigures,
} from './compare-side-by-side.ts';
export {
  changeOf,
  costChangeOf,
  isChange,
  MIN_VERDICT_DURATION_S,
  pairedChangeOf,
  rateChangeOf,
  tooShortText,
  profilerCostOf,
  type Change,
  type Direction,
  type VerdictWord,
} from './verdict.ts';
export { timeoutHint } from './load-hints.ts';
export { requestTimeOf } from './request-time.ts';
export { WINDOW_CPU_APART, windowsCpuApart, windowsCpuApartText } from './window-cpu.ts';
