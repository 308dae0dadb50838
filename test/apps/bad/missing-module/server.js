'use strict';
// Requires a package that is not installed: node exits at start with MODULE_NOT_FOUND.
const http = require('node:http');
const missing = require('hotline-test-module-that-does-not-exist');

const port = Number(process.env.PORT) || 3000;
http.createServer((req, res) => res.end(String(missing))).listen(port);
