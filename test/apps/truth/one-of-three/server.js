// Three same-named calls; only one runs.
const http = require('node:http');
const crypto = require('node:crypto');

const mode = process.env.HASH_MODE || 'a';

function derive(password) {
  if (mode === 'a') return crypto.pbkdf2Sync(password, 'salt', 10000, 64, 'sha512'); // truth own 1
  if (mode === 'b') return crypto.pbkdf2Sync(password, 'salt', 10000, 64, 'sha256'); // truth none
  return crypto.pbkdf2Sync(password, 'salt', 10000, 64, 'sha1'); // truth none
}

http.createServer((req, res) => res.end(derive('pw').toString('hex'))).listen(process.env.PORT);
