// A node:cluster app: the primary only forks; each of its 2 workers serves its requests with
// one handler that calls crypto.pbkdf2Sync on two lines, the first with twice the iterations
// (2:1 by construction). The callee is the same on both lines: only the calling line tells them
// apart, and only a stack capture in the worker sees it (V8's profile names no calling line).
const cluster = require('node:cluster');
const crypto = require('node:crypto');
const http = require('node:http');

function handle(req, res) {
  const strong = crypto.pbkdf2Sync('pw', 'salt', 20000, 64, 'sha512'); // truth own 2
  const weak = crypto.pbkdf2Sync('pw', 'salt', 10000, 64, 'sha512'); // truth own 1
  res.end(String(strong[0] ^ weak[0]));
}

if (cluster.isPrimary) {
  for (let i = 0; i < 2; i++) cluster.fork();
  cluster.on('exit', (w, code, signal) => console.error(`worker ${w.process.pid} ended (${signal ?? code})`));
} else {
  http.createServer(handle).listen(process.env.PORT);
}
