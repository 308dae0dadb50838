'use strict';

// Ignores PORT on purpose and binds a random free port (0) on 127.0.0.1,
// like an app whose port a profiler cannot choose; it only logs it.

const http = require('node:http');
const { compressPayload } = require('./lib/compress');

const server = http.createServer((req, res) => {
  const { pathname } = new URL(req.url, 'http://localhost');
  if (req.method === 'GET' && pathname === '/compress') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify(compressPayload()));
  }
  if (req.method === 'GET' && pathname === '/ok') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    return res.end('ok');
  }
  res.writeHead(404, { 'content-type': 'text/plain' });
  res.end('not found\n');
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  console.log(`helper-module listening on http://127.0.0.1:${port}`);
});
