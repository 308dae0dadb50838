// The same callback passed to map on two lines, over 2:1 elements.
const http = require('node:http');
const crypto = require('node:crypto');

const digest = (n) => crypto.pbkdf2Sync(String(n), 'salt', 2000, 32, 'sha512')[0];
const many = Array.from({ length: 10 }, (_, i) => i);
const few = Array.from({ length: 5 }, (_, i) => i);

function handle() {
  const a = many.map((n) => digest(n)); // truth total 2
  const b = few.map((n) => digest(n)); // truth total 1
  return a.length + b.length;
}

http.createServer((req, res) => res.end(String(handle()))).listen(process.env.PORT);
