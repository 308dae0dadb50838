// The forked child: two pure-JS loops of the same body, the first with twice the trips (2:1).
// Both loops in one function: each line's time is its own samples (the profiler's top frame), with
// no inlining between functions to blur it.
function work() {
  let a = 0;
  let b = 0;
  for (let i = 0; i < 2000000; i++) a = (a + Math.imul(i, 40503)) | 0; // truth own 2
  for (let i = 0; i < 1000000; i++) b = (b + Math.imul(i, 40503)) | 0; // truth own 1
  return a ^ b;
}

process.on('message', (m) => process.send({ id: m.id, value: work() }));
