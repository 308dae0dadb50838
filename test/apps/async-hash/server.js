'use strict';

// An async request handler that hashes with crypto.pbkdf2Sync: the blocking call sits in an
// async function, so the fix is mechanical (await the promisified pbkdf2) and Hotline offers it
// as an edit. Used by test/e2e/ux.e2e.test.ts: run, fix through the quick fix, run again.

const crypto = require('node:crypto');
const http = require('node:http');

const SALT = 'hotline-e2e-salt';

async function verify(password) {
  const hash = crypto.pbkdf2Sync(password, SALT, 20000, 64, 'sha512');
  return hash.length === 64;
}

const server = http.createServer(async (req, res) => {
  const ok = await verify('correct horse');
  res.writeHead(ok ? 200 : 401, { 'content-type': 'text/plain' });
  res.end(ok ? 'ok\n' : 'no\n');
});

server.listen(Number(process.env.PORT) || 3000, '127.0.0.1');
