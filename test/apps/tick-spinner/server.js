// Runs process.nextTick callbacks all the time (one per loop turn, beside a promise reaction),
// and counts them in globalThis.ticks: a tick queue that stops draining shows as a count that
// stops growing. Used by test/integration/wait-probe-ticks.test.ts.
'use strict';
globalThis.ticks = 0;
function spin() {
  process.nextTick(() => {
    globalThis.ticks++;
  });
  Promise.resolve().then(() => {});
  setImmediate(spin);
}
spin();
// Never outlives its test by more than a minute.
setTimeout(() => process.exit(0), 60_000).unref();
setInterval(() => {}, 1000);
