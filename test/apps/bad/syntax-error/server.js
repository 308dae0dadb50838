'use strict';
// Deliberately broken: node cannot parse this file.
const http = require('node:http');
const port = Number(process.env.PORT) || 3000;
http.createServer((req, res) => res.end('ok')).listen(port, () => {
  console.log(`never printed ${port}`;
});
