'use strict';
// CPU-heavy: ~5 ms of synchronous hashing per request, so the app is the limit, not the load.
const crypto = require('node:crypto');
const http = require('node:http');
http
  .createServer((req, res) => {
    const key = crypto.pbkdf2Sync('password', 'salt', 2000, 64, 'sha512');
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(key.toString('hex'));
  })
  .listen(Number(process.env.PORT) || 3000, '127.0.0.1');
