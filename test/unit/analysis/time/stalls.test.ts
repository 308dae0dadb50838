// Stalls (src/core/analysis/time/stalls.ts) on hand-made profiles whose samples follow a known pattern:
// the measured gaps become stalls with their start refined by the samples and the line that ran
// in them; a steady period makes a periodic stall (also across the pauses between sub-windows),
// an irregular one does not. And mergedClock places a segment's moments on the merged timeline.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { analyzeProfileWithTimeline } from '../../../../src/core/analysis/analyze.ts';
import { readCpuProfile, type CpuProfile } from '../../../../src/core/profile/cpuprofile.ts';
import { mergedClock, mergeProfiles } from '../../../../src/core/profile/merge.ts';
import {
  findStalls,
  periodicStall,
  periodicStallHint,
  stallsByLine,
  summarizeStalls,
  type TimedStall,
} from '../../../../src/core/analysis/time/stalls.ts';
import { sampleStarts, type TimelineV1 } from '../../../../src/core/analysis/time/timeline.ts';
import { validateStallThreshold } from '../../../../src/core/capture/run-settings.ts';

const ROOT = '/ws';
const APP = `${ROOT}/app.js`;
const APP_SOURCE = [
  'function tick() {',
  '  return 1;',
  '}',
  'function stall() {',
  '  for (;;) burn(); // hot',
  '}',
  '',
].join('\n');
const STALL_LINE = 5;

/** `ms` samples of 1 ms from `startTime`: those in a `busy` range [from, to) ms run `stall`, the rest are idle. */
function profileWith(ms: number, busy: Array<[number, number]>, startTime = 5_000_000): CpuProfile {
  const url = pathToFileURL(APP).href;
  const frame = (id: number, functionName: string, line0: number, file = url) => ({
    id,
    callFrame: { functionName, scriptId: file ? '7' : '0', url: file, lineNumber: line0, columnNumber: file ? 0 : -1 },
  });
  const nodes = [
    { ...frame(1, '(root)', -1, ''), children: [2, 3] },
    frame(2, '(idle)', -1, ''),
    { ...frame(3, 'stall', 3), positionTicks: [{ line: STALL_LINE, ticks: 1 }] },
  ];
  const samples = Array.from({ length: ms }, (_, i) => (busy.some(([a, b]) => i >= a && i < b) ? 3 : 2));
  const timeDeltas = samples.map((_, i) => (i === 0 ? 0 : 1000));
  return readCpuProfile({ nodes, startTime, endTime: startTime + ms * 1000, samples, timeDeltas });
}

function timelineOf(profile: CpuProfile): TimelineV1 {
  const { timeline } = analyzeProfileWithTimeline({ profile, root: ROOT, sources: new Map([[APP, APP_SOURCE]]) });
  assert.ok(timeline);
  return timeline;
}

/** A gap as the probe notes it: its timer last ran `before` ms ahead of the busy range and next at its end. */
const gapAround = ([from, to]: [number, number], before = 7, appShiftUs = 0): [number, number, number] => [
  (from - before) * 1000,
  to * 1000,
  (from - before) * 1000 + appShiftUs,
];

