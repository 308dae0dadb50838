'use strict';
// One request to libuv's threadpool on a marked line, in plain JavaScript (no transform: the
// calling line V8 reports is this line). For test/unit/in-app/scripts.test.ts.
const crypto = require('node:crypto');

function hashOnce() {
  return new Promise((resolve, reject) => {
    crypto.pbkdf2('x', 'salt', 20000, 32, 'sha256', (err) => (err ? reject(err) : resolve())); // POOL LINE
  });
}

module.exports = { hashOnce };
