'use strict';

// An HTTP server whose requests allocate heavily in one known function (makeRows), to test
// allocation sampling (test/integration/workers.test.ts). The rest allocates little.

const http = require('node:http');

function makeRows(count) {
  const rows = [];
  for (let i = 0; i < count; i++) {
    rows.push({ id: i, name: `row-${i}-${Math.random()}`, tags: [i, i * 2, i * 3], payload: new Array(16).fill(i) });
  }
  return rows;
}

function summarise(rows) {
  let total = 0;
  for (const row of rows) total += row.tags[1] + row.payload.length;
  return total;
}

const server = http.createServer((req, res) => {
  const { pathname } = new URL(req.url, 'http://localhost');
  if (pathname === '/rows') {
    const total = summarise(makeRows(2000));
    res.writeHead(200, { 'content-type': 'text/plain' });
    return res.end(String(total));
  }
  res.writeHead(404, { 'content-type': 'text/plain' });
  res.end('not found\n');
});

server.listen(Number(process.env.PORT || 3000), '127.0.0.1', () => {
  console.log(`heap-app listening on http://127.0.0.1:${server.address().port}`);
});
