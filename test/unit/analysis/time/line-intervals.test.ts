// The 95% intervals the analysis puts on lines and functions (src/core/analysis/time/line-intervals.ts)
// on hand-written profiles (test/helpers/profiles.ts): the same shares get a wide interval when
// each function's samples come in one long run and the binomial width when they alternate; a split
// decided by stack captures is as precise as its captures, not as its samples.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProfile } from '../../../../src/core/analysis/analyze.ts';
import { readCpuProfile } from '../../../../src/core/profile/cpuprofile.ts';
import { binomialHalfWidth } from '../../../../src/core/analysis/time/share-interval.ts';
import type { StackCapturesInput } from '../../../../src/core/analysis/attribution/stacks.ts';
import type { Analysis } from '../../../../src/core/analysis/model.ts';
import { buildProfile, type FrameSpec } from '../../../helpers/profiles.ts';

const ROOT = '/ws';
const APP = `${ROOT}/app.js`;
const SOURCE = ['function a() {', '  for (;;) {}', '}', 'function b() {', '  for (;;) {}', '}', ''].join('\n');
const col = SOURCE.indexOf('(');

const frames = (selfA: number, selfB: number): FrameSpec[] => [
  { name: 'a', file: APP, line0: 0, col0: col, self: selfA, ticks: [[2, selfA]] },
  { name: 'b', file: APP, line0: 3, col0: col, self: selfB, ticks: [[5, selfB]] },
];

const analyze = (interleave: boolean, stacks?: StackCapturesInput, top = frames(400, 400)): Analysis =>
  analyzeProfile({
    profile: readCpuProfile(buildProfile(top, { interleave })),
    root: ROOT,
    sources: new Map([[APP, SOURCE]]),
    stacks,
  });

const lineAt = (a: Analysis, n: number) => a.lines.find((l) => l.file === APP && l.line === n)!;

test('the same 50/50 split: wide when each function ran in one long run, binomial when they alternated', () => {
  const runs = analyze(false);
  const alternating = analyze(true);
  assert.equal(lineAt(runs, 2).ownPct, 50);
  assert.equal(lineAt(alternating, 2).ownPct, 50);
  const binomial = 100 * binomialHalfWidth(0.5, 800);
  const wide = lineAt(runs, 2).ownPctPm!;
  const narrow = lineAt(alternating, 2).ownPctPm!;
  assert.ok(Math.abs(narrow - binomial) < 0.02, `alternating ±${narrow}, binomial ±${binomial.toFixed(2)}`);
  assert.ok(wide > 5 * narrow, `in runs ±${wide}, alternating ±${narrow}`);
  // Functions carry theirs too, the same figures for the same samples.
  const fnA = runs.functions.find((f) => f.name === 'a')!;
  assert.equal(fnA.selfPctPm, wide);
});

test('a call split between two calling lines by captures: as precise as the captures', () => {
  // handler calls a native function from lines 2 and 3; 600 samples in the native callee.
  const src = ['function handler() {', '  run(1);', '  run(2);', '}', ''].join('\n');
  const top: FrameSpec[] = [
    {
      name: 'handler',
      file: APP,
      line0: 0,
      col0: src.indexOf('('),
      children: [
        {
          name: 'run',
          self: 600,
          ticks: [
            [2, 300],
            [3, 300],
          ],
        },
      ],
    },
  ];
  const profile = readCpuProfile(buildProfile(top));
  const frame = (line: number) => ({ url: APP, line, column: 3, functionName: 'handler' });
  const withCaptures = (count: number, lineOf: (i: number) => number): StackCapturesInput => ({
    frames: [frame(2), frame(3)],
    captures: [[0], [1]],
    ticks: Array.from({ length: count }, (_, i) => [Math.floor((i * 600) / count), lineOf(i) === 2 ? 0 : 1] as const),
  });
  const run = (stacks: StackCapturesInput) =>
    analyzeProfile({ profile: structuredClone(profile), root: ROOT, sources: new Map([[APP, src]]), stacks });
  // 2:1 by the captures, the first two thirds of the window on line 2 (one long run each).
  const few = run(withCaptures(30, (i) => (i < 20 ? 2 : 3)));
  const many = run(withCaptures(300, (i) => (i < 200 ? 2 : 3)));
  assert.ok(Math.abs(lineAt(few, 2).ownPct - 66.67) < 0.1);
  assert.ok(Math.abs(lineAt(many, 2).ownPct - 66.67) < 0.1);
  const pmFew = lineAt(few, 2).ownPctPm!;
  const pmMany = lineAt(many, 2).ownPctPm!;
  // Counting the samples alone would say ±3.8 (600 samples): the captures in runs say far more.
  assert.ok(pmFew > 100 * binomialHalfWidth(2 / 3, 600) * 3, `30 captures ±${pmFew}`);
  assert.ok(pmMany >= 100 * binomialHalfWidth(2 / 3, 600), `300 captures ±${pmMany}`);
  // The same pattern either way (one run per line): more captures do not make runs independent.
  assert.ok(Math.abs(pmFew - pmMany) / pmMany < 0.2, `±${pmFew} vs ±${pmMany}`);
});
