'use strict';

// An HTTP server that hands each request's hot work to a pool of worker_threads: the main thread
// only queues jobs and answers, the CPU time is spent in hash-worker.js. Used by the integration
// tests of worker-thread profiling (test/integration/workers.test.ts). GET /spawn?ms=N starts one
// more worker that hashes for N ms and exits (a worker that joins and leaves mid-run).

const http = require('node:http');
const path = require('node:path');
const { Worker } = require('node:worker_threads');

const POOL_SIZE = Number(process.env.POOL_SIZE || 2);
const ROUNDS = Number(process.env.ROUNDS || 200000);

const idle = [];
const queue = [];
const callbacks = new Map();
let nextJob = 1;

for (let i = 0; i < POOL_SIZE; i++) {
  const worker = new Worker(path.join(__dirname, 'hash-worker.js'), { name: `hasher-${i + 1}` });
  worker.on('message', ({ id, digest }) => {
    const done = callbacks.get(id);
    callbacks.delete(id);
    done(digest);
    const next = queue.shift();
    if (next) worker.postMessage(next);
    else idle.push(worker);
  });
  worker.on('error', (err) => {
    console.error('worker failed:', err);
    process.exit(1);
  });
  idle.push(worker);
}

function runJob(input, done) {
  const job = { id: nextJob++, input, rounds: ROUNDS };
  callbacks.set(job.id, done);
  const worker = idle.pop();
  if (worker) worker.postMessage(job);
  else queue.push(job);
}

const server = http.createServer((req, res) => {
  const { pathname, searchParams } = new URL(req.url, 'http://localhost');
  if (pathname === '/hash') {
    return runJob(searchParams.get('text') || 'hotline', (digest) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ digest }));
    });
  }
  if (pathname === '/spawn') {
    // A short-lived worker outside the pool: hashes for `ms` milliseconds, then exits.
    const ms = Number(searchParams.get('ms') || 500);
    const oneOff = new Worker(path.join(__dirname, 'hash-worker.js'), { name: 'one-off', workerData: { busyMs: ms } });
    oneOff.on('exit', (code) => console.log(`one-off worker exited (${code})`));
    res.writeHead(202, { 'content-type': 'text/plain' });
    return res.end('started\n');
  }
  res.writeHead(404, { 'content-type': 'text/plain' });
  res.end('not found\n');
});

server.listen(Number(process.env.PORT || 3000), '127.0.0.1', () => {
  console.log(`worker-app listening on http://127.0.0.1:${server.address().port} with ${POOL_SIZE} workers`);
});
