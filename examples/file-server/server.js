'use strict';

// file-server: reads a ~4 MB file on every request, three different ways,
// to compare fs.readFile, fs.readFileSync and readFileSync hidden in a
// setTimeout ("fake async": it is deferred, but still blocks the event loop).

const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');

const PORT = Number(process.env.PORT) || 3000;
const MODES = ['async', 'sync', 'fake-async'];
const FILE_MODE = MODES.includes(process.env.FILE_MODE) ? process.env.FILE_MODE : 'sync';

const DATA_DIR = path.join(__dirname, 'data');
const PAGE = path.join(DATA_DIR, 'page.html');
const TARGET_BYTES = 4 * 1024 * 1024;

// Build the page from a fixed recipe so every run serves identical bytes.
function buildPage() {
  const parts = ['<!DOCTYPE html>\n<html><head><title>Big page</title></head><body>\n'];
  let size = parts[0].length;
  for (let i = 0; size < TARGET_BYTES; i++) {
    const line = `<p id="p${i}">Paragraph ${i}: the quick brown fox jumps over the lazy dog ${(i * 7919) % 10007}.</p>\n`;
    parts.push(line);
    size += line.length;
  }
  parts.push('</body></html>\n');
  return parts.join('');
}

function ensurePage() {
  if (fs.existsSync(PAGE)) return;
  fs.mkdirSync(DATA_DIR, { recursive: true });
  // Write to a temp name then rename, so a concurrent start never reads half a file.
  const tmp = `${PAGE}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, buildPage());
  fs.renameSync(tmp, PAGE);
}

function send(res, err, body) {
  if (err) {
    res.writeHead(500, { 'content-type': 'text/plain' });
    return res.end('could not read page\n');
  }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.length });
  res.end(body);
}

// The fix: the read happens on the libuv thread pool.
function readAsync(res) {
  fs.readFile(PAGE, (err, body) => send(res, err, body));
}

// The bug: the whole read blocks the event loop.
function readSync(res) {
  let body;
  try {
    body = fs.readFileSync(PAGE);
  } catch (err) {
    return send(res, err);
  }
  send(res, null, body);
}

// Looks asynchronous, is not: the callback still blocks the event loop.
function readFakeAsync(res) {
  setTimeout(() => {
    let body;
    try {
      body = fs.readFileSync(PAGE);
    } catch (err) {
      return send(res, err);
    }
    send(res, null, body);
  }, 0);
}

const handlers = { async: readAsync, sync: readSync, 'fake-async': readFakeAsync };
const routes = {
  '/': handlers[FILE_MODE],
  '/async': readAsync,
  '/sync': readSync,
  '/fake-async': readFakeAsync,
};

ensurePage();

const server = http.createServer((req, res) => {
  const { pathname } = new URL(req.url, 'http://localhost');
  const handler = routes[pathname];
  if (!handler) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    return res.end('not found\n');
  }
  if (req.method !== 'GET') {
    res.writeHead(405, { 'content-type': 'text/plain', allow: 'GET' });
    return res.end('method not allowed\n');
  }
  handler(res);
});

server.on('error', (err) => {
  console.error(`file-server could not listen on port ${PORT}: ${err.message}`);
  process.exit(1);
});

server.listen(PORT, () => {
  console.log(`file-server listening on http://127.0.0.1:${PORT} (file mode: ${FILE_MODE})`);
});
