// The loop probe's per-sub-window delay (inspector/loop-probe.ts): the closing edge carries the
// p99 of the 10 ms timer's interval over the sub-window it closed, and `between` hands it on to
// the sub-window's figures. The probe's own code, evaluated in this process as the inspector
// evaluates it in the app.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { between, edge, startLoopProbe, stopLoopProbe } from '../../../src/core/inspector/loop-probe.ts';

// The probe's expressions are self-contained JavaScript, as sent to the app's Runtime.evaluate.
const evaluate = async (expression: string): Promise<unknown> => (0, eval)(expression);

test('a closed sub-window carries its timer interval p99 (about the 10 ms period or more); an opening edge none', async () => {
  await startLoopProbe(evaluate);
  try {
    const open = await edge(evaluate, { open: 'measured' });
    assert.equal(open.closedLoopIntervalP99Ms, undefined);
    // The state to wait for: the monitor recorded a timer interval (bounded: 5 s).
    const probe = (globalThis as Record<symbol, { current?: { count: number } }>)[Symbol.for('hotline.probe')];
    const deadline = Date.now() + 5000;
    while ((probe.current?.count ?? 0) < 3) {
      assert.ok(Date.now() < deadline, 'the loop monitor recorded no interval within 5 s');
      await new Promise((resolve) => setImmediate(resolve));
    }
    const close = await edge(evaluate, { close: 'measured' });
    // About the 10 ms period or more; a hair under it happens: libuv keeps its timers on a clock of
    // whole milliseconds, so an interval read on the monotonic clock can be 9.99 ms (seen in CI).
    assert.ok(close.closedLoopIntervalP99Ms! >= 9, String(close.closedLoopIntervalP99Ms));
    assert.equal(between(open, close).loopIntervalP99Ms, close.closedLoopIntervalP99Ms);
    assert.equal('loopIntervalP99Ms' in between(close, open), false);
  } finally {
    await stopLoopProbe(evaluate);
  }
});
