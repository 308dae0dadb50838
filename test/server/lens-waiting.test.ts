// Lenses for stalls and threadpool waits (file-view.ts, lens-text.ts): the login-api capture's
// report with stalls and waits added on server.js lines. Each line gets its own lens text, the
// lines count as lines of interest, an edit above moves them, and a wait seen too rarely gets none.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { ReportV1 } from '../../src/core/report/schema.ts';
import { ReportIndex, hoverOf, lensesOf, linesOfInterest } from '../../src/server/file-view.ts';
import { stallLensText, waitLensText } from '../../src/server/lens-text.ts';
import { mapLines } from '../../src/server/staleness.ts';
import { FIXTURES_DIR, loginApiReport } from '../helpers/fixtures.ts';

const serverJs = path.join(FIXTURES_DIR, 'login-api', 'server.js');
const text = fs.readFileSync(serverJs, 'utf8');
const base = loginApiReport();
const STALL_LINE = 35;
const WAIT_LINE = 40;
const RARE_LINE = 41;
const stall = (startMs: number, durationMs: number) => ({
  startMs,
  durationMs,
  lines: [{ file: serverJs, line: STALL_LINE, function: 'checkPassword', ownMs: durationMs * 0.9 }],
});
const wait = (line: number, count: number) => ({
  file: serverJs,
  line,
  function: 'login',
  api: 'crypto.pbkdf2',
  count,
  perRequest: 1,
  waitMs: { p50: 180, p99: 240, total: 180 * count },
  queuedMs: { p50: 150, p99: 200 },
});
const report: ReportV1 = {
  ...base,
  stalls: [stall(100, 210), stall(1100, 180), stall(2100, 60)],
  waits: [wait(WAIT_LINE, 400), wait(RARE_LINE, 2)],
  threadpool: { size: 4, cores: 2 },
};
const index = new ReportIndex(report, '/runs/r1/report.json');
const fc = index.costsOf(serverJs)!;

test('lens texts: stalls and waits', () => {
  assert.equal(stallLensText({ count: 42, maxMs: 210 }), 'stalled the event loop 42× · max 210 ms');
  assert.equal(
    waitLensText(wait(WAIT_LINE, 400), { size: 4 }),
    'waits 180 ms per request · 150 ms queued for the threadpool (4 threads)',
  );
  assert.equal(
    waitLensText({ ...wait(WAIT_LINE, 400), perRequest: 2, queuedMs: { p50: 0.2, p99: 1 } }, { size: 4 }),
    'waits 180 ms a call, 2.0× per request (crypto.pbkdf2)',
  );
  assert.equal(
    waitLensText(
      { ...wait(WAIT_LINE, 400), api: 'http.request', target: 'GET 127.0.0.1:4000', queuedMs: { p50: 0, p99: 0 } },
      { size: 4 },
    ),
    'waits 180 ms per request on GET 127.0.0.1:4000 (http.request)',
  );
});

test('the stall and wait lines are lines of interest and get their lenses; a rare wait does not', () => {
  const lines = linesOfInterest(fc);
  assert.ok(lines.includes(STALL_LINE) && lines.includes(WAIT_LINE), String(lines));
  assert.ok(!lines.includes(RARE_LINE), 'two calls are not worth a lens');
  const lenses = lensesOf(index, fc, mapLines(text, text, lines));
  const titles = (line: number): string[] => lenses.filter((l) => l.line0 + 1 === line).map((l) => l.title);
  assert.ok(titles(STALL_LINE).includes('stalled the event loop 3× · max 210 ms'), String(titles(STALL_LINE)));
  assert.deepEqual(titles(WAIT_LINE), ['waits 180 ms per request · 150 ms queued for the threadpool (4 threads)']);
  assert.deepEqual(titles(RARE_LINE), []);
});

test('two lines inserted above: the stall and wait lenses move with their lines', () => {
  const edited = `// a\n// b\n${text}`;
  const lenses = lensesOf(index, fc, mapLines(text, edited, linesOfInterest(fc)));
  const at = (title: string): number[] => lenses.filter((l) => l.title === title).map((l) => l.line0 + 1);
  assert.deepEqual(at('stalled the event loop 3× · max 210 ms'), [STALL_LINE + 2]);
  assert.deepEqual(at('waits 180 ms per request · 150 ms queued for the threadpool (4 threads)'), [WAIT_LINE + 2]);
});

test("a line that waits longer than it runs shows its wait first; the wait's hint is in its hover", () => {
  const poolWait = {
    ...wait(STALL_LINE, 400),
    api: 'pg',
    target: '127.0.0.1:5432 SELECT pg_sleep($1)',
    waitMs: { p50: 420, p99: 480, total: 420 * 400 },
    queuedMs: { p50: 365, p99: 410 },
    poolSize: 2,
  };
  const hint = {
    rule: 'db-pool-queue',
    file: serverJs,
    line: STALL_LINE,
    api: 'pg',
    function: 'checkPassword',
    totalMs: poolWait.waitMs.total,
    totalPct: 1,
    message:
      "This line's pg statements wait 420 ms a call (p50), 365 ms of it (87%) for one of its pool's 2 connections.",
    fix: 'Give the pool more connections (`max`, now 2).',
  };
  // Under load (1000 requests profiled): the line's own 2.9 ms a request against a 420 ms wait.
  const load = {
    profiled: { requests: { total: 1000, perSecond: 100 }, durationS: 10 },
  } as unknown as ReportV1['load'];
  const r: ReportV1 = {
    ...base,
    load,
    waits: [poolWait],
    threadpool: { size: 4, cores: 2 },
    hints: [...base.hints, hint],
  };
  const idx = new ReportIndex(r, '/runs/r2/report.json');
  const costs = idx.costsOf(serverJs)!;
  const mapping = mapLines(text, text, linesOfInterest(costs));
  const titles = lensesOf(idx, costs, mapping)
    .filter((l) => l.line0 + 1 === STALL_LINE)
    .map((l) => l.title);
  assert.match(
    titles[0],
    /^waits 420 ms per request on pg 127\.0\.0\.1:5432 .* · 365 ms queued for a connection \(pool of 2\)$/,
    String(titles),
  );
  assert.ok(
    titles.some((t) => /ms\/request/.test(t)),
    `the line's own cost still has its lens: ${String(titles)}`,
  );
  const hover = hoverOf(idx, costs, mapping, STALL_LINE - 1) ?? '';
  assert.match(hover, /one of its pool's 2 connections/, hover);
  assert.match(hover, /Give the pool more connections/, hover);
  // Not a blocking hint: no Problem for it.
  assert.ok(!costs.hints.some((h) => h.rule === 'db-pool-queue'));
});
