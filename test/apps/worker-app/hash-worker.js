'use strict';

// One worker of the pool: a deliberately slow, synchronous hash of each job's input.

const { parentPort, workerData } = require('node:worker_threads');

function slowHash(input, rounds) {
  let h = 2166136261;
  for (let i = 0; i < rounds; i++) {
    h = Math.imul(h ^ input.charCodeAt(i % input.length), 16777619) >>> 0; // the hot line
  }
  return h.toString(16);
}

if (workerData && workerData.busyMs) {
  // A one-off worker: busy for a while, then its script ends and the thread exits.
  const end = Date.now() + workerData.busyMs;
  while (Date.now() < end) slowHash('one-off', 20000);
} else {
  parentPort.on('message', (job) => {
    parentPort.postMessage({ id: job.id, digest: slowHash(job.input, job.rounds) });
  });
}
