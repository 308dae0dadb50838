'use strict';
// The JSON API of json-api.js that also writes one access-log line per request with console.log,
// as many small services do: the case where an inspector domain that intercepts console calls
// (Runtime) would change the app's speed.
const http = require('node:http');

const PRODUCTS = Array.from({ length: 2000 }, (_, i) => ({
  id: i,
  name: `product-${i.toString(36)}`,
  price: ((i * 7919) % 10000) / 100,
  stock: (i * 31) % 97,
}));

function search(query) {
  const min = Number(query.get('min') || 10);
  const hits = PRODUCTS.filter((p) => p.price >= min && p.stock > 3);
  hits.sort((x, y) => x.price - y.price || x.id - y.id);
  return { total: hits.length, page: hits.slice(0, 20) };
}

http
  .createServer((req, res) => {
    const started = process.hrtime.bigint();
    const url = new URL(req.url, 'http://localhost');
    const body = JSON.stringify(search(url.searchParams));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
    console.log(
      `${new Date().toISOString()} ${req.method} ${req.url} 200 ${body.length}b ${Number(process.hrtime.bigint() - started) / 1e3}us`,
      { ua: req.headers['user-agent'] ?? '' },
    );
  })
  .listen(Number(process.env.PORT) || 3000, '127.0.0.1');
