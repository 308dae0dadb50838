'use strict';

// Blocks its event loop for STALL_MS (300 ms) once every wall-clock second, at the same phase
// of the second each time, in stallEverySecond(); between stalls it answers cheap requests
// that wait on a timer (standing in for I/O), so the CPU is mostly idle there. The heat map of
// a profile of it under load shows a band 300 ms tall at one sub-second offset.

const http = require('node:http');

const STALL_MS = Number(process.env.STALL_MS) || 300;
/** Where in each wall-clock second the stall starts. */
const PHASE_MS = 500;
const IO_WAIT_MS = 20;

let spin = 1;

// The deadline comes from the caller: one clock call in here keeps the stall on one line.
function stallEverySecond(until) {
  while (performance.now() < until) spin = (spin * 1103515245 + 12345) % 2147483648; // STALL LINE
  return spin;
}

// Each stall as it really ran (a late timer moves it), on stdout: `stall <start> <end>` in µs of
// the monotonic clock V8's profiles use, so a test can tell where in the profile it was. Its start
// is printed first too (`stall-start <start>`; a pipe write is synchronous on Linux): an app
// stopped during a stall never prints its end, and that stall still covers the profile's last ms.
const nowUs = () => process.hrtime.bigint() / 1000n;

function scheduleStall() {
  const wait = (PHASE_MS - (Date.now() % 1000) + 1000) % 1000 || 1000;
  setTimeout(() => {
    const start = nowUs();
    console.log(`stall-start ${start}`);
    stallEverySecond(performance.now() + STALL_MS);
    console.log(`stall ${start} ${nowUs()}`);
    scheduleStall();
  }, wait);
}

const server = http.createServer((req, res) => {
  setTimeout(() => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok\n');
  }, IO_WAIT_MS);
});

server.listen(Number(process.env.PORT) || 3000, '127.0.0.1', () => {
  console.log(`stall listening on http://127.0.0.1:${server.address().port}`);
  scheduleStall();
});
