// The sub-second heat map from a real profile: test/apps/stall blocks its event loop for 300 ms
// once a second at a fixed phase of the wall clock, under real load through the real inspector.
// The stall's phase relative to the profile's start is unknown, so the test finds the hot band
// (rows of the second that are mostly non-idle, wrapping round the second's boundary) and checks
// its height, that it is there in every second, and that the rest is mostly idle; then ranks a
// stall range (the stall line first) and a quiet range (not it). Needs `npm run build`.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { profileUnderLoad } from '../../src/core/index.ts';
import { TIMELINE_FILE } from '../../src/core/analyze-run/analyze-run.ts';
import { parseCpuProfileText, readCpuProfile } from '../../src/core/analysis/cpuprofile.ts';
import { cutProfile, heatMap, rankRange, sampleStarts, type TimelineV1 } from '../../src/core/analysis/timeline.ts';
import { leakCheckedRuns, REPO_ROOT, runCli, tempDir } from '../helpers/integration.ts';

const STALL_APP = path.join(REPO_ROOT, 'test', 'apps', 'stall');
const SERVER_JS = path.join(STALL_APP, 'server.js');
const STALL_LINE = fs.readFileSync(SERVER_JS, 'utf8').split('\n').findIndex((l) => l.includes('// STALL LINE')) + 1;
const ROWS = 50;
const ROW_MS = 1000 / ROWS;
/** 300 ms in 20 ms rows; a stall that starts inside a row touches one more. */
const STALL_ROWS = 300 / ROW_MS;

const runs = leakCheckedRuns();

