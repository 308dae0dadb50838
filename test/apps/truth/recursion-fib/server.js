// A recursive fib: its time is on its header (the call's entry) and its one body line, in a split
// nothing constructs. Each marked line's share must match V8's own program-counter split of the
// same profile analysed without stack captures (`// truth pc`).
const http = require('node:http');

function fib(n) { // truth pc
  return n < 2 ? n : fib(n - 1) + fib(n - 2); // truth pc
}

http.createServer((req, res) => res.end(String(fib(25)))).listen(process.env.PORT);
