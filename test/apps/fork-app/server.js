// A child_process.fork app: the parent serves HTTP and hands each request to one of its two
// forked children in turn over IPC; the children do the work (work.js), the parent none.
// fork-calls runs the same parent with children of its own (`serve`).
const { fork } = require('node:child_process');
const http = require('node:http');
const path = require('node:path');

/** Serves on PORT, each request handed to one of two forks of `script` in turn. */
function serve(script) {
  const children = [0, 1].map(() => fork(script));
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
}

if (require.main === module) serve(path.join(__dirname, 'work.js'));
module.exports = { serve };
