'use strict';
// A small JSON API with a realistic cost per request (~0.5 ms of JavaScript): it filters, sorts
// and serialises a page of an in-memory catalogue. Plain node:http, no dependencies.
const http = require('node:http');

const PRODUCTS = Array.from({ length: 2000 }, (_, i) => ({
  id: i,
  name: `product-${i.toString(36)}`,
  price: ((i * 7919) % 10000) / 100,
  tags: ['a', 'b', 'c', 'd'].filter((_, k) => (i >> k) & 1),
  stock: (i * 31) % 97,
}));

function search(query) {
  const min = Number(query.get('min') || 10);
  const hits = PRODUCTS.filter((p) => p.price >= min && p.stock > 3);
  hits.sort((x, y) => x.price - y.price || x.id - y.id);
  const page = hits.slice(0, 50).map((p) => ({ ...p, label: `${p.name} (${p.price.toFixed(2)} €)` }));
  return { total: hits.length, page };
}

http
  .createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    const body = JSON.stringify(search(url.searchParams));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  })
  .listen(Number(process.env.PORT) || 3000, '127.0.0.1');
