'use strict';

// Every request awaits one crypto.pbkdf2 (libuv's threadpool, not the main thread) on the line
// marked `WAIT LINE`. With more connections than UV_THREADPOOL_SIZE threads, requests queue for a
// thread there: at 32 connections, UV_THREADPOOL_SIZE=2 queues most of each wait, 16 far less.
// GET /slow instead awaits a downstream HTTP call that answers after DOWNSTREAM_MS (a timer in
// this same process stands in for the other service): `http.get` on the line marked `GET LINE`
// (awaited on `DOWNSTREAM LINE`). GET /fetch awaits the same call made with fetch (`FETCH LINE`).

const crypto = require('node:crypto');
const http = require('node:http');
const { promisify } = require('node:util');

const pbkdf2 = promisify(crypto.pbkdf2);
const ITERATIONS = Number(process.env.ITERATIONS) || 20000;
const DOWNSTREAM_MS = Number(process.env.DOWNSTREAM_MS) || 50;

async function hashPassword(password) {
  const hash = await pbkdf2(password, 'hotline-salt', ITERATIONS, 64, 'sha512'); // WAIT LINE
  return hash.toString('hex');
}

function fetchDownstream(port) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/downstream' }, (res) => { // GET LINE
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
  });
}

const server = http.createServer(async (req, res) => {
  if (req.url === '/downstream') {
    setTimeout(() => res.end('ok\n'), DOWNSTREAM_MS);
    return;
  }
  if (req.url === '/slow') {
    const status = await fetchDownstream(server.address().port); // DOWNSTREAM LINE
    res.end(`downstream ${status}\n`);
    return;
  }
  if (req.url === '/fetch') {
    const down = await fetch(`http://127.0.0.1:${server.address().port}/downstream`); // FETCH LINE
    res.end(`downstream ${down.status} ${await down.text()}`);
    return;
  }
  const hash = await hashPassword('correct horse');
  res.end(`${hash.slice(0, 8)}\n`);
});

server.listen(Number(process.env.PORT) || 3000, '127.0.0.1', () => {
  console.log(`threadpool listening on http://127.0.0.1:${server.address().port}`);
});
