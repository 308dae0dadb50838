'use strict';
// Its hot function is a method named `toString` (a name every object inherits): a profiler that
// looks names up in a plain object map finds Object.prototype.toString instead of nothing.
const http = require('node:http');

const port = Number(process.env.PORT) || 3000;

class Digest {
  constructor(seed) {
    this.seed = seed;
  }

  toString() {
    let h = this.seed;
    for (let i = 0; i < 1000000; i++) h = (h * 31 + i) >>> 0; // ~1 ms: the loop, not the HTTP work, is hot
    return h.toString(16);
  }
}

function render(seed) {
  return `digest ${String(new Digest(seed))}\n`;
}

let served = 0;
http.createServer((req, res) => {
  res.end(render(++served));
}).listen(port, '127.0.0.1', () => {
  console.log(`method-named-tostring listening on http://127.0.0.1:${port}`);
});
