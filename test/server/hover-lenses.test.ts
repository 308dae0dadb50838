// Hovers carry everything the lenses on their line say, and more (issue 38: on the login API's
// async fix the lens said "waits 433 ms per request · 344 ms queued for the threadpool" and the
// line had no hover, or one with its CPU only). Recorded runs (test/fixtures/runs): the async fix
// (threadpool waits) and the sync original (a stall-taking crypto line with a hint), and the
// heap app (allocations lenses), each seen through its app's source as analyzed.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { after, test } from 'node:test';
import { analyzeRunDir } from '../../src/core/index.ts';
import type { ReportV1 } from '../../src/core/report/schema.ts';
import { ReportIndex, hoverOf, lensesOf, linesOfInterest } from '../../src/server/file-view.ts';
import { mapLines } from '../../src/server/staleness.ts';
import { recordedReport, recordedRun, removeRecordedRuns } from '../helpers/recorded.ts';

after(() => removeRecordedRuns());

/** Every lens of every file of the report, with the hover of its line. */
function lensesAndHovers(report: ReportV1): Array<{ file: string; line: number; lens: string; hover: string }> {
  const index = new ReportIndex(report, '/runs/r/report.json');
  const out: Array<{ file: string; line: number; lens: string; hover: string }> = [];
  for (const fc of index.files.values()) {
    if (!fs.existsSync(fc.file)) continue;
    const text = fs.readFileSync(fc.file, 'utf8');
    const m = mapLines(text, text, linesOfInterest(fc));
    for (const l of lensesOf(index, fc, m))
      out.push({ file: fc.file, line: l.line0 + 1, lens: l.title, hover: hoverOf(index, fc, m, l.line0) ?? '' });
  }
  return out;
}

function assertHoversCarryLenses(name: string, report: ReportV1): void {
  const seen = lensesAndHovers(report);
  assert.ok(seen.length > 0, `${name}: lenses to check`);
  for (const s of seen) assert.ok(s.hover.includes(s.lens), `${name} line ${s.line}: "${s.lens}" not in\n${s.hover}`);
}

test('the async fix: the waiting line has a hover with the wait, the queueing and their p99s', () => {
  const r = recordedReport('login-async');
  const w = r.waits?.[0];
  assert.ok(w && w.queuedMs.p50 >= 1 && r.threadpool, 'the recorded run waited for the threadpool');
  const onWaitLine = lensesAndHovers(r).filter((s) => s.line === w.line);
  assert.ok(onWaitLine.some((s) => /queued for the threadpool \(4 threads\)/.test(s.lens)));
  const hover = onWaitLine[0].hover;
  assert.match(hover, /waits 433 ms per request · 344 ms queued for the threadpool \(4 threads\)/);
  assert.match(hover, /299 calls/);
  assert.match(hover, /wait p50 433 ms, p99 501 ms/);
  assert.match(hover, /queued for a thread p50 344 ms, p99 397 ms/);
  assert.match(hover, /`crypto\.pbkdf2`/);
  assertHoversCarryLenses('login-async', r);
});

test('the sync original: the hinted line says it blocks the loop, with the stalls it took part in', () => {
  const r = recordedReport('login-sync');
  const hint = r.hints.find((h) => h.rule === 'crypto-sync')!;
  const onLine = lensesAndHovers(r).filter((s) => s.line === hint.line);
  assert.ok(onLine.some((s) => /blocks the event loop/.test(s.lens)));
  assert.ok(onLine.some((s) => /stalled the event loop \d+×/.test(s.lens)));
  assert.match(onLine[0].hover, /Of the app's capacity: [^\n]* · blocks the event loop\./);
  assert.match(onLine[0].hover, /stalls of 50 ms or more in the profiled window/);
  assert.match(onLine[0].hover, /\*\*Fix:\*\*/);
  assertHoversCarryLenses('login-sync', r);
});

test('the heap app, analyzed now: allocations and function lenses are in their hovers too', () => {
  const before = recordedReport('heap-app');
  const r = analyzeRunDir(recordedRun('heap-app'), before.app.cwd);
  const seen = lensesAndHovers(r);
  assert.ok(
    seen.some((s) => /^allocates /.test(s.lens)),
    'the run has an allocations lens',
  );
  assert.ok(
    seen.some((s) => /^total /.test(s.lens)),
    'and a function lens',
  );
  assertHoversCarryLenses('heap-app', r);
});
