// Threadpool waits, known answer: test/apps/threadpool awaits one crypto.pbkdf2 per request on its
// `WAIT LINE`. Under 32 connections, real load and the real inspector: with UV_THREADPOOL_SIZE=2
// a request queues for a thread for most of its wait (about 1 − 2/32 of it), with 16 for about
// half (1 − 16/32). report.json must put the waits on that line, queued large vs small, and the
// UV_THREADPOOL_SIZE hint only in the first. The probe is gone from the app after the run.
// Needs `npm run build`.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { profileUnderLoad, type ReportV1 } from '../../src/core/index.ts';
import { isReportV1 } from '../../src/core/report/report-check.ts';
import { leakCheckedRuns, markedLine, REPO_ROOT, tempDir } from '../helpers/integration.ts';

const APP = path.join(REPO_ROOT, 'test', 'apps', 'threadpool');
const SERVER_JS = path.join(APP, 'server.js');
const WAIT_LINE = markedLine(SERVER_JS, 'WAIT LINE');

const runs = leakCheckedRuns();

async function profileWithPool(size: number): Promise<ReportV1> {
  runs.watch(APP);
  const { report } = await profileUnderLoad({
    target: { cwd: APP, entry: 'server.js', env: { UV_THREADPOOL_SIZE: String(size) } },
    url: '/',
    warmupS: 1,
    durationS: 4,
    connections: 32,
    runsDir: tempDir(),
  });
  runs.appStarted(report.app.pid);
  assert.ok(isReportV1(report), 'the report passes its own check');
  return report;
}

test(
  'async pbkdf2 at 32 connections: UV_THREADPOOL_SIZE=2 queues most of the wait on the await line and hints; 16 does not',
  { timeout: 180_000 },
  async (t) => {
    assert.ok(WAIT_LINE > 0, 'server.js marks the wait line');
    const small = await profileWithPool(2);
    const large = await profileWithPool(16);
    const onLine = (r: ReportV1) => {
      const w = r.waits?.find((x) => x.file === SERVER_JS && x.line === WAIT_LINE);
      assert.ok(w, `a wait on server.js:${WAIT_LINE}: ${JSON.stringify(r.waits)}`);
      return w;
    };
    const a = onLine(small);
    const b = onLine(large);
    for (const [r, w, size] of [
      [small, a, 2],
      [large, b, 16],
    ] as const) {
      t.diagnostic(
        `UV_THREADPOOL_SIZE=${size}: ${w.count} calls, wait p50 ${w.waitMs.p50} ms, queued p50 ${w.queuedMs.p50} ms (${Math.round((w.queuedMs.p50 / w.waitMs.p50) * 100)}%), app CPU ${r.eventLoop?.profiled?.cpu}`,
      );
      assert.deepEqual(r.threadpool?.size, size);
      assert.equal(w.api, 'crypto.pbkdf2');
      assert.equal(w.function, 'hashPassword');
      // One pbkdf2 per request. At each profiled sub-window's edges up to one request per
      // connection is in flight: its call counted without its response, or the reverse.
      const edges = (r.load?.subWindows?.profiled.length ?? 1) * 32;
      const slack = edges / Math.max(1, r.load?.profiled.requests.total ?? w.count);
      assert.ok(
        w.perRequest >= 1 - slack - 0.05 && w.perRequest <= 1 + slack + 0.05,
        `per request ${w.perRequest} (±${slack.toFixed(2)} for the requests in flight at the edges)`,
      );
      assert.ok(w.waitMs.total > 0 && w.queuedMs.p50 <= w.waitMs.p50);
    }
    const share = (w: typeof a): number => w.queuedMs.p50 / w.waitMs.p50;
    // Theory 94% vs 50%; a busy main thread keeps fewer requests in the pool, which lowers both.
    // The hint's line is 0.6 (analysis/time/threadpool-waits.ts): the first above it, the second below.
    assert.ok(share(a) >= 0.6, `2 threads: ${Math.round(share(a) * 100)}% of the wait queued`);
    assert.ok(share(b) < 0.6, `16 threads: ${Math.round(share(b) * 100)}% of the wait queued`);
    assert.ok(share(a) > share(b) + 0.15, 'far more queued with 2 threads than with 16');

    const hint = small.hints.find((h) => h.rule === 'threadpool-queue');
    assert.ok(hint, `the pool hint with 2 threads: ${JSON.stringify(small.hints.map((h) => h.rule))}`);
    assert.equal(hint.file, SERVER_JS);
    assert.equal(hint.line, WAIT_LINE);
    assert.match(hint.message, /UV_THREADPOOL_SIZE=2/);
    assert.equal(
      large.hints.find((h) => h.rule === 'threadpool-queue'),
      undefined,
      'no pool hint with 16 threads',
    );
    // It is a wait, not CPU: no hint calls the await line blocking.
    assert.ok(!small.hints.some((h) => h.line === WAIT_LINE && h.rule !== 'threadpool-queue'));
  },
);