test('stall app: the heat map shows the 300 ms stall in the same sub-second rows of every second, and a stall range ranks its line first', { timeout: 90_000 }, async (t) => {
  assert.ok(STALL_LINE > 0, 'server.js marks the stall line');
  runs.watch(STALL_APP);
  // 6 s: two profiler segments (5 s each), so the merged timeline is what is checked.
  const { runDir, report } = await profileUnderLoad({ target: { cwd: STALL_APP, entry: 'server.js' }, url: '/', warmupS: 1, durationS: 6, connections: 10, runsDir: tempDir() });
  runs.appStarted(report.app.pid);

  const file = path.join(runDir, TIMELINE_FILE);
  assert.ok(fs.existsSync(file), 'timeline.json is written beside report.json');
  const timeline = JSON.parse(fs.readFileSync(file, 'utf8')) as TimelineV1;
  assert.equal(timeline.sampleUs.length, report.profile.samples, 'one entry per sample of the profile');

  const map = heatMap(timeline, ROWS);
  const full = Math.floor(timeline.endUs / 1e6);
  assert.ok(full >= 4, `at least 4 whole seconds profiled (got ${full})`);
  /** A cell's share of non-idle samples; undefined for a cell without samples (the app was descheduled). */
  const busy = (col: number, row: number): number | undefined => {
    const cell = col * ROWS + row;
    return map.samples[cell] > 0 ? map.nonIdle[cell] / map.samples[cell] : undefined;
  };
  // Per row, over the whole seconds: the median share of non-idle samples. The median, since
  // on a shared machine one second can be disturbed (descheduled, a profiler restart).
  const rowBusy = Array.from({ length: ROWS }, (_, r) => median(Array.from({ length: full }, (_, c) => busy(c, r)).filter((b) => b !== undefined)));
  const mark = (b: number | undefined): string => (b === undefined ? ' ' : b > 0.5 ? '#' : b > 0.2 ? '+' : '.');
  const picture = rowBusy.map(mark).join('');
  t.diagnostic(`rows (0→1000 ms, # = mostly busy): ${picture}`);
  for (let c = 0; c < map.columns; c++) t.diagnostic(`second ${c}: ${Array.from({ length: ROWS }, (_, r) => mark(busy(c, r))).join('')}`);

  const band = hotBand(rowBusy.map((b) => b > 0.5));
  assert.ok(band, `one contiguous hot band in the second: ${picture}`);
  assert.ok(band.length >= STALL_ROWS - 2 && band.length <= STALL_ROWS + 3, `the band is ${band.length} rows (${band.length * ROW_MS} ms), expected about ${STALL_ROWS}: ${picture}`);
  const inBand = (r: number, margin: number): boolean => ((r - band.start + ROWS) % ROWS) < band.length + margin || ((band.start - r + ROWS) % ROWS) <= margin;
  const quiet = rowBusy.filter((_, r) => !inBand(r, 2));
  assert.ok(quiet.every((b) => b < 0.5) && mean(quiet) < 0.25, `outside the band the app is mostly idle (mean ${mean(quiet).toFixed(2)}): ${picture}`);
  // The band is there in (nearly) every second, not the average of a few.
  let secondsWithStall = 0;
  for (let c = 0; c < full; c++) {
    let hot = 0;
    for (let k = 0; k < band.length; k++) if ((busy(c, (band.start + k) % ROWS) ?? 0) > 0.5) hot++;
    if (hot >= band.length - 3) secondsWithStall++;
  }
  // The first and last second may hold only part of a stall that wraps round their boundary, one more may be disturbed.
  assert.ok(secondsWithStall >= full - 3, `the band is hot in ${secondsWithStall} of ${full} whole seconds`);

  // A stall: from the band's start in the second whole second, 300 ms.
  const stallStart = 1000 + band.start * ROW_MS;
  const starts = sampleStarts(timeline);
  const inStall = rankRange(timeline, stallStart, stallStart + 300, { starts });
  const top = inStall.lines[0];
  assert.ok(top, 'the stall range has hot lines');
  assert.equal(top.file, SERVER_JS);
  assert.equal(top.line, STALL_LINE, `stall range: ${JSON.stringify(inStall.lines.slice(0, 3))}`);
  assert.equal(top.function, 'stallEverySecond');
  assert.ok(top.ownPct >= 80, `the stall line owns ${top.ownPct}% of the stall range: ${JSON.stringify(inStall.lines.slice(0, 4))}`);

  // Between two stalls: from 100 ms after one ends, 400 ms (ending 200 ms before the next).
  const quietStart = stallStart + band.length * ROW_MS + 100;
  const between = rankRange(timeline, quietStart, quietStart + 400, { starts });
  const stallThere = between.lines.find((l) => l.line === STALL_LINE && l.file === SERVER_JS);
  assert.notEqual(between.lines[0]?.line, STALL_LINE, `quiet range: ${JSON.stringify(between.lines.slice(0, 3))}`);
  assert.ok(!stallThere || stallThere.ownPct < 20, `the stall line is not hot between stalls: ${JSON.stringify(stallThere)}`);
  assert.ok(between.nonIdleMs < inStall.nonIdleMs / 3, `quiet ${between.nonIdleMs} ms vs stall ${inStall.nonIdleMs} ms of CPU`);

  // The whole run's hottest line is the stall's too.
  assert.equal(report.lines[0]?.line, STALL_LINE);

  // The profile cut to the stall range: a valid profile of exactly the ranked samples.
  const profile = parseCpuProfileText(fs.readFileSync(path.join(runDir, 'profile.cpuprofile'), 'utf8'));
  const cut = readCpuProfile(cutProfile(profile, stallStart, stallStart + 300));
  assert.equal(cut.samples?.length, inStall.samples, 'the cut holds the samples of the range');
  assert.ok(cut.endTime - cut.startTime <= 300_000 && cut.endTime - cut.startTime >= 290_000, `the cut lasts ${(cut.endTime - cut.startTime) / 1000} ms`);

  // `hotline analyze --timeline` writes the same timeline from the saved profile.
  const out = path.join(tempDir(), 'timeline.json');
  const cli = await runCli(['analyze', path.join(runDir, 'profile.cpuprofile'), '--root', STALL_APP, '--json', '--timeline', out]);
  assert.equal(cli.code, 0, cli.stderr);
  const fromCli = JSON.parse(fs.readFileSync(out, 'utf8')) as TimelineV1;
  assert.deepEqual(fromCli.sampleKind.length, timeline.sampleKind.length);
  assert.deepEqual(fromCli.lines, timeline.lines, 'the same lines, in the same order');
});

/** The one circular run of `true` rows (wrapping from the last row to the first), if there is exactly one. */
function hotBand(hot: boolean[]): { start: number; length: number } | undefined {
  const n = hot.length;
  const count = hot.filter(Boolean).length;
  if (count === 0 || count === n) return undefined;
  const start = hot.findIndex((h, r) => h && !hot[(r - 1 + n) % n]);
  let length = 0;
  while (length < n && hot[(start + length) % n]) length++;
  return length === count ? { start, length } : undefined;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length > 0 ? sorted[sorted.length >> 1] : 0;
}

function mean(values: number[]): number {
  return values.length > 0 ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}
