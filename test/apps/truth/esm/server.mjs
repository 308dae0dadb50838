// ES modules: imports, top-level await of nothing special, the two-calls shape.
import http from 'node:http';
import { pbkdf2Sync } from 'node:crypto';

export function check(password) {
  const strong = pbkdf2Sync(password, 'salt', 20000, 64, 'sha512'); // truth own 2
  const weak = pbkdf2Sync(password, 'salt', 10000, 64, 'sha512'); // truth own 1
  return strong[0] ^ weak[0];
}

http.createServer((req, res) => res.end(String(check('pw')))).listen(process.env.PORT);
