// matchTicks (stack-sampler.ts): every tick finds the sample taken nearest to it, in the
// concatenation of the profiler's segments; ticks between segments (the profiler restarting) or
// outside them are dropped, not forced onto a neighbour.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StackSampler, matchTicks } from '../../../src/core/capture/stacks/stack-sampler.ts';
import type { CdpChannel } from '../../../src/core/inspector/index.ts';
import type { CpuProfile } from '../../../src/core/profile/index.ts';
import { waitFor } from '../../helpers/waits.ts';

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

test('ticks in a gap the thread did not run in (over 10 intervals from every sample) are dropped; near a sample they count', () => {
  // Samples every 1000 µs, but 50 000 µs between the 3rd (at 3000) and the 4th (at 53 000).
  const segments = [segment(0, [1000, 1000, 1000, 50000, 1000, 1000])];
  const raw = [
    { atUs: 2900, capture: 0 }, // before the gap → sample 2
    { atUs: 12500, capture: 1 }, // 9500 µs after sample 2 → kept
    { atUs: 20000, capture: 2 }, // deep in the gap → dropped
    { atUs: 30000, capture: 3 }, // deep in the gap → dropped
    { atUs: 43500, capture: 4 }, // 9500 µs before sample 3 → kept
    { atUs: 54100, capture: 5 }, // after the gap → sample 4
  ];
  const { ticks, unmatched } = matchTicks(raw, segments);
  assert.deepEqual(ticks, [
    [2, 0],
    [2, 1],
    [3, 4],
    [4, 5],
  ]);
  assert.equal(unmatched, 2);
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

test('every tick gets its own capture at once, also while earlier ones wait for their answer', async () => {
  // An app whose captures run at once but whose answers are held back until the test lets them
  // go. A sampler that waited for an answer before its next tick (a tick classified a round trip
  // late is biased against short calls) would send one capture and no more: 30 sent while none
  // was answered decides it by state, whatever the machine's speed.
  const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);
  const sentAt: number[] = [];
  const held: Array<() => void> = [];
  let holding = true;
  const channel: CdpChannel = {
    on: () => () => undefined,
    send: async (_method, params) => {
      const expression = (params as { expression: string }).expression;
      if (!expression.startsWith('globalThis[')) return { result: { value: undefined } };
      const ranUs = nowUs();
      sentAt.push(ranUs);
      if (holding) await new Promise<void>((r) => held.push(r));
      return { result: { value: `${ranUs}\n/app/server.js\u00016\u00013\u0001handle\n` } };
    },
  };
  const startUs = nowUs();
  const sampler = await StackSampler.start(channel, 500);
  await waitFor('30 captures sent while none was answered', () => sentAt.length >= 30);
  assert.equal(sampler.result([]).tickCount, 0, 'none answered yet');
  holding = false;
  for (const release of held.splice(0)) release();
  await sampler.stop();
  const endUs = nowUs();
  // One segment with a sample every 100 µs over the whole time.
  const count = Math.ceil((endUs - startUs) / 100) + 1;
  const captured = sampler.result([segment(startUs - 100, new Array<number>(count).fill(100))]);
  assert.ok(captured.ticks.length >= 30, `ticks: ${captured.ticks.length}`);
  assert.equal(captured.captures.length, sentAt.length, 'one capture per tick');
  assert.equal(captured.ticks.length, captured.captures.length);
  // Each capture ran after its own tick (never one tick's answer reused for a later tick).
  for (const [sample, capture] of captured.ticks) {
    const tickUs = startUs + sample * 100; // the matched sample's time, within 50 µs of the tick
    const ranUs = captured.timing[capture][1];
    assert.ok(tickUs - 50 <= ranUs, `a tick at ${tickUs} answered by a capture run at ${ranUs}, before it`);
  }
});

test('a capture that could not read the stack, or threw in the app, costs its tick only', async () => {
  // The app answers in turn: a capture, "unusable" (V8 was formatting another stack), an exception.
  const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);
  let n = 0;
  const channel: CdpChannel = {
    on: () => () => undefined,
    send: async (_method, params) => {
      const expression = (params as { expression: string }).expression;
      if (!expression.startsWith('globalThis[')) return { result: { value: undefined } };
      const k = n++ % 3;
      if (k === 1) return { result: { value: 'unusable' } };
      if (k === 2) return { exceptionDetails: { text: 'Uncaught', exception: { description: 'TypeError: boom' } } };
      return { result: { value: `${nowUs()}\n/app/server.js\u00016\u00013\u0001handle\n` } };
    },
  };
  const startUs = nowUs();
  const sampler = await StackSampler.start(channel, 500);
  await waitFor('9 captures sent', () => n >= 9);
  await sampler.stop();
  const count = Math.ceil((nowUs() - startUs) / 100) + 1;
  const captured = sampler.result([segment(startUs - 100, new Array<number>(count).fill(100))]);
  assert.equal(sampler.error, undefined, 'still capturing');
  assert.ok(n >= 9, `captures sent: ${n}`);
  assert.equal(captured.captures.length, Math.ceil(n / 3));
  assert.equal(captured.tickCount, n);
  assert.equal(captured.unusableTicks, n - captured.captures.length);
});
