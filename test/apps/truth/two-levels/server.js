const http = require('node:http');
const a = require('./lib/a');

http.createServer((req, res) => res.end(String(a.run()))).listen(process.env.PORT);
