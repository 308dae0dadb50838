'use strict';
// Serves a few ms of CPU per request on PORT, then dies EXIT_AFTER_MS after its first request
// (or, with EXIT_ON_SIGNAL=SIGUSR2, when it gets that signal: a test then picks the moment by the
// run's phase), the way EXIT_HOW says: `exit` (process.exit(1)), `throw` (an uncaught exception)
// or `kill` (SIGKILL to itself: nothing runs after it, as with the OOM killer).
const http = require('node:http');
const crypto = require('node:crypto');

const port = Number(process.env.PORT) || 3000;
const exitAfterMs = Number(process.env.EXIT_AFTER_MS) || 2000;
const how = process.env.EXIT_HOW || 'exit';
const exitOnSignal = process.env.EXIT_ON_SIGNAL;
let armed = Boolean(exitOnSignal);
if (exitOnSignal) process.on(exitOnSignal, die);

function hash(password) {
  return crypto.pbkdf2Sync(password, 'salt', 2000, 32, 'sha256');
}

function die() {
  console.error(`exits-later: dying (${how}) ${exitOnSignal ? `on ${exitOnSignal}` : `${exitAfterMs} ms after the first request`}`);
  if (how === 'throw') throw new Error('exits-later: uncaught on purpose');
  if (how === 'kill') process.kill(process.pid, 'SIGKILL');
  process.exit(1);
}

http.createServer((req, res) => {
  if (!armed) {
    armed = true;
    setTimeout(die, exitAfterMs);
  }
  res.end(hash('password'));
}).listen(port, '127.0.0.1', () => {
  console.log(`exits-later listening on http://127.0.0.1:${port} (pid ${process.pid})`);
});
