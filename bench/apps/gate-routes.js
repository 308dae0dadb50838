'use strict';
// The per-route gate's app (bench/gate-routes.ts): five routes, each doing its own amount of work
// on a hot line of its own (a checksum over a buffer), loaded as a mix of equal weights.
// ORDERS_SCALE=1.1 makes only GET /orders/{n}'s hot line 10% costlier: the regression the gate
// must catch and name while the other four routes stay within noise.
const http = require('node:http');

const data = new Uint32Array(1024).map((_, i) => (i * 2654435761) >>> 0);
const ORDERS = Math.round(300_000 * Number(process.env.ORDERS_SCALE || 1));

function ordersSum(seed) {
  let h = seed | 0;
  for (let i = 0; i < ORDERS; i++) h = (Math.imul(h, 31) + data[i & 1023]) | 0; // the orders hot line
  return h >>> 0;
}

function usersSum(seed) {
  let h = seed | 0;
  for (let i = 0; i < 200_000; i++) h = (Math.imul(h, 17) + data[i & 1023]) | 0; // the users hot line
  return h >>> 0;
}

function searchSum(seed) {
  let h = seed | 0;
  for (let i = 0; i < 250_000; i++) h = (Math.imul(h, 13) ^ data[i & 1023]) | 0; // the search hot line
  return h >>> 0;
}

function reportSum(seed) {
  let h = seed | 0;
  for (let i = 0; i < 450_000; i++) h = (Math.imul(h, 7) + data[(i * 3) & 1023]) | 0; // the report hot line
  return h >>> 0;
}

function healthSum(seed) {
  let h = seed | 0;
  for (let i = 0; i < 20_000; i++) h = (h + data[i & 1023]) | 0; // the health hot line
  return h >>> 0;
}

const ROUTES = [
  [/^\/orders\/\d+$/, ordersSum],
  [/^\/users\/\d+$/, usersSum],
  [/^\/search$/, searchSum],
  [/^\/report$/, reportSum],
  [/^\/health$/, healthSum],
];

http
  .createServer((req, res) => {
    const path = req.url.split('?')[0];
    const hit = ROUTES.find(([re]) => re.test(path));
    if (!hit) {
      res.writeHead(404);
      res.end();
      return;
    }
    const body = JSON.stringify({ sum: hit[1](req.url.length) });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  })
  .listen(Number(process.env.PORT) || 3000, '127.0.0.1');
