// The timeline (src/core/analysis/time/timeline.ts): the heat map grid, the hot lines of a range and
// the profile cut to a range, on hand-made profiles whose samples follow a known pattern in time,
// and on a real captured profile (a range covering everything must rank lines as the report does).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { analyzeProfile, analyzeProfileWithTimeline } from '../../../../src/core/analysis/analyze.ts';
import { readCpuProfile, type CpuProfile } from '../../../../src/core/profile/cpuprofile.ts';
import { mergeProfiles } from '../../../../src/core/profile/merge.ts';
import {
  cutProfile,
  heatMap,
  rankRange,
  sampleStarts,
  timelineJson,
  timelineJsonFits,
  timelineSurelyTooLong,
  timelineJsonParts,
  type TimelineV1,
} from '../../../../src/core/analysis/time/timeline.ts';
import { loadFixture } from '../../../helpers/fixtures.ts';
import { buildProfile } from '../../../helpers/profiles.ts';

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

/**
 * A profile of `seconds` s sampled every ms: in each second, samples [busyFrom, busyTo) ms are in
 * `stall` (line 5 of app.js), a few others in `tick` (line 2), the rest idle.
 */
function patterned(seconds: number, busyFrom: number, busyTo: number, startTime = 5_000_000): CpuProfile {
  const url = pathToFileURL(APP).href;
  const frame = (id: number, functionName: string, line0: number, file = url) => ({
    id,
    callFrame: { functionName, scriptId: file ? '7' : '0', url: file, lineNumber: line0, columnNumber: file ? 0 : -1 },
  });
  const nodes = [
    { ...frame(1, '(root)', -1, ''), children: [2, 3, 4] },
    frame(2, '(idle)', -1, ''),
    { ...frame(3, 'stall', 3), positionTicks: [{ line: 5, ticks: 1 }] },
    { ...frame(4, 'tick', 0), positionTicks: [{ line: 2, ticks: 1 }] },
  ];
  const samples: number[] = [];
  for (let s = 0; s < seconds; s++) {
    for (let ms = 0; ms < 1000; ms++) samples.push(ms >= busyFrom && ms < busyTo ? 3 : ms % 100 === 50 ? 4 : 2);
  }
  const timeDeltas = samples.map(() => 1000);
  timeDeltas[0] = 0;
  return readCpuProfile({ nodes, startTime, endTime: startTime + samples.length * 1000, samples, timeDeltas });
}

function timelineOf(profile: CpuProfile): TimelineV1 {
  const { timeline } = analyzeProfileWithTimeline({ profile, root: ROOT, sources: new Map([[APP, APP_SOURCE]]) });
  assert.ok(timeline, 'a profile with samples has a timeline');
  return timeline;
}