describe('stalls', () => {
  test('a measured gap becomes a stall that starts where the samples turn busy, on the line that ran', () => {
    const busy: Array<[number, number]> = [
      [300, 500],
      [1300, 1500],
    ];
    const t = timelineOf(profileWith(2000, busy));
    const stalls = findStalls(
      busy.map((b) => gapAround(b)),
      50,
      t,
    );
    assert.equal(stalls.length, 2);
    for (const [i, s] of stalls.entries()) {
      // The timer last ran 7 ms before: the idle samples then say the loop was still free.
      assert.equal(s.startMs, busy[i][0]);
      assert.equal(s.durationMs, 200);
      assert.equal(s.lines[0].file, APP);
      assert.equal(s.lines[0].line, STALL_LINE);
      assert.equal(s.lines[0].function, 'stall');
      assert.ok(Math.abs(s.lines[0].ownMs - 200) <= 1, `own ${s.lines[0].ownMs}`);
    }
    assert.deepEqual(summarizeStalls(stalls, 50), { thresholdMs: 50, count: 2, maxMs: 200, totalMs: 400 });
    assert.deepEqual(
      stallsByLine(stalls).map((l) => [l.line, l.count, l.maxMs]),
      [[STALL_LINE, 2, 200]],
    );
  });

  test('a gap shorter than the threshold once refined, and idle samples just before the timer ran, are handled', () => {
    const t = timelineOf(profileWith(1000, [[100, 140]]));
    // The timer was 30 ms late to start with, but the loop was busy only 40 ms: under 50, not a stall.
    assert.deepEqual(findStalls([gapAround([100, 140], 30)], 50, t), []);
    // Idle samples right before the timer ran (the busy run ended a little earlier) do not cut the stall.
    const t2 = timelineOf(profileWith(1000, [[100, 300]]));
    const [s] = findStalls([[95_000, 302_000, 95_000]], 50, t2);
    assert.equal(s.startMs, 100);
    assert.equal(s.durationMs, 202);
  });

  test('a gap the profiler saw mostly idle (the app was not running) is counted, not listed', () => {
    const t = timelineOf(profileWith(1000, [[100, 130]]));
    const offCpu = { count: 0 };
    assert.deepEqual(findStalls([[90_000, 300_000, 90_000]], 50, t, offCpu), []);
    assert.equal(offCpu.count, 1);
  });

  test('without a timeline the gap is the stall, with no lines', () => {
    const [s] = findStalls([[1000, 81_000, 1000]], 50, undefined);
    assert.deepEqual(s, { startMs: 1, durationMs: 80, lines: [], appStartMs: 1 });
  });

  test('a steady period is periodic, also when some intervals span a pause between sub-windows', () => {
    const stall = (appStartMs: number): TimedStall => ({
      startMs: appStartMs,
      durationMs: 200,
      appStartMs,
      lines: [{ file: APP, line: STALL_LINE, function: 'stall', ownMs: 190 }],
    });
    // Every second, with the ones at 3 and 4 s lost in a measured sub-window.
    const steady = [500, 1500, 2510, 5490, 6500, 7500].map(stall);
    const p = periodicStall(steady);
    assert.ok(p, 'periodic');
    assert.equal(p.line, STALL_LINE);
    assert.ok(Math.abs(p.periodMs - 1000) <= 10, `period ${p.periodMs}`);
    assert.equal(p.typicalMs, 200);
    const hint = periodicStallHint(p, steady, 2000);
    assert.equal(hint.rule, 'periodic-stall');
    assert.equal(hint.line, STALL_LINE);
    assert.match(hint.message, /about every 1\.0 s for about 200 ms in stall/);
    assert.equal(hint.totalMs, 6 * 190);

    // Irregular stalls, and too few, are not.
    assert.equal(periodicStall([300, 1100, 1500, 2900, 3200, 5100].map(stall)), undefined);
    assert.equal(periodicStall([500, 1500].map(stall)), undefined);

    // Back to back (a saturated server blocking on every request: 69 ms stalls every 69 ms) is
    // no timer: the loop is never free between them.
    const busy = (appStartMs: number): TimedStall => ({ ...stall(appStartMs), durationMs: 69 });
    assert.equal(periodicStall([0, 69, 138, 207, 276, 345].map(busy)), undefined);
  });
});

describe('the stall threshold setting', () => {
  test('0 (off) and 20–60000 ms pass; below the probe can measure, above, or not a number, is one clear error', () => {
    for (const ok of [undefined, 0, 20, 50, 60_000]) validateStallThreshold(ok);
    for (const bad of [5, 19, 60_001, Number.NaN, -50])
      assert.throws(() => validateStallThreshold(bad), /the stall threshold must be 0 \(off\) or 20–60000 ms/);
  });
});

describe('mergedClock', () => {
  test("a moment of a segment's clock lands where the merged timeline has that segment's samples", () => {
    const a = profileWith(1000, [[100, 300]], 5_000_000);
    // The profiler restarted 400 ms later: that pause is not on the merged timeline.
    const b = profileWith(1000, [[200, 400]], 6_400_000);
    const merged = mergeProfiles([a, b]);
    const clock = mergedClock([a, b]);
    const starts = sampleStarts(timelineOf(merged));
    assert.equal(clock(5_000_000 + 100_000), 100_000);
    // b's sample at 200 ms is merged sample 1000 + 200.
    assert.equal(clock(6_400_000 + 200_000), starts[1200]);
    assert.equal(clock(6_000_000 + 200_000), undefined, 'the pause between the segments');
    // A gap noted on b's clock becomes a stall at b's busy samples on the merged timeline.
    const t = timelineOf(merged);
    const from = clock(6_400_000 + 190_000)!;
    const to = clock(6_400_000 + 400_000)!;
    const [s] = findStalls([[from, to, 6_590_000]], 50, t);
    assert.equal(s.startMs, starts[1200] / 1000);
    assert.equal(s.lines[0].line, STALL_LINE);
  });
});
