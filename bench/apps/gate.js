'use strict';
// The gate's app: one hot line does nearly all of a request's work (a checksum over a buffer),
// so a regression of that line is a regression of the request. HOT_SCALE=1.1 makes the hot
// line 10% costlier (10% more iterations), the regression bench/gate.ts must catch.
const http = require('node:http');

const ITERATIONS = Math.round(600_000 * Number(process.env.HOT_SCALE || 1));
const data = new Uint32Array(1024).map((_, i) => (i * 2654435761) >>> 0);

function checksum(seed) {
  let h = seed | 0;
  for (let i = 0; i < ITERATIONS; i++) h = (Math.imul(h, 31) + data[i & 1023]) | 0; // the hot line
  return h >>> 0;
}

http
  .createServer((req, res) => {
    const body = JSON.stringify({ checksum: checksum(req.url.length) });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  })
  .listen(Number(process.env.PORT) || 3000, '127.0.0.1');
