// PoissonClock (capture/poisson-clock.ts): the moments captures are sent at come while running,
// never while paused or after the end, from its thread or from Node's timers (its fallback); a
// clock whose paused thread ended itself starts another when asked to run again. States only: how
// often it ticks is not tested.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PoissonClock, type PoissonClockOptions } from '../../src/core/capture/poisson-clock.ts';
import { waitFor } from '../helpers/waits.ts';

const pauseMs = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function runPauseRunEnd(opts: PoissonClockOptions): Promise<void> {
  let ticks = 0;
  const clock = new PoissonClock(1000, () => ticks++, opts);
  try {
    clock.run();
    await waitFor('20 ticks while running', () => ticks >= 20);
    clock.pause();
    // A moment posted just before the pause may still be on its way: let it arrive (and be dropped).
    await pauseMs(50);
    const paused = ticks;
    await pauseMs(200);
    assert.equal(ticks, paused, 'no tick while paused');
    clock.run();
    await waitFor('ticks again after run', () => ticks >= paused + 20);
  } finally {
    clock.end();
  }
  await pauseMs(50);
  const ended = ticks;
  await pauseMs(200);
  assert.equal(ticks, ended, 'no tick after the end');
}

test('its thread ticks while running, none while paused, again when run again, none after the end', () =>
  runPauseRunEnd({}));

test("with Node's timers only (its fallback when the thread cannot run): the same states", () =>
  runPauseRunEnd({ thread: false }));

test('a thread that ended itself after a long pause is replaced when the clock runs again', async () => {
  let ticks = 0;
  const clock = new PoissonClock(1000, () => ticks++, { idleEndMs: 20 });
  try {
    clock.run();
    await waitFor('ticks', () => ticks >= 5);
    clock.pause();
    // Long past the 20 ms a paused thread waits before it ends.
    await pauseMs(300);
    const before = ticks;
    clock.run();
    await waitFor('ticks from a new thread', () => ticks >= before + 20);
  } finally {
    clock.end();
  }
});
