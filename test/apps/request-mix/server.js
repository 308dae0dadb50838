// A service with three routes of known cost, for request mixes (test/integration/request-mix.test.ts):
// GET /heavy/:id does 3 units of CPU, GET /light/:id 1 unit, GET /wait waits 20 ms on a timer
// (a stand-in for a downstream call) and does no work.
'use strict';
const http = require('node:http');

const UNIT = Number(process.env.UNIT_ITERATIONS || 20000);

/** One unit of CPU: the same arithmetic every time, never optimised away (the result is sent). */
function unit(seed) {
  let x = seed | 0;
  for (let i = 0; i < UNIT; i++) x = (x * 1103515245 + 12345) & 0x7fffffff; // UNIT LINE
  return x;
}

const server = http.createServer((req, res) => {
  const url = req.url || '/';
  if (url.startsWith('/heavy/')) {
    const id = Number(url.slice('/heavy/'.length)) || 0;
    res.end(String(unit(id) ^ unit(id + 1) ^ unit(id + 2)));
  } else if (url.startsWith('/light/')) {
    res.end(String(unit(Number(url.slice('/light/'.length)) || 0)));
  } else if (url === '/') {
    // A page whose script calls the API as a browser would: a HAR of it is a recorded session.
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><title>mix</title><script>
      document.cookie = 'sid=secret-session';
      (async () => {
        await fetch('/light/5');
        await fetch('/heavy/9');
        await fetch('/light/6', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"qty":2}' });
        await fetch('/wait');
        document.title = 'done';
      })();
    </script>`);
  } else if (url === '/wait') {
    setTimeout(() => res.end('waited'), 20); // WAIT LINE
  } else {
    res.statusCode = 404;
    res.end();
  }
});

server.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  console.log(`listening on ${server.address().port}`);
});
