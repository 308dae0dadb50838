// Profiler segments → one profile: the tree is matched by call path, the timeline stays
// continuous, and the analysis of the merge is the analysis of the whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeProfiles } from '../../../src/core/profile/merge.ts';
import { readCpuProfile, type CpuProfile } from '../../../src/core/profile/cpuprofile.ts';
import { analyzeProfile } from '../../../src/core/analysis/analyze.ts';
import { loadFixture } from '../../helpers/fixtures.ts';

/** The same profile again, right after the first (a second segment of the same process). */
function later(p: CpuProfile): CpuProfile {
  const shift = p.endTime - p.startTime;
  return { ...p, startTime: p.startTime + shift, endTime: p.endTime + shift };
}

test('one segment is returned as it is', () => {
  const { profile } = loadFixture('login-api');
  assert.equal(mergeProfiles([profile]), profile);
});

test('two segments: a valid profile with every sample, one tree, the analysis of the whole', () => {
  const { profile, root, sources } = loadFixture('login-api');
  const before = JSON.stringify(profile);
  const merged = readCpuProfile(mergeProfiles([profile, later(profile)]));
  assert.equal(JSON.stringify(profile), before, 'inputs are not changed');
  assert.equal(merged.samples!.length, 2 * profile.samples!.length);
  assert.equal(merged.nodes.length, profile.nodes.length, 'the same call paths merge into the same nodes');
  const one = analyzeProfile({ profile, root, sources });
  const two = analyzeProfile({ profile: merged, root, sources });
  assert.equal(two.lines[0].file, one.lines[0].file);
  assert.equal(two.lines[0].line, one.lines[0].line);
  assert.ok(
    Math.abs(two.lines[0].ownPct - one.lines[0].ownPct) < 0.5,
    `${two.lines[0].ownPct} vs ${one.lines[0].ownPct}`,
  );
  assert.ok(
    Math.abs(two.durationMs - 2 * one.durationMs) < 0.01 * one.durationMs,
    `${two.durationMs} ≈ 2 × ${one.durationMs}`,
  );
  const hits = (p: CpuProfile): number => p.nodes.reduce((s, n) => s + (n.hitCount ?? 0), 0);
  assert.equal(hits(merged), 2 * hits(profile));
});

test('segments with different call paths keep both', () => {
  const a: CpuProfile = {
    startTime: 0,
    endTime: 3000,
    samples: [2, 2, 2],
    timeDeltas: [1000, 1000, 1000],
    nodes: [
      {
        id: 1,
        callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 },
        children: [2],
      },
      {
        id: 2,
        callFrame: { functionName: 'a', scriptId: '1', url: 'file:///x.js', lineNumber: 0, columnNumber: 10 },
        hitCount: 3,
        positionTicks: [{ line: 2, ticks: 3 }],
      },
    ],
  };
  const b: CpuProfile = {
    startTime: 5000,
    endTime: 7000,
    samples: [3, 7],
    timeDeltas: [1000, 1000],
    nodes: [
      {
        id: 1,
        callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 },
        children: [3, 7],
      },
      {
        id: 3,
        callFrame: { functionName: 'a', scriptId: '1', url: 'file:///x.js', lineNumber: 0, columnNumber: 10 },
        hitCount: 1,
        positionTicks: [{ line: 2, ticks: 1 }],
      },
      {
        id: 7,
        callFrame: { functionName: 'b', scriptId: '1', url: 'file:///x.js', lineNumber: 5, columnNumber: 10 },
        hitCount: 1,
      },
    ],
  };
  const m = readCpuProfile(mergeProfiles([a, b]));
  assert.equal(m.nodes.length, 3);
  const nodeA = m.nodes.find((n) => n.callFrame.functionName === 'a')!;
  assert.equal(nodeA.hitCount, 4);
  assert.deepEqual(nodeA.positionTicks, [{ line: 2, ticks: 4 }]);
  // The timeline: b's first sample comes one sampling step after a's last (the pause between
  // the segments was not sampled, so no function gets it).
  assert.deepEqual(m.timeDeltas, [1000, 1000, 1000, 1000, 1000]);
  assert.equal(m.startTime, 0);
  assert.equal(m.endTime, 7000);
});
