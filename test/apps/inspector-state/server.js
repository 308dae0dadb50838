'use strict';
// Counts the requests it serves with its inspector open and closed, and logs each one (the case a
// closed inspector is for). With WORKER=1 a worker thread, started with the app, does each
// request's work (`crunch`). With CLUSTER=1 one node:cluster worker serves the requests (and
// writes its counts to $COUNTS_FILE.<pid> every 100 ms). With HANDLE_SIGUSR1=1 it handles
// SIGUSR1. On SIGTERM it writes the counts to $COUNTS_FILE and exits.
// It also counts the requests that found console.log swapped (Hotline's profiled sub-windows hand
// the console's methods to a copy the open inspector does not see), with the inspector open and
// closed, and those that found its own console.warn replaced (it must never be).
const http = require('node:http');
const inspector = require('node:inspector');
const fs = require('node:fs');
const cluster = require('node:cluster');
const { Worker, isMainThread, parentPort } = require('node:worker_threads');

function crunch() {
  let x = 0;
  for (let i = 0; i < 20000; i++) x += Math.sqrt(i);
  return x;
}

if (process.env.CLUSTER === '1' && cluster.isPrimary) {
  cluster.fork();
} else if (!isMainThread) {
  parentPort.on('message', (id) => parentPort.postMessage({ id, value: crunch() }));
} else {
  const counts = { open: 0, closed: 0, swappedOpen: 0, swappedClosed: 0, ownWarnTaken: 0 };
  const nodeLog = console.log;
  // A logger of the app's own, installed over Node's.
  const ownWarn = (...args) => process.stderr.write(`warning: ${args.join(' ')}\n`);
  console.warn = ownWarn;
  const worker = process.env.WORKER === '1' ? new Worker(__filename) : undefined;
  const waiting = new Map();
  let next = 0;
  worker?.on('message', ({ id, value }) => {
    waiting.get(id)(value);
    waiting.delete(id);
  });
  const work = (done) => {
    if (!worker) return done(crunch());
    const id = next++;
    waiting.set(id, done);
    worker.postMessage(id);
  };

  http
    .createServer((req, res) => {
      if (inspector.url()) counts.open++;
      else counts.closed++;
      if (console.log !== nodeLog) counts[inspector.url() ? 'swappedOpen' : 'swappedClosed']++;
      if (console.warn !== ownWarn) counts.ownWarnTaken++;
      console.log('GET', req.url);
      work((value) => res.end(String(value)));
    })
    .listen(process.env.PORT);

  // An app that uses SIGUSR1 for itself (a log-rotation signal, say): its inspector cannot be reopened.
  if (process.env.HANDLE_SIGUSR1 === '1') process.on('SIGUSR1', () => undefined);

  if (cluster.isWorker)
    setInterval(() => fs.writeFileSync(`${process.env.COUNTS_FILE}.${process.pid}`, JSON.stringify(counts)), 100);

  process.on('SIGTERM', () => {
    fs.writeFileSync(process.env.COUNTS_FILE, JSON.stringify(counts));
    process.exit(0);
  });
}
