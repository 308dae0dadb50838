// Event-loop stalls, known answer: test/apps/stall blocks its loop for 200 ms once a second on
// its `STALL LINE`, under real load through the real inspector, and prints where each stall
// really ran. report.json must list about one stall per second, each ≈200 ms, on that line, match
// the stalls the app printed, sum them up in eventLoop.stalls, and hint at a periodic stall.
// The default run (alternating sub-windows, profiler restarts) is used: stalls across our own
// pauses are left out, the others kept. Needs `npm run build`.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { profileUnderLoad } from '../../src/core/index.ts';
import { isReportV1 } from '../../src/core/report/report-check.ts';
import { leakCheckedRuns, markedLine, REPO_ROOT, tempDir } from '../helpers/integration.ts';

const STALL_APP = path.join(REPO_ROOT, 'test', 'apps', 'stall');
const SERVER_JS = path.join(STALL_APP, 'server.js');
const STALL_LINE = markedLine(SERVER_JS, 'STALL LINE');
const STALL_MS = 200;

const runs = leakCheckedRuns();

test(
  'stall app (200 ms every second): report.json lists each stall with its length and its line, and a periodic-stall hint',
  { timeout: 120_000 },
  async (t) => {
    assert.ok(STALL_LINE > 0, 'server.js marks the stall line');
    runs.watch(STALL_APP);
    const { runDir, report } = await profileUnderLoad({
      target: { cwd: STALL_APP, entry: 'server.js', env: { STALL_MS: String(STALL_MS) } },
      url: '/',
      warmupS: 1,
      durationS: 8,
      connections: 10,
      runsDir: tempDir(),
    });
    runs.appStarted(report.app.pid);
    assert.ok(isReportV1(report), 'the report passes its own check');
    assert.ok(report.stalls, 'report.json has stalls');
    const stalls = report.stalls;
    const printed = [...fs.readFileSync(path.join(runDir, 'app.log'), 'utf8').matchAll(/^stall (\d+) (\d+)$/gm)].map(
      (m) => (Number(m[2]) - Number(m[1])) / 1000,
    );
    t.diagnostic(`the app stalled ${printed.length}× overall: ${printed.map((d) => d.toFixed(0)).join(', ')} ms`);
    t.diagnostic(
      `stalls: ${stalls.map((s) => `${s.startMs.toFixed(0)}+${s.durationMs.toFixed(0)} ${s.lines[0]?.function}:${s.lines[0]?.line} ${s.lines[0]?.ownMs}`).join(', ')}`,
    );
    const profiledS = report.profile.durationMs / 1000;
    // About one a second: the profiled window is ~8 s; a stall across a profiler pause is left out.
    assert.ok(
      stalls.length >= profiledS * 0.5 && stalls.length <= profiledS + 1,
      `${stalls.length} stalls in ${profiledS.toFixed(1)} s profiled`,
    );
    // On the stall line, each at least the 200 ms the app blocked for. A shared machine may
    // deschedule the app inside a stall (the timer then runs later and the profiler misses
    // samples), so the length and the line's share are checked on most stalls, not every one.
    // The stall line is first in most stalls and among the first two in every one: once in CI the
    // run's first stall (751 ms into the profiled window, right after V8's code flush at its start)
    // split 95/93 ms between the calling line (setTimeout callback, `stallEverySecond(…)`) and it.
    const most = Math.ceil(stalls.length * 0.75);
    for (const s of stalls) {
      assert.ok(s.durationMs >= 50, `stall of ${s.durationMs} ms`);
      assert.equal(s.lines[0]?.file, SERVER_JS, JSON.stringify(s));
      const stallLine = s.lines.slice(0, 2).find((l) => l.line === STALL_LINE);
      assert.ok(stallLine, `the stall line among the first two: ${JSON.stringify(s)}`);
      assert.equal(stallLine.function, 'stallEverySecond');
    }
    const first = stalls.filter((s) => s.lines[0].line === STALL_LINE);
    assert.ok(first.length >= most, `the stall line first in ${first.length} of ${stalls.length} stalls`);
    const long = stalls.filter((s) => s.durationMs >= STALL_MS * 0.9);
    assert.ok(long.length >= most, `${long.length} of ${stalls.length} stalls last ≈${STALL_MS} ms or more`);
    const asPrinted = stalls.filter((s) => printed.some((d) => Math.abs(d - s.durationMs) <= 15));
    assert.ok(
      asPrinted.length >= most,
      `${asPrinted.length} of ${stalls.length} stalls as long as one the app printed`,
    );
    // (The rest of a stall is time the profiler did not see in the app's code: samples it missed
    // on a loaded machine, the profiler's and the stack captures' own work.)
    const owned = stalls.filter((s) => (s.lines.find((l) => l.line === STALL_LINE)?.ownMs ?? 0) >= s.durationMs * 0.5);
    assert.ok(owned.length >= most, `the stall line owns half or more of ${owned.length} of ${stalls.length} stalls`);
    // Their period (≈1 s) is checked through the hint below: it is read on the app's clock, which
    // the profile's timeline is not (the pauses between profiled sub-windows are cut out of it).

    const summary = report.eventLoop?.stalls;
    assert.ok(summary, 'eventLoop.stalls');
    assert.equal(summary.thresholdMs, 50);
    assert.equal(summary.count, stalls.length);
    assert.equal(summary.maxMs, Math.max(...stalls.map((s) => s.durationMs)));

    const hint = report.hints.find((h) => h.rule === 'periodic-stall');
    assert.ok(hint, `a periodic-stall hint: ${JSON.stringify(report.hints.map((h) => h.rule))}`);
    assert.equal(hint.file, SERVER_JS);
    assert.equal(hint.line, STALL_LINE);
    assert.match(hint.message, /every (9\d\d ms|1\.\d s) for about (19|20|21)\d ms in stallEverySecond/);
  },
);
