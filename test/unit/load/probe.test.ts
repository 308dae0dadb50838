// The probe before the warm-up (load/probe.ts): a URL that answers only failures stops the run in
// a few requests, naming the status and the URL; a route whose answers are mixed still runs.
// A real HTTP server on 127.0.0.1, answering by a fixed rule: no timing involved.
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { probe, probeFailureLine } from '../../../src/core/load/probe.ts';

describe('probe', () => {
  let server: http.Server;
  let base = '';
  let mixed = 0;
  const bodies: string[] = [];
  before(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        bodies.push(body);
        if (req.url === '/ok') res.writeHead(200).end('yes');
        else if (req.url === '/login' && req.method === 'POST') res.writeHead(body === '{"u":"a"}' ? 200 : 401).end();
        else if (req.url === '/mixed') res.writeHead(mixed++ % 2 === 0 ? 500 : 200).end();
        else if (req.url === '/redirect') res.writeHead(302, { location: '/ok' }).end();
        else res.writeHead(404).end('no such route');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('every answer a 404: refused, and the line names the status and the URL', async () => {
    const o = { url: `${base}/logn`, method: 'GET', headers: {}, timeoutS: 5 };
    const p = await probe(o);
    assert.deepEqual([p.ok, p.status], [false, 404]);
    const line = probeFailureLine(o, p);
    assert.ok(!line.includes('\n'));
    assert.match(line, new RegExp(`GET ${base}/logn answered 404 Not Found`));
  });

  test('the method, headers and body are the load’s: a right body passes, a wrong one is a 401', async () => {
    const o = { url: `${base}/login`, method: 'POST', headers: { 'content-type': 'application/json' }, timeoutS: 5 };
    assert.equal((await probe({ ...o, body: '{"u":"a"}' })).ok, true);
    assert.equal(bodies.at(-1), '{"u":"a"}');
    const wrong = await probe({ ...o, body: '{"u":"b"}' });
    assert.deepEqual([wrong.ok, wrong.status], [false, 401]);
  });

  test('a mix of failures and successes runs; a redirect is an answer', async () => {
    mixed = 0;
    assert.equal((await probe({ url: `${base}/mixed`, timeoutS: 5 })).ok, true);
    assert.equal((await probe({ url: `${base}/ok`, timeoutS: 5 })).status, 200);
    assert.equal((await probe({ url: `${base}/redirect`, timeoutS: 5 })).status, 302);
  });

  test('nothing listening: refused with the connection error', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const o = { url: `http://127.0.0.1:${port}/`, method: 'GET', timeoutS: 5 };
    const p = await probe(o);
    assert.equal(p.ok, false);
    assert.match(probeFailureLine(o, p), /failed \(connect ECONNREFUSED/);
  });
});
