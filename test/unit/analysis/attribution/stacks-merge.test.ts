// mergeStackCaptures (analysis/attribution/stacks-merge.ts): the captures of several child processes, laid over
// the merge of their profiles (mergeProfiles), must point at the same stacks as they did in each
// child's own profile, and give each calling line what the children's own analyses give it
// together. Known answers on hand-written profiles (1 ms a sample).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProfile } from '../../../../src/core/analysis/analyze.ts';
import { readCpuProfile, type CpuProfile } from '../../../../src/core/profile/cpuprofile.ts';
import { mergeProfiles } from '../../../../src/core/profile/merge.ts';
import { buildProfileTree } from '../../../../src/core/profile/profile-tree.ts';
import type { StackCapturesInput } from '../../../../src/core/analysis/attribution/stacks.ts';
import { mergeStackCaptures } from '../../../../src/core/analysis/attribution/stacks-merge.ts';
import { buildProfile, type FrameSpec } from '../../../helpers/profiles.ts';

const ROOT = '/ws';
const APP = `${ROOT}/app.js`;
const LIB = `${ROOT}/node_modules/lib/index.js`;
// One callee called on two lines: only captures can tell them apart.
const SRC = ["const lib = require('lib');", 'function run(a) {', '  lib.work(a);', '  lib.work(a);', '}', ''].join(
  '\n',
);
const run = (workMs: number): FrameSpec => ({
  name: 'run',
  file: APP,
  line0: 1,
  col0: SRC.split('\n')[1].indexOf('('),
  children: [{ name: 'work', file: LIB, line0: 0, col0: 10, self: workMs }],
});
const workFrame = { url: LIB, line: 1, column: 12, functionName: 'work' };
const runAt = (line: number) => ({ url: APP, line, column: 3, functionName: 'run' });

/** Ticks on samples from..from+count-1: `atLine3` of them saw line 3, the rest line 4. */
function ticksOn(from: number, count: number, atLine3: number): StackCapturesInput {
  return {
    frames: [workFrame, runAt(3), runAt(4)],
    captures: [
      [0, 1],
      [0, 2],
    ],
    ticks: Array.from({ length: count }, (_, i) => [from + i, i < atLine3 ? 0 : 1] as [number, number]),
  };
}

// Child A: 10 ms in work(), 3:1 for line 3 (alone: 7.5 / 2.5 ms). Child B: 5 ms of (program)
// first (its tree and its sample order differ from A's), then 20 ms in work(), 1:3 (5 / 15 ms).
// Ticks come at one rate in every child, so B has twice A's.
const a = { profile: readCpuProfile(buildProfile([run(10)])), stacks: ticksOn(0, 4, 3) };
// B's profile starts after A's ends, so that the merge's timeline gives A's last sample its full
// millisecond (mergeProfiles places a profile's first sample one step after the previous one's last).
const later = (p: CpuProfile, us: number): CpuProfile => ({
  ...p,
  startTime: p.startTime + us,
  endTime: p.endTime + us,
});
const b = {
  profile: later(readCpuProfile(buildProfile([{ name: '(program)', self: 5 }, run(20)], { firstDeltaUs: 1000 })), 1e6),
  stacks: ticksOn(5, 8, 2),
};

const analyze = (profile: CpuProfile, stacks: StackCapturesInput | undefined) =>
  analyzeProfile({ profile, root: ROOT, sources: new Map([[APP, SRC]]), stacks });
const ownOf = (an: ReturnType<typeof analyze>, line: number): number | undefined =>
  an.lines.find((l) => l.file === APP && l.line === line && l.oneOf === undefined)?.ownMs;
/** The functions on a sample's stack, innermost first. */
function stackOf(profile: CpuProfile, sample: number): string[] {
  const tree = buildProfileTree(profile);
  const names: string[] = [];
  for (let n = tree.sampleNode[sample]; n >= 0; n = tree.parent[n])
    names.push(tree.frames[tree.nodeFrame[n]].functionName);
  return names;
}

test('each tick points at the same stack in the merged profile as in its own; frames shared, captures renumbered', () => {
  const parts = [a, b].map((c) => ({ stacks: c.stacks, sampleCount: c.profile.samples!.length }));
  const merged = mergeStackCaptures(parts)!;
  const profile = mergeProfiles([a.profile, b.profile]);
  assert.equal(merged.ticks.length, a.stacks.ticks.length + b.stacks.ticks.length);
  assert.equal(merged.frames.length, 3, 'the same frames in both children are one');
  let k = 0;
  for (const c of [a, b])
    for (const [sample, capture] of c.stacks.ticks) {
      const [mSample, mCapture] = merged.ticks[k++];
      assert.deepEqual(stackOf(profile, mSample), stackOf(c.profile, sample));
      assert.deepEqual(
        merged.captures[mCapture].map((f) => merged.frames[f]),
        c.stacks.captures[capture].map((f) => c.stacks.frames[f]),
      );
    }
});

test('the children analysed together give each calling line the sum of their own analyses', () => {
  const alone = [a, b].map((c) => analyze(c.profile, c.stacks));
  assert.deepEqual([ownOf(alone[0], 3), ownOf(alone[0], 4)], [7.5, 2.5]);
  assert.deepEqual([ownOf(alone[1], 3), ownOf(alone[1], 4)], [5, 15]);
  const together = analyze(
    mergeProfiles([a.profile, b.profile]),
    mergeStackCaptures([a, b].map((c) => ({ stacks: c.stacks, sampleCount: c.profile.samples!.length }))),
  );
  assert.equal(ownOf(together, 3), 12.5);
  assert.equal(ownOf(together, 4), 17.5);
  assert.ok(!together.lines.some((l) => l.oneOf), 'nothing left as "one of"');
});

test('a child without captures still moves the ticks of the children after it; none at all: no input', () => {
  const parts = [
    { sampleCount: b.profile.samples!.length },
    { stacks: a.stacks, sampleCount: a.profile.samples!.length },
  ];
  const merged = mergeStackCaptures(parts)!;
  const profile = mergeProfiles([b.profile, a.profile]);
  merged.ticks.forEach(([sample], i) =>
    assert.deepEqual(stackOf(profile, sample), stackOf(a.profile, a.stacks.ticks[i][0])),
  );
  assert.deepEqual(
    merged.ticks.map(([s]) => s),
    a.stacks.ticks.map(([s]) => s + b.profile.samples!.length),
  );
  assert.equal(mergeStackCaptures([{ sampleCount: 10 }, { sampleCount: 5 }]), undefined);
});
