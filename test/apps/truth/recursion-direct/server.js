// Direct recursion: every call runs two pure-JS loops of 2:1 trips, then recurses. The loops own
// the function's time 2:1 whatever depth the call is at (the header and the return are a few
// instructions per 30000 trips).
const http = require('node:http');

function walk(depth) {
  let a = 0;
  let b = 0;
  for (let i = 0; i < 40000; i++) a = (a + Math.imul(i, 40503)) | 0; // truth own 2
  for (let i = 0; i < 20000; i++) b = (b + Math.imul(i, 40503)) | 0; // truth own 1
  return depth > 0 ? a ^ b ^ walk(depth - 1) : a ^ b;
}

http.createServer((req, res) => res.end(String(walk(40)))).listen(process.env.PORT);
