// report.json: its shape (schema.ts), its check (report-check.ts on shape-checks.ts) and the figures
// read off one report (request time, route order, load hints, signed numbers). Pure and
// browser-safe: the webviews import it. How two reports compare is src/core/verdicts/.
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
export { timeoutHint } from './load-hints.ts';
export { requestTimeOf } from './request-time.ts';
