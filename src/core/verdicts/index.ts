// How two runs compare and what may be said of it: whether they are comparable, the comparison
// of two reports (compare.ts, its rows, moved work, kept hints, routes), the verdict of a change
// from the sub-windows (verdict.ts), the gate, a side-by-side measurement. Pure and
// browser-safe: the webviews import it. Above report/ (the shape it compares).
export { compareReports, type Comparison, type CostChange, type Delta, type RunSources } from './compare.ts';
export { isRemovedLine } from './compare-rows.ts';
export { correspondence, splitLines } from './line-correspondence.ts';
export { comparabilityOf, type Comparability, IncomparableError, pathAndQuery, refusalLine } from './comparable.ts';
export { type GateVerdict, parseThreshold, regressionGate, type RouteGateCheck, ThresholdError } from './gate.ts';
export { routeChanges, routeChangesOfRuns, type RouteChange, type RouteWindows } from './route-compare.ts';
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
export { WINDOW_CPU_APART, windowsCpuApart, windowsCpuApartText } from './window-cpu.ts';
