// One function, two calls of the same API with 2:1 work.
const http = require('node:http');
const crypto = require('node:crypto');

function check(password) {
  const strong = crypto.pbkdf2Sync(password, 'salt', 20000, 64, 'sha512'); // truth own 2
  const weak = crypto.pbkdf2Sync(password, 'salt', 10000, 64, 'sha512'); // truth own 1
  return strong[0] ^ weak[0];
}

http.createServer((req, res) => res.end(String(check('pw')))).listen(process.env.PORT);
