'use strict';
// Hello world: as little work per request as node:http allows, so the load generator is the limit.
const http = require('node:http');
http
  .createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('hello\n');
  })
  .listen(Number(process.env.PORT) || 3000, '127.0.0.1');
