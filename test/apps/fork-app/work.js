// The forked child: two pure-JS loops of the same body, the first with twice the trips (2:1).
// Both loops in the listener itself: each line's time is its own samples (the profiler's top
// frame), the part of a child's attribution that needs no stack capture. fork-calls has the shape
// that does (one callee called on two lines).
function work(m) {
  let a = 0;
  let b = 0;
  for (let i = 0; i < 4000000; i++) a = (a + Math.imul(i, 40503)) | 0; // truth own 2
  for (let i = 0; i < 2000000; i++) b = (b + Math.imul(i, 40503)) | 0; // truth own 1
  process.send({ id: m.id, value: a ^ b });
}

process.on('message', work);
