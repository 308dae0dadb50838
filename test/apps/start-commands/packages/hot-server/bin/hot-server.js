#!/usr/bin/env node
// A package bin that serves: its time is in the app's own check.js (called through the bin).
const http = require('node:http');
const path = require('node:path');
const { check } = require(path.resolve('js', 'check.js'));

http.createServer((_req, res) => res.end(String(check('pw')))).listen(Number(process.env.PORT ?? 3000));
