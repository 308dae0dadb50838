'use strict';
// One http.get and one fetch of a URL, each on a marked line, in plain JavaScript (no transform:
// the calling lines V8 reports are these lines). For test/unit/http-wait-probe.test.ts.
const http = require('node:http');

function getOnce(url) {
  return new Promise((resolve, reject) => {
    http.get(url, (res) => res.resume().on('end', resolve)).on('error', reject); // GET LINE
  });
}

async function fetchOnce(url) {
  const res = await fetch(url); // FETCH LINE
  return res.text();
}

module.exports = { getOnce, fetchOnce };
