// Straight-line code: one function, no loop of its own, whose time is on three lines. Each scans
// a packed array for a value it does not hold (a V8 built-in, no frame of its own: its time is
// the calling line's), 2:1:1 by the arrays' lengths. A capture cannot land inside the scan.
const http = require('node:http');

const big = Array.from({ length: 400000 }, (_, i) => i);
const mid = Array.from({ length: 200000 }, (_, i) => i);
const low = Array.from({ length: 200000 }, (_, i) => i + 1);

function scan() {
  let found = 0;
  found += big.indexOf(-1); // truth own 2
  found += mid.indexOf(-1); // truth own 1
  found += low.indexOf(-1); // truth own 1
  return found;
}

http.createServer((req, res) => res.end(String(scan()))).listen(process.env.PORT);
