// The sub-second heat map from a real profile: test/apps/stall blocks its event loop for 300 ms
// once a second, under real load through the real inspector, and prints where each stall really
// ran (µs of the monotonic clock V8's profiles use). The test checks the heat map against those
// stalls — their cells hot, the cells away from them mostly idle — rather than against the 300 ms
// the app aims at (a busy machine fires its timer late); then ranks a stall range (the stall line
// first) and a quiet range (not it). Needs `npm run build`.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { profileUnderLoad } from '../../src/core/index.ts';
import { TIMELINE_FILE } from '../../src/core/analyze-run/analyze-run.ts';
import { parseCpuProfileText, readCpuProfile } from '../../src/core/profile/cpuprofile.ts';
import {
  cellRangeMs,
  cutProfile,
  heatMap,
  rankRange,
  sampleStarts,
  type TimelineV1,
} from '../../src/core/analysis/time/timeline.ts';
import { leakCheckedRuns, REPO_ROOT, runCli, tempDir } from '../helpers/integration.ts';
import { awayFromStalls, stallsOfRun } from '../helpers/stalls.ts';

const STALL_APP = path.join(REPO_ROOT, 'test', 'apps', 'stall');
const SERVER_JS = path.join(STALL_APP, 'server.js');
const STALL_LINE =
  fs
    .readFileSync(SERVER_JS, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes('// STALL LINE')) + 1;
const ROWS = 50;
const ROW_MS = 1000 / ROWS;
/** 300 ms in 20 ms rows, if the app's timer fires on time. */
const STALL_ROWS = 300 / ROW_MS;

const runs = leakCheckedRuns();

