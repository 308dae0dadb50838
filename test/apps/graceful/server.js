'use strict';

// An app with a graceful shutdown, as many have: on SIGTERM it finishes writing a file (in
// pieces, over a few hundred ms, like a flush of buffered logs) and only then exits 0. A second
// SIGTERM in the middle would hit the default action (process.once) and leave the file short.
// GRACEFUL_OUT: the file; GRACEFUL_CHILD=1 also starts a child in the same process group that
// does the same into GRACEFUL_OUT.child; GRACEFUL_IGNORE=1 ignores SIGTERM altogether;
// GRACEFUL_EXIT_CODE=N ends its shutdown with exit code N instead of 0 (as a failing shutdown does).

const fs = require('node:fs');
const http = require('node:http');
const { fork } = require('node:child_process');

const out = process.env.GRACEFUL_OUT;
const PIECES = 5;
// The child takes longer than its parent: a stop that ends when the parent does cuts it short.
const PIECE_MS = isChildProcess() ? 150 : 80;
const isChild = isChildProcess();
const file = isChild ? `${out}.child` : out;

function flushSlowly() {
  fs.writeFileSync(file, '');
  let written = 0;
  const timer = setInterval(() => {
    fs.appendFileSync(file, `piece ${++written}\n`);
    if (written === PIECES) {
      clearInterval(timer);
      fs.appendFileSync(file, 'complete\n');
      process.exit(Number(process.env.GRACEFUL_EXIT_CODE) || 0);
    }
  }, PIECE_MS);
}

if (process.env.GRACEFUL_IGNORE === '1') process.on('SIGTERM', () => {});
else process.once('SIGTERM', flushSlowly);

if (isChild) {
  process.send?.('ready');
  setInterval(() => {}, 1000);
} else {
  const start = () => http.createServer((req, res) => res.end('ok')).listen(Number(process.env.PORT) || 0, '127.0.0.1', () => {
    process.stdout.write('ready\n');
  });
  if (process.env.GRACEFUL_CHILD === '1') {
    const child = fork(__filename, ['child'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [] });
    child.once('message', () => { child.disconnect(); start(); });
  } else start();
}

function isChildProcess() {
  return process.argv[2] === 'child';
}