describe('timeline', () => {
  test('the heat map puts a stall in the right sub-second rows of every second', () => {
    const t = timelineOf(patterned(3, 200, 500));
    assert.equal(t.sampleUs.length, 3000);
    assert.equal(t.endUs, 3_000_000);
    const map = heatMap(t, 50);
    assert.equal(map.columns, 3);
    assert.equal(map.rows, 50);
    assert.equal(map.rowMs, 20);
    for (let c = 0; c < 3; c++) {
      for (let r = 0; r < 50; r++) {
        const cell = c * 50 + r;
        assert.equal(map.samples[cell], 20, `cell ${c},${r} holds 20 samples`);
        const expected = r >= 10 && r < 25 ? 20 : (r * 20) % 100 === 40 ? 1 : 0; // tick at ms 50 of every 100 falls in rows 2, 7, 12, …
        if (r >= 10 && r < 25) assert.equal(map.nonIdle[cell], 20, `stall cell ${c},${r}`);
        else assert.ok(map.nonIdle[cell] <= 1, `cell ${c},${r}: ${map.nonIdle[cell]} (expected ${expected})`);
      }
    }
    assert.equal(map.maxNonIdle, 20);
  });

  test('rankRange: the stall line in a stall, the other line outside it, percentages of the range', () => {
    const t = timelineOf(patterned(3, 200, 500));
    const stall = rankRange(t, 1200, 1500);
    assert.equal(stall.samples, 300);
    assert.equal(stall.nonIdleMs, 300);
    assert.deepEqual(
      stall.lines.map((l) => [l.line, l.function, l.ownMs, l.ownPct]),
      [[5, 'stall', 300, 100]],
    );

    const quiet = rankRange(t, 1500, 2200);
    assert.equal(quiet.samples, 700);
    assert.deepEqual(
      quiet.lines.map((l) => [l.line, l.function, l.ownMs, l.ownPct]),
      [[2, 'tick', 7, 100]],
    );

    const empty = rankRange(t, 10_000, 11_000);
    assert.deepEqual([empty.samples, empty.nonIdleMs, empty.lines], [0, 0, []]);
  });

  test('a range covering the whole real profile ranks lines as the report does', () => {
    const f = loadFixture('login-api');
    const input = { profile: f.profile, root: f.root, sources: f.sources, sourceMaps: f.sourceMaps };
    const { analysis, timeline } = analyzeProfileWithTimeline(input);
    assert.deepEqual(analysis, analyzeProfile(input), 'the timeline does not change the analysis');
    assert.ok(timeline);
    const all = rankRange(timeline, 0, timeline.endUs / 1000 + 1, { limit: 10 });
    assert.equal(all.samples, analysis.samples);
    assert.ok(Math.abs(all.nonIdleMs - analysis.nonIdleMs) < 1, `non-idle ${all.nonIdleMs} vs ${analysis.nonIdleMs}`);
    const reportTop = analysis.lines.filter((l) => l.ownMs > 0).slice(0, 5);
    for (const [i, l] of reportTop.entries()) {
      const r = all.lines[i];
      assert.equal(`${r.file}:${r.line}`, `${l.file}:${l.line}`, `rank ${i}`);
      assert.ok(Math.abs(r.ownMs - l.ownMs) < 0.05, `${l.line}: ${r.ownMs} vs ${l.ownMs} ms`);
      assert.ok(Math.abs(r.ownPct - l.ownPct) < 0.05, `${l.line}: ${r.ownPct} vs ${l.ownPct} %`);
    }
  });

  test('cutProfile: a valid profile of just the range, its stacks only, the input unchanged', () => {
    const profile = patterned(3, 200, 500);
    const before = JSON.stringify(profile);
    const cut = readCpuProfile(cutProfile(profile, 1200, 1500));
    assert.equal(JSON.stringify(profile), before, 'the input is not changed');
    assert.equal(cut.samples?.length, 300);
    assert.equal(cut.endTime - cut.startTime, 300_000);
    assert.equal(cut.startTime, profile.startTime + 1_200_000);
    assert.deepEqual(
      cut.nodes.map((n) => n.callFrame.functionName),
      ['(root)', 'stall'],
      'only the stacks sampled in the range',
    );
    assert.equal(
      cut.nodes.reduce((s, n) => s + (n.hitCount ?? 0), 0),
      300,
    );
    assert.ok(
      cut.nodes.every((n) => n.positionTicks === undefined),
      'whole-profile line ticks are not carried over',
    );
    // The sample times are kept: the first one where the range starts, the rest 1 ms apart.
    assert.equal(cut.timeDeltas?.[0], 0);
    assert.ok(cut.timeDeltas?.slice(1).every((d) => d === 1000));
    const analysis = analyzeProfile({ profile: cut, root: ROOT, sources: new Map([[APP, APP_SOURCE]]) });
    assert.equal(analysis.durationMs, 300);
    assert.equal(analysis.categories.idle, 0);

    const wide = readCpuProfile(cutProfile(profile, 0, 1e9));
    assert.equal(wide.samples?.length, 3000);
    assert.ok(wide.endTime <= profile.endTime);
    const none = readCpuProfile(cutProfile(profile, 5000, 6000));
    assert.equal(none.samples?.length, 0);
  });

  test('cutProfile and rankRange take the same samples for the same range', () => {
    const profile = patterned(2, 100, 400);
    const t = timelineOf(profile);
    const starts = sampleStarts(t);
    for (const [a, b] of [
      [0, 1],
      [99.5, 400.2],
      [950, 1130],
      [1999, 2500],
    ]) {
      assert.equal(
        cutProfile(profile, a, b).samples?.length,
        rankRange(t, a, b, { starts }).samples,
        `range ${a}–${b} ms`,
      );
    }
  });

  test('a merged profile of segments is one continuous timeline', () => {
    const first = patterned(1, 200, 500, 1_000_000);
    const second = patterned(1, 200, 500, 2_000_000);
    const t = timelineOf(readCpuProfile(mergeProfiles([first, second])));
    const map = heatMap(t, 10);
    assert.equal(map.columns, 2);
    assert.deepEqual(
      Array.from(map.nonIdle)
        .map((n) => (n >= 90 ? '#' : '.'))
        .join(''),
      '..###.....' + '..###.....',
    );
  });

  test('timeline.json holds its typed columns as the plain arrays a reader parses', () => {
    const t = timelineOf(patterned(3, 200, 600));
    assert.ok(
      t.sampleKind instanceof Int32Array && t.sampleUs instanceof Int32Array,
      'the analysis builds typed columns',
    );
    const read = JSON.parse(timelineJson(t)) as TimelineV1;
    assert.deepEqual(read, { ...t, sampleUs: Array.from(t.sampleUs), sampleKind: Array.from(t.sampleKind) });
    assert.equal(timelineJson(read), JSON.stringify(read), 'plain arrays are written as JSON writes them');
  });

  test('timeline.json in parts: a long timeline is the same text, never one string; whether it fits a string is known without it', () => {
    // 2.5 M samples: three parts a column, with a negative value and values of every width.
    const count = 2_500_000;
    const sampleUs = new Int32Array(count);
    const sampleKind = new Int32Array(count);
    for (let s = 0; s < count; s++) {
      sampleUs[s] = (s * 7919) % 1_000_003;
      sampleKind[s] = s % 3;
    }
    sampleUs[5] = -2147483648;
    const t: TimelineV1 = {
      version: 1,
      firstUs: 3,
      endUs: 9,
      intervalUs: 1000,
      lines: [{ file: '/ws/a.js', line: 1, function: 'f' }],
      kinds: [
        { category: 'user', owners: [[0, 1]] },
        { category: 'idle', owners: [] },
        { category: 'gc', owners: [] },
      ],
      sampleUs,
      sampleKind,
    };
    const decoder = new TextDecoder();
    const parts = Array.from(timelineJsonParts(t), (p) => (typeof p === 'string' ? p : decoder.decode(p)));
    assert.ok(parts.length >= 8, `${parts.length} parts`);
    const text = parts.join('');
    assert.equal(text, JSON.stringify({ ...t, sampleUs: Array.from(sampleUs), sampleKind: Array.from(sampleKind) }));
    assert.equal(timelineJson(t), text);
    // Its length, found without the text: at the bound, the digits counted.
    assert.ok(timelineJsonFits(t, text.length) && !timelineJsonFits(t, text.length - 1));
    const plain = JSON.parse(timelineJson(timelineOf(patterned(3, 200, 600)))) as TimelineV1;
    const plainChars = JSON.stringify(plain).length;
    assert.ok(timelineJsonFits(plain, plainChars) && !timelineJsonFits(plain, plainChars - 1), 'plain arrays too');
  });

  test('an analysis that uses its samples up (consumeSamples, as analyzeFile does) gives the same analysis and timeline', () => {
    for (const name of ['login-api', 'ts-app-work'] as const) {
      const f = loadFixture(name);
      const typed = (): CpuProfile => ({
        ...f.profile,
        samples: Int32Array.from(f.profile.samples ?? []),
        timeDeltas: Int32Array.from(f.profile.timeDeltas ?? []),
      });
      const run = (profile: CpuProfile, consumeSamples: boolean): string => {
        const input = { profile, root: f.root, sources: f.sources, sourceMaps: f.sourceMaps, consumeSamples };
        const { analysis, timeline } = analyzeProfileWithTimeline(input);
        return `${JSON.stringify(analysis)}\n${timeline ? timelineJson(timeline) : ''}`;
      };
      const used = typed();
      assert.equal(run(used, true), run(typed(), false), name);
      assert.notDeepEqual(
        Array.from(used.samples!),
        Array.from(f.profile.samples!),
        'the samples were used up in place',
      );
    }
  });

  test('a timeline longer than the limit is left out with a note; one that fits is kept whole', () => {
    const f = loadFixture('login-api');
    const analyze = (maxChars: number): ReturnType<typeof analyzeProfileWithTimeline> =>
      analyzeProfileWithTimeline(
        {
          profile: {
            ...f.profile,
            samples: Int32Array.from(f.profile.samples ?? []),
            timeDeltas: Int32Array.from(f.profile.timeDeltas ?? []),
          },
          root: f.root,
          sources: f.sources,
          sourceMaps: f.sourceMaps,
          consumeSamples: true,
        },
        maxChars,
      );
    const whole = analyze(Infinity);
    const text = timelineJson(whole.timeline!);
    const noted = (a: ReturnType<typeof analyze>): boolean => a.analysis.notes.some((n) => n.startsWith('No heat map'));
    const fits = analyze(text.length);
    assert.equal(timelineJson(fits.timeline!), text);
    assert.ok(!noted(fits));
    // One character over: built, measured, left out. Far over: known from the durations alone.
    for (const max of [text.length - 1, 20]) {
      const over = analyze(max);
      assert.equal(over.timeline, undefined, `limit ${max}`);
      assert.ok(noted(over), `limit ${max}`);
      assert.deepEqual(over.analysis.lines, whole.analysis.lines);
    }
    // The early answer is a bound: never "too long" for a timeline that fits.
    const t = whole.timeline!;
    const durations = Int32Array.from(t.sampleUs);
    for (let max = text.length; max > 0; max -= 97)
      if (timelineSurelyTooLong(durations, max)) assert.ok(!timelineJsonFits(t, max), `limit ${max}`);
    assert.ok(!timelineSurelyTooLong(durations, text.length));
    assert.ok(timelineSurelyTooLong(durations, 20), 'it answers early for a limit far under');
  });

  test('hit counts only: no timeline (nothing says when a sample was taken)', () => {
    const raw = buildProfile([{ name: 'f', file: APP, line0: 0, self: 5 }], { hitCountsOnly: true });
    const { timeline } = analyzeProfileWithTimeline({ profile: readCpuProfile(raw), root: ROOT });
    assert.equal(timeline, undefined);
  });

  test('heatMap refuses a row count that does not divide a second', () => {
    const t = timelineOf(patterned(1, 0, 10));
    assert.throws(() => heatMap(t, 0), /rowsPerSecond/);
    assert.throws(() => heatMap(t, 2.5), /rowsPerSecond/);
  });
});
