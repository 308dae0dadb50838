// A node:cluster app: the primary only forks; each of its WORKERS workers serves its requests
// with two pure-JS loops of the same body, the first with twice the trips (2:1 by
// construction).
const cluster = require('node:cluster');
const http = require('node:http');

const WORKERS = Number(process.env.WORKERS || 2);

// Both loops in the request handler itself: each line's time is its own samples (the profiler's
// top frame), the part of a child's attribution that needs no stack capture. cluster-calls has the
// shape that does (one callee called on two lines).
function work(req, res) {
  let a = 0;
  let b = 0;
  for (let i = 0; i < 4000000; i++) a = (a + Math.imul(i, 40503)) | 0; // truth own 2
  for (let i = 0; i < 2000000; i++) b = (b + Math.imul(i, 40503)) | 0; // truth own 1
  res.end(String(a ^ b));
}

if (cluster.isPrimary) {
  for (let i = 0; i < WORKERS; i++) cluster.fork();
  // A worker that dies is not replaced: the run must see it end.
  cluster.on('exit', (w, code, signal) => console.error(`worker ${w.process.pid} ended (${signal ?? code})`));
} else {
  // Tests end one worker mid-run this way (a clean exit, as a worker that crashes or is recycled).
  process.on('SIGUSR2', () => process.exit(0));
  http.createServer(work).listen(process.env.PORT);
}
