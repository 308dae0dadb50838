'use strict';
// A mix of three routes with known costs (test/integration/routes.test.ts): GET /heavy does three
// units of CPU, GET /light/:id one, GET /wait awaits a 20 ms timer (a downstream's answer) and
// then does a tenth of a unit. A unit is UNIT steps of the same int32 loop; each route's loop is
// on a line of its own, marked.
const http = require('node:http');

const UNIT = Number(process.env.UNIT) || 3000000;

function heavy() {
  let x = 1;
  for (let i = 0; i < 3 * UNIT; i++) x = (Math.imul(x, 1103515245) + 12345) | 0; // HEAVY LINE
  return x;
}

function light(id) {
  let x = id;
  for (let i = 0; i < UNIT; i++) x = (Math.imul(x, 1103515245) + 12345) | 0; // LIGHT LINE
  return x;
}

async function waited() {
  await new Promise((resolve) => setTimeout(resolve, 20));
  let x = 1;
  for (let i = 0; i < UNIT / 10; i++) x = (Math.imul(x, 1103515245) + 12345) | 0; // WAIT LINE
  return x;
}

const server = http.createServer((req, res) => {
  const url = req.url || '/';
  if (url === '/heavy') return res.end(String(heavy()));
  const m = /^\/light\/(\d+)$/.exec(url);
  if (m) return res.end(String(light(Number(m[1]))));
  if (url === '/wait') {
    waited().then((x) => res.end(String(x)));
    return;
  }
  res.statusCode = 404;
  res.end('not found');
});

server.listen(Number(process.env.PORT) || 3000, '127.0.0.1', () => {
  console.log(`routes-mix listening on ${server.address().port}`);
});
