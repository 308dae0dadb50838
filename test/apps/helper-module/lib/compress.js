'use strict';

// Helper module in a subfolder: the CPU cost lives here, not in server.js,
// so a profiler must attribute it to lib/compress.js to be right.

const zlib = require('node:zlib');

const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf',
  'hotel', 'india', 'juliet', 'kilo', 'lima', 'mike', 'november', 'oscar', 'papa'];

// ~1 MB of word soup from a fixed-seed generator: same bytes on every run,
// varied enough that gzip has real work to do.
function buildPayload(size) {
  const buf = Buffer.alloc(size);
  let seed = 12345;
  let pos = 0;
  while (pos < size) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const word = WORDS[seed >>> 28];
    pos += buf.write(`${word}${seed % 1000} `, pos);
  }
  return buf;
}

const payload = buildPayload(1024 * 1024);

function compressPayload() {
  const gz = zlib.gzipSync(payload);
  return { inputBytes: payload.length, outputBytes: gz.length };
}

module.exports = { compressPayload };
