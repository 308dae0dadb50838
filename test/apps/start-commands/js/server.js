// The same known answer in JavaScript, for the starters that run .js (nodemon, a bin, fastify-cli).
const http = require('node:http');
const { check } = require('./check.js');

http.createServer((_req, res) => res.end(String(check('pw')))).listen(Number(process.env.PORT ?? 3000));
