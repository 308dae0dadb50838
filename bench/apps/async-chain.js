'use strict';

// A promise-heavy handler with no threadpool work: each request awaits a chain of 20 small async
// functions. The worst case for an async_hooks hook (wait-cost.ts): every promise calls it.

const http = require('node:http');

async function step(n) {
  return n + 1;
}

async function chain() {
  let n = 0;
  for (let i = 0; i < 20; i++) n = await step(n);
  return n;
}

const server = http.createServer(async (req, res) => {
  const n = await chain();
  res.end(`${n}\n`);
});

server.listen(Number(process.env.PORT) || 3000, '127.0.0.1');
