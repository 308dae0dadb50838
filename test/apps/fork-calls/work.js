// The forked child: one listener calls crypto.pbkdf2Sync on two lines, the first with twice the
// iterations (2:1). The callee is the same on both lines: only the calling line tells them apart.
const crypto = require('node:crypto');

function handle(m) {
  const strong = crypto.pbkdf2Sync('pw', 'salt', 20000, 64, 'sha512'); // truth own 2
  const weak = crypto.pbkdf2Sync('pw', 'salt', 10000, 64, 'sha512'); // truth own 1
  process.send({ id: m.id, value: strong[0] ^ weak[0] });
}

process.on('message', handle);
