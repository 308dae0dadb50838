'use strict';
// Answers a few requests, then blocks its event loop forever in a loop that never yields:
// the run must still end on time (the inspector interrupts the loop) and name that loop.
const http = require('node:http');

const port = Number(process.env.PORT) || 3000;
let served = 0;

function spinForever() {
  let x = 0;
  for (;;) x = (x * 31 + 7) % 1000003;
}

http.createServer((req, res) => {
  served++;
  res.end('ok');
  if (served === 50) setImmediate(spinForever);
}).listen(port, '127.0.0.1', () => {
  console.log(`hangs listening on http://127.0.0.1:${port}`);
});
