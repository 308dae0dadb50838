// Methods of a class, each with its own call of the same API.
const http = require('node:http');
const crypto = require('node:crypto');

class Hasher {
  strong(password) {
    return crypto.pbkdf2Sync(password, 'salt', 20000, 64, 'sha512'); // truth own 2
  }

  weak(password) {
    return crypto.pbkdf2Sync(password, 'salt', 10000, 64, 'sha512'); // truth own 1
  }
}

const hasher = new Hasher();
http.createServer((req, res) => res.end(String(hasher.strong('pw')[0] ^ hasher.weak('pw')[0]))).listen(process.env.PORT);
