'use strict';
// Counts the requests it serves with its inspector open and closed, and logs each one (the case a
// closed inspector is for). With HANDLE_SIGUSR1=1 it handles SIGUSR1. On SIGTERM it writes the counts to $COUNTS_FILE and exits.
const http = require('node:http');
const inspector = require('node:inspector');
const fs = require('node:fs');

const counts = { open: 0, closed: 0 };

function work() {
  let x = 0;
  for (let i = 0; i < 20000; i++) x += Math.sqrt(i);
  return x;
}

http
  .createServer((req, res) => {
    if (inspector.url()) counts.open++;
    else counts.closed++;
    console.log('GET', req.url);
    res.end(String(work()));
  })
  .listen(process.env.PORT);

// An app that uses SIGUSR1 for itself (a log-rotation signal, say): its inspector cannot be reopened.
if (process.env.HANDLE_SIGUSR1 === '1') process.on('SIGUSR1', () => undefined);

process.on('SIGTERM', () => {
  fs.writeFileSync(process.env.COUNTS_FILE, JSON.stringify(counts));
  process.exit(0);
});
