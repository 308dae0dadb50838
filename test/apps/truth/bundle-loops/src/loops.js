export function long(seed) {
  let a = seed;
  for (let i = 0; i < 4000000; i++) a = (a + Math.imul(i, 40503)) | 0; // truth own 2
  return a;
}

export function short(seed) {
  let b = seed;
  for (let i = 0; i < 2000000; i++) b = (b + Math.imul(i, 40503)) | 0; // truth own 1
  return b;
}
