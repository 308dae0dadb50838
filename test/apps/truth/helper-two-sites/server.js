// One helper called from two lines with different arguments: the calling lines' totals are 2:1.
const http = require('node:http');
const crypto = require('node:crypto');

function hash(iterations) {
  return crypto.pbkdf2Sync('pw', 'salt', iterations, 64, 'sha512');
}

function handle() {
  const a = hash(20000); // truth total 2
  const b = hash(10000); // truth total 1
  return a[0] ^ b[0];
}

http.createServer((req, res) => res.end(String(handle()))).listen(process.env.PORT);
