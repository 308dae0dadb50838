// Mutual recursion: ping calls pong calls ping…, each with one pure-JS loop; ping's has twice the
// trips, so ping's loop line owns 2/3 of the time and pong's 1/3.
const http = require('node:http');

function ping(depth) {
  let a = 0;
  for (let i = 0; i < 40000; i++) a = (a + Math.imul(i, 40503)) | 0; // truth own 2
  return depth > 0 ? a ^ pong(depth - 1) : a;
}

function pong(depth) {
  let b = 0;
  for (let i = 0; i < 20000; i++) b = (b + Math.imul(i, 40503)) | 0; // truth own 1
  return depth > 0 ? b ^ ping(depth - 1) : b;
}

http.createServer((req, res) => res.end(String(ping(40)))).listen(process.env.PORT);
