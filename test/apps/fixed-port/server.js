'use strict';

// Ignores PORT and listens on FIXED_PORT, standing in for an app with a
// hard-coded port (tests pass a free port so runs do not collide).
// The hot path is crypto.scryptSync: a different blocking crypto API.

const crypto = require('node:crypto');
const http = require('node:http');

const FIXED_PORT = Number(process.env.FIXED_PORT) || 4545;
const SALT = 'hotline-fixed-salt';

// Default scrypt cost (N=16384, r=8, p=1), 64-byte key: tens of ms per call.
function deriveKey(password) {
  return crypto.scryptSync(password, SALT, 64);
}

const server = http.createServer((req, res) => {
  const { pathname, searchParams } = new URL(req.url, 'http://localhost');
  if (req.method === 'GET' && pathname === '/scrypt') {
    const key = deriveKey(searchParams.get('password') || 'hunter2');
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ key: key.toString('hex') }));
  }
  if (req.method === 'GET' && pathname === '/ok') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    return res.end('ok');
  }
  res.writeHead(404, { 'content-type': 'text/plain' });
  res.end('not found\n');
});

server.on('error', (err) => {
  console.error(`fixed-port could not listen on port ${FIXED_PORT}: ${err.message}`);
  process.exit(1);
});

server.listen(FIXED_PORT, () => {
  console.log(`fixed-port listening on http://127.0.0.1:${FIXED_PORT}`);
});
