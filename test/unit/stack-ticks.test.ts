// matchTicks (stack-sampler.ts): every tick finds the sample taken nearest to it, in the
// concatenation of the profiler's segments; ticks between segments (the profiler restarting) or
// outside them are dropped, not forced onto a neighbour.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchTicks } from '../../src/core/capture/stack-sampler.ts';
import type { CpuProfile } from '../../src/core/analysis/index.ts';

const segment = (startTime: number, deltas: number[]): CpuProfile => ({
  nodes: [{ id: 1, callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 } }],
  startTime,
  endTime: startTime + deltas.reduce((a, b) => a + b, 0),
  samples: deltas.map(() => 1),
  timeDeltas: deltas,
});

test('the nearest sample, across two segments; ticks in the gap and after the end are dropped', () => {
  // Segment 1: samples at 1000, 2000, 3000. Segment 2 (after a restart): 10000, 11000.
  const segments = [segment(0, [1000, 1000, 1000]), segment(9000, [1000, 1000])];
  const raw = [
    { atUs: 1400, capture: 0 }, // nearest 1000 → sample 0
    { atUs: 1600, capture: 1 }, // nearest 2000 → sample 1
    { atUs: 3000, capture: 2 }, // exactly the last of segment 1 → sample 2
    { atUs: 6000, capture: 3 }, // between segments → dropped
    { atUs: 10600, capture: 4 }, // nearest 11000 → sample 4 (3 of segment 1 + 1)
    { atUs: 99000, capture: 5 }, // after the end → dropped
    { atUs: 500, capture: 6 }, // before the first sample → dropped
  ];
  const { ticks, unmatched } = matchTicks(raw, segments);
  assert.deepEqual(ticks, [
    [0, 0],
    [1, 1],
    [2, 2],
    [4, 4],
  ]);
  assert.equal(unmatched, 3);
});

test('ticks out of order are matched all the same', () => {
  const { ticks } = matchTicks(
    [
      { atUs: 2900, capture: 1 },
      { atUs: 1100, capture: 0 },
    ],
    [segment(0, [1000, 1000, 1000])],
  );
  assert.deepEqual(ticks, [
    [0, 0],
    [2, 1],
  ]);
});
