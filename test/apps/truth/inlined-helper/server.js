const http = require('node:http');
const { mix } = require('./lib/mix');

function work() {
  let acc = 0;
  for (let i = 0; i < 2000; i++) acc = (acc + mix(i)) | 0;
  return acc;
}

http.createServer((req, res) => res.end(String(work()))).listen(process.env.PORT);
