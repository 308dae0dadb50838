// Real report.json files captured once from the engine (see fixtures/README.md), so the page's
// tests of threads, allocations, attach and external load are deterministic. $REPO in a fixture
// stands for the repository root of the checkout the tests run in.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ReportV1 } from '../../src/core/report/schema.ts';
import { REPO_ROOT } from './report-helpers.ts';

export const REPORT_FIXTURES = path.join(REPO_ROOT, 'test', 'webview', 'fixtures');

export type ReportFixture =
  | 'workers-heap'
  | 'workers-base'
  | 'heap-app'
  | 'attach-wrk'
  | 'external-unparsed'
  | 'cluster-app'
  | 'stall-app'
  | 'threadpool-app'
  | 'request-mix';

export function loadReportFixture(name: ReportFixture): ReportV1 {
  const text = fs.readFileSync(path.join(REPORT_FIXTURES, `${name}.json`), 'utf8');
  return JSON.parse(text.split('$REPO').join(REPO_ROOT.replace(/\\/g, '/'))) as ReportV1;
}
