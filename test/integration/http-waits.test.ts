// Waits on outgoing HTTP calls, known answer: test/apps/threadpool's GET /slow awaits an
// `http.get` (on its `GET LINE`) and GET /fetch a `fetch` (`FETCH LINE`) of its own /downstream,
// which answers after DOWNSTREAM_MS (50). Under real load and the real inspector, report.json must
// put a wait of about 50 ms a call, once per request, on that line, with the call's target, nothing
// queued, and no CPU hint on it. The probe's patch of http.Agent is gone from the app after the run.
// Needs `npm run build`.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { profileUnderLoad, type ReportV1 } from '../../src/core/index.ts';
import { isReportV1 } from '../../src/core/report/report-check.ts';
import { leakCheckedRuns, markedLine, REPO_ROOT, tempDir } from '../helpers/integration.ts';

const APP = path.join(REPO_ROOT, 'test', 'apps', 'threadpool');
const SERVER_JS = path.join(APP, 'server.js');
const DELAY_MS = 50;

const runs = leakCheckedRuns();

async function profile(url: string): Promise<ReportV1> {
  runs.watch(APP);
  const { report } = await profileUnderLoad({
    target: { cwd: APP, entry: 'server.js', env: { DOWNSTREAM_MS: String(DELAY_MS) } },
    url,
    warmupS: 1,
    durationS: 3,
    connections: 8,
    runsDir: tempDir(),
  });
  runs.appStarted(report.app.pid);
  assert.ok(isReportV1(report), 'the report passes its own check');
  return report;
}

for (const [url, mark, api] of [
  ['/slow', 'GET LINE', 'http.request'],
  ['/fetch', 'FETCH LINE', 'fetch'],
] as const) {
  test(
    `${api}: a downstream call answering after ${DELAY_MS} ms waits that long on its line, once per request`,
    { timeout: 120_000 },
    async (t) => {
      const line = markedLine(SERVER_JS, mark);
      assert.ok(line > 0, `server.js marks the ${mark}`);
      const report = await profile(url);
      const w = report.waits?.find((x) => x.file === SERVER_JS && x.line === line);
      assert.ok(w, `a wait on server.js:${line}: ${JSON.stringify(report.waits)}`);
      t.diagnostic(
        `${api}: ${w.count} calls, wait p50 ${w.waitMs.p50} ms, p99 ${w.waitMs.p99} ms, ${w.perRequest} per request`,
      );
      assert.equal(w.api, api);
      assert.match(w.target ?? '', /^GET 127\.0\.0\.1:\d+$/);
      assert.deepEqual(w.queuedMs, { p50: 0, p99: 0 });
      // The downstream's timer fires no earlier than its delay; a loaded machine only adds to it.
      assert.ok(w.waitMs.p50 >= DELAY_MS * 0.95, `wait p50 ${w.waitMs.p50} ms ≥ ${DELAY_MS}`);
      // …and no more than the requests it sits in take (a state of the run, not a time bound:
      // one call a request, so its wait is part of that request's latency).
      assert.ok(
        w.waitMs.p50 <= report.requestTime!.latencyMs,
        `wait p50 ${w.waitMs.p50} ms within the requests' p50 ${report.requestTime!.latencyMs} ms`,
      );
      assert.ok(w.count >= 20, `calls ${w.count}`);
      assert.ok(w.perRequest > 0.8 && w.perRequest <= 1.1, `per request ${w.perRequest}`);
      // One request's time puts the downstream wait in its HTTP part, about the delay a request.
      const part = report.requestTime?.parts.find((p) => p.key === 'http');
      t.diagnostic(`requestTime: ${JSON.stringify(report.requestTime)}`);
      assert.ok(
        part && part.ms >= DELAY_MS * 0.8 && part.ms <= report.requestTime!.latencyMs,
        `http part ${part?.ms} ms of ${report.requestTime?.latencyMs} ms`,
      );
      assert.ok(report.requestTime!.latencyMs >= DELAY_MS, 'the p50 covers the downstream wait');
      // It is a wait, not CPU: no hint lands on the line, and it is not in the threadpool's hint.
      assert.deepEqual(
        report.hints.filter((h) => h.file === SERVER_JS && h.line === line).map((h) => h.rule),
        [],
      );
    },
  );
}
