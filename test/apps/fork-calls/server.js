// A child_process.fork app: the parent serves HTTP and hands each request to one of its two
// forked children in turn over IPC; the children do the work (work.js), the parent none.
const { fork } = require('node:child_process');
const http = require('node:http');
const path = require('node:path');

const children = [0, 1].map(() => fork(path.join(__dirname, 'work.js')));
const waiting = new Map();
let next = 0;
let id = 0;
for (const child of children) child.on('message', (m) => waiting.get(m.id)?.(m.value));

http
  .createServer((req, res) => {
    const n = ++id;
    waiting.set(n, (value) => {
      waiting.delete(n);
      res.end(String(value));
    });
    children[next++ % children.length].send({ id: n });
  })
  .listen(process.env.PORT);
