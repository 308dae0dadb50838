// Two pure-JS loops in one function, the same body, the first with twice the trips.
const http = require('node:http');

function work() {
  let a = 0;
  let b = 0;
  for (let i = 0; i < 4000000; i++) a = (a + Math.imul(i, 40503)) | 0; // truth own 2
  for (let i = 0; i < 2000000; i++) b = (b + Math.imul(i, 40503)) | 0; // truth own 1
  return a ^ b;
}

http.createServer((req, res) => res.end(String(work()))).listen(process.env.PORT);
