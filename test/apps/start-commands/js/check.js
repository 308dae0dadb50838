// Two calls of one blocking API with 2:1 work, on their own lines.
const crypto = require('node:crypto');

function check(password) {
  const strong = crypto.pbkdf2Sync(password, 'salt', 20000, 64, 'sha512'); // truth own 2
  const weak = crypto.pbkdf2Sync(password, 'salt', 10000, 64, 'sha512'); // truth own 1
  return strong[0] ^ weak[0];
}

module.exports = { check };
