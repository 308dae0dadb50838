// Straight-line code: one function, no loop of its own, whose time is on three lines. Each scans
// one packed array for a value it does not hold (a V8 built-in, no frame of its own: its time is
// the calling line's): two scans on the first line, one on each of the others, so 2:1:1. One array
// for all three, so no line pays for memory the others do not touch; and long enough that a scan
// lasts longer than the 1 ms sampling interval: with short scans the profiler's fixed-period ticks
// can fall into step with the requests and favour one line by a few points. A capture cannot land
// inside the scan.
const http = require('node:http');

const values = Array.from({ length: 2000000 }, (_, i) => i);

function scan() {
  let found = 0;
  found += values.indexOf(-1) + values.indexOf(-2); // truth own 2
  found += values.indexOf(-3); // truth own 1
  found += values.indexOf(-4); // truth own 1
  return found;
}

http.createServer((req, res) => res.end(String(scan()))).listen(process.env.PORT);
