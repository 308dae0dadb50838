'use strict';
// A load "tool" for --load-command: URL's origin loaded with /heavy, /light/:id twice and /wait
// (weights 1:2:1), 4 requests in flight, for SECONDS (each of Hotline's windows runs it once;
// it ends it early if the window ends first). Prints how many of each it sent.
const [url, seconds = '20'] = process.argv.slice(2);
const origin = new URL(url).origin;
const until = Date.now() + Number(seconds) * 1000;
const paths = ['/heavy', '/light/{id}', '/wait', '/light/{id}'];
const sent = {};
let next = 0;
async function worker() {
  while (Date.now() < until) {
    const p = paths[next++ % paths.length].replace('{id}', String(next % 1000));
    const res = await fetch(origin + p);
    await res.arrayBuffer();
    const key = p.replace(/\d+$/, ':id');
    sent[key] = (sent[key] || 0) + 1;
  }
}
Promise.all([worker(), worker(), worker(), worker()]).then(() => console.log(`sent ${JSON.stringify(sent)}`));
