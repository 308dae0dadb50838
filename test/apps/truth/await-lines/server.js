// An async handler: synchronous work before and after an await, 2:1.
const http = require('node:http');
const crypto = require('node:crypto');

async function handle() {
  const a = crypto.pbkdf2Sync('pw', 'salt', 20000, 64, 'sha512'); // truth own 2
  await new Promise((resolve) => setImmediate(resolve));
  const b = crypto.pbkdf2Sync('pw', 'salt', 10000, 64, 'sha512'); // truth own 1
  return a[0] ^ b[0];
}

http.createServer((req, res) => {
  handle().then((v) => res.end(String(v)));
}).listen(process.env.PORT);
