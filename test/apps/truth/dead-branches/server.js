// Branches that never run under the load call the same res.end as the hot branch.
const http = require('node:http');
const crypto = require('node:crypto');

http.createServer((req, res) => {
  if (req.url === '/health') {
    res.end('ok'); // truth none
    return;
  }
  if (req.url === '/') {
    const key = crypto.pbkdf2Sync('pw', 'salt', 5000, 64, 'sha512');
    res.end(key.toString('hex'));
    return;
  }
  res.statusCode = 404;
  res.end('not found'); // truth none
}).listen(process.env.PORT);
