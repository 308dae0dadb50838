// A getter does the work: the lines that read the property own it, 2:1.
const http = require('node:http');
const crypto = require('node:crypto');

class Vault {
  constructor(iterations) {
    this.iterations = iterations;
  }

  get fingerprint() {
    return crypto.pbkdf2Sync('secret', 'salt', this.iterations, 32, 'sha512').toString('hex');
  }
}

const big = new Vault(20000);
const small = new Vault(10000);

http.createServer((req, res) => {
  const a = big.fingerprint; // truth total 2
  const b = small.fingerprint; // truth total 1
  res.end(a.slice(0, 4) + b.slice(0, 4));
}).listen(process.env.PORT);