test(
  'stall app: the heat map shows each stall where the app ran it, the rest mostly idle, and a stall range ranks its line first',
  { timeout: 90_000 },
  async (t) => {
    assert.ok(STALL_LINE > 0, 'server.js marks the stall line');
    runs.watch(STALL_APP);
    // 6 s in one profiled sub-window: two profiler segments (5 s each), so the merged timeline is
    // what is checked, and its seconds are the app's (the stalls are printed in the app's time).
    const { runDir, report } = await profileUnderLoad({
      target: { cwd: STALL_APP, entry: 'server.js' },
      url: '/',
      warmupS: 1,
      durationS: 6,
      subWindows: 1,
      connections: 10,
      runsDir: tempDir(),
    });
    runs.appStarted(report.app.pid);

    const file = path.join(runDir, TIMELINE_FILE);
    assert.ok(fs.existsSync(file), 'timeline.json is written beside report.json');
    const timeline = JSON.parse(fs.readFileSync(file, 'utf8')) as TimelineV1;
    assert.equal(timeline.sampleUs.length, report.profile.samples, 'one entry per sample of the profile');

    const map = heatMap(timeline, ROWS);
    const profile = parseCpuProfileText(fs.readFileSync(path.join(runDir, 'profile.cpuprofile'), 'utf8'));
    const stalls = stallsOfRun(runDir);
    // A cell near a stall cut by the profile's start or end (or by the app's stop) is not "away".
    const allStalls = stallsOfRun(runDir, { overlapping: true });
    assert.ok(
      stalls.length >= 4,
      `at least 4 stalls inside the profile (got ${stalls.length} of ${timeline.endUs / 1e6} s)`,
    );
    /** A cell's share of non-idle samples; undefined for a cell without samples (the app was descheduled). */
    const busy = (col: number, row: number): number | undefined => {
      const cell = col * ROWS + row;
      return map.samples[cell] > 0 ? map.nonIdle[cell] / map.samples[cell] : undefined;
    };
    const mark = (b: number | undefined): string => (b === undefined ? ' ' : b > 0.5 ? '#' : b > 0.2 ? '+' : '.');
    for (let c = 0; c < map.columns; c++)
      t.diagnostic(`second ${c}: ${Array.from({ length: ROWS }, (_, r) => mark(busy(c, r))).join('')}`);
    t.diagnostic(
      `stalls (ms from the profile's start): ${stalls.map(([s, e]) => `${s.toFixed(0)}–${e.toFixed(0)}`).join(', ')}`,
    );

    // Cells wholly inside a stall are busy; cells a row or more away from every stall mostly idle.
    const inside: number[] = [];
    const away: number[] = [];
    for (let c = 0; c < map.columns; c++) {
      for (let r = 0; r < ROWS; r++) {
        const b = busy(c, r);
        const { startMs, endMs } = cellRangeMs(map, c, r);
        if (b === undefined || endMs > timeline.endUs / 1000) continue;
        if (stalls.some(([s, e]) => startMs >= s && endMs <= e)) inside.push(b);
        else if (awayFromStalls(allStalls, startMs, endMs, ROW_MS)) away.push(b);
      }
    }
    const share = (xs: number[], test: (b: number) => boolean): number =>
      xs.filter(test).length / Math.max(1, xs.length);
    assert.ok(inside.length >= 4 * (STALL_ROWS - 4), `cells inside the stalls: ${inside.length}`);
    assert.ok(
      share(inside, (b) => b > 0.5) >= 0.9,
      `cells inside a stall are hot: ${(share(inside, (b) => b > 0.5) * 100).toFixed(0)}% of ${inside.length}`,
    );
    // (Not all: the profiler's own start, GC and a descheduled second put a few busy cells anywhere.)
    assert.ok(
      share(away, (b) => b < 0.5) >= 0.8 && mean(away) < 0.25,
      `cells away from the stalls are mostly idle: ${(share(away, (b) => b < 0.5) * 100).toFixed(0)}% of ${away.length}, mean ${mean(away).toFixed(2)}`,
    );

    // A stall's range: the second stall, as the app ran it.
    const [stallStart, stallEnd] = stalls[1];
    const starts = sampleStarts(timeline);
    const inStall = rankRange(timeline, stallStart, stallEnd, { starts });
    const top = inStall.lines[0];
    assert.ok(top, 'the stall range has hot lines');
    assert.equal(top.file, SERVER_JS);
    assert.equal(top.line, STALL_LINE, `stall range: ${JSON.stringify(inStall.lines.slice(0, 3))}`);
    assert.equal(top.function, 'stallEverySecond');
    assert.ok(
      top.ownPct >= 80,
      `the stall line owns ${top.ownPct}% of the stall range: ${JSON.stringify(inStall.lines.slice(0, 4))}`,
    );

    // Between two stalls: from 100 ms after one ends to 100 ms before the next begins.
    const between = rankRange(timeline, stallEnd + 100, stalls[2][0] - 100, { starts });
    const stallThere = between.lines.find((l) => l.line === STALL_LINE && l.file === SERVER_JS);
    assert.notEqual(between.lines[0]?.line, STALL_LINE, `quiet range: ${JSON.stringify(between.lines.slice(0, 3))}`);
    assert.ok(
      !stallThere || stallThere.ownPct < 20,
      `the stall line is not hot between stalls: ${JSON.stringify(stallThere)}`,
    );
    assert.ok(
      between.nonIdleMs < inStall.nonIdleMs / 3,
      `quiet ${between.nonIdleMs} ms vs stall ${inStall.nonIdleMs} ms of CPU`,
    );

    // The whole run's hottest line is the stall's too.
    assert.equal(report.lines[0]?.line, STALL_LINE);

    // The profile cut to the stall range: a valid profile of exactly the ranked samples, as long as the range.
    const cut = readCpuProfile(cutProfile(profile, stallStart, stallEnd));
    assert.equal(cut.samples?.length, inStall.samples, 'the cut holds the samples of the range');
    assert.equal(
      cut.endTime - cut.startTime,
      Math.round(stallEnd * 1000) - Math.round(stallStart * 1000),
      'the cut spans the range',
    );

    // `hotline analyze --timeline` writes the same timeline from the saved profile.
    const out = path.join(tempDir(), 'timeline.json');
    const cli = await runCli([
      'analyze',
      path.join(runDir, 'profile.cpuprofile'),
      '--root',
      STALL_APP,
      '--json',
      '--timeline',
      out,
    ]);
    assert.equal(cli.code, 0, cli.stderr);
    const fromCli = JSON.parse(fs.readFileSync(out, 'utf8')) as TimelineV1;
    assert.deepEqual(fromCli.sampleKind.length, timeline.sampleKind.length);
    assert.deepEqual(fromCli.lines, timeline.lines, 'the same lines, in the same order');
  },
);

function mean(values: number[]): number {
  return values.length > 0 ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}
