'use strict';
// Serves a few ms of CPU per request on PORT, then crashes (exit code 1) after CRASH_AFTER
// requests (default 400): under a short profiling run that is after the warm-up has begun.
const http = require('node:http');
const crypto = require('node:crypto');

const port = Number(process.env.PORT) || 3000;
const crashAfter = Number(process.env.CRASH_AFTER) || 400;
let served = 0;

http.createServer((req, res) => {
  served++;
  if (served >= crashAfter) {
    console.error(`crash-mid-run: crashing after ${served} requests`);
    process.exit(1);
  }
  res.end(crypto.pbkdf2Sync('password', 'salt', 2000, 32, 'sha256'));
}).listen(port, '127.0.0.1', () => {
  console.log(`crash-mid-run listening on http://127.0.0.1:${port}`);
});
