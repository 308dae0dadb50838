'use strict';

// One worker of the pool: a deliberately slow, synchronous hash of each job's input.

const { parentPort } = require('node:worker_threads');

function slowHash(input, rounds) {
  let h = 2166136261;
  for (let i = 0; i < rounds; i++) {
    h = Math.imul(h ^ input.charCodeAt(i % input.length), 16777619) >>> 0; // the hot line
  }
  return h.toString(16);
}

parentPort.on('message', (job) => {
  parentPort.postMessage({ id: job.id, digest: slowHash(job.input, job.rounds) });
});
