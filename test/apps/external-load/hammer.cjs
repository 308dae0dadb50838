'use strict';
// A load "tool" whose output no parser knows: GETs URL with 4 requests in flight for SECONDS,
// then prints a line of its own. Stands in for any tool Hotline cannot read.
const [url, seconds = '2'] = process.argv.slice(2);
const until = Date.now() + Number(seconds) * 1000;
let done = 0;
async function worker() {
  while (Date.now() < until) {
    const res = await fetch(url);
    await res.arrayBuffer();
    done++;
  }
}
Promise.all([worker(), worker(), worker(), worker()]).then(() => console.log(`hammered ${done} times`));
