'use strict';
// Two HTTP servers in one process (an API and an admin port, say), on ports the OS picks: a
// path --url cannot say which to load, so attaching asks for a full URL.
const http = require('node:http');

const api = http.createServer((req, res) => res.end('api'));
const admin = http.createServer((req, res) => res.end('admin'));
api.listen(0, '127.0.0.1', () => {
  admin.listen(0, '127.0.0.1', () => {
    console.log(`two-ports listening on http://127.0.0.1:${api.address().port} and http://127.0.0.1:${admin.address().port}`);
  });
});
