'use strict';
// An API that hands each request's work to one long-lived worker thread (a pool of one) and
// answers when the worker replies: the main thread only parses and forwards.
const http = require('node:http');
const { Worker } = require('node:worker_threads');

const worker = new Worker(
  `
  const { parentPort } = require('node:worker_threads');
  const data = Array.from({ length: 3000 }, (_, i) => ({ id: i, score: (i * 7919) % 1000 }));
  parentPort.on('message', ({ id, min }) => {
    const hits = data.filter((d) => d.score >= min).sort((a, b) => a.score - b.score || a.id - b.id);
    parentPort.postMessage({ id, total: hits.length, top: hits.slice(0, 10) });
  });
`,
  { eval: true, name: 'ranker' },
);

const waiting = new Map();
let nextId = 0;
worker.on('message', (m) => {
  const res = waiting.get(m.id);
  waiting.delete(m.id);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(m));
});

http
  .createServer((req, res) => {
    const id = nextId++;
    waiting.set(id, res);
    worker.postMessage({ id, min: Number(new URL(req.url, 'http://localhost').searchParams.get('min') || 100) });
  })
  .listen(Number(process.env.PORT) || 3000, '127.0.0.1');
