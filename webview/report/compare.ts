// Run vs baseline for the page: the engine's own pure comparison, bundled for the browser.
export { compareReports } from '../../src/core/verdicts/index.ts';
export type { Comparison, CostChange, Delta } from '../../src/core/verdicts/index.ts';
