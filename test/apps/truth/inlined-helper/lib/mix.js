// A small helper TurboFan inlines into its caller's hot loop: its own lines own the time, 2:1.
function mix(seed) {
  let h = seed | 0;
  for (let i = 0; i < 2000; i++) h = Math.imul(h ^ i, 40503) >>> 0; // truth own 2
  for (let i = 0; i < 1000; i++) h = Math.imul(h ^ i, 40503) >>> 0; // truth own 1
  return h;
}

module.exports = { mix };
