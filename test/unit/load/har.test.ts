// HAR files as request mixes (src/core/load/har.ts), on a hand-written HAR shaped like Chromium's
// (HTTP/1.1 and HTTP/2 entries, a websocket, a CDN, a HEAD): what is replayed, and what is
// dropped and counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunError } from '../../../src/core/common/index.ts';
import { replayedHeaders, requestsFromHar } from '../../../src/core/load/har.ts';
import { parseRequestMix } from '../../../src/core/load/request-mix.ts';

const h = (pairs: Record<string, string>): Array<{ name: string; value: string }> =>
  Object.entries(pairs).map(([name, value]) => ({ name, value }));

const entry = (method: string, url: string, headers: Record<string, string> = {}, body?: string, extra = {}) => ({
  startedDateTime: '2026-11-28T23:00:00.000Z',
  time: 3,
  request: {
    method,
    url,
    httpVersion: 'HTTP/1.1',
    headers: h(headers),
    queryString: [],
    cookies: [],
    headersSize: -1,
    bodySize: body?.length ?? 0,
    ...(body !== undefined ? { postData: { mimeType: 'application/json', text: body } } : {}),
  },
  response: { status: 200 },
  ...extra,
});

const HAR = {
  log: {
    version: '1.2',
    creator: { name: 'WebInspector', version: '537.36' },
    entries: [
      entry('GET', 'http://127.0.0.1:3000/', {
        Host: '127.0.0.1:3000',
        Connection: 'keep-alive',
        Accept: 'text/html',
        Cookie: 'sid=secret',
      }),
      entry('GET', 'https://cdn.example.com/app.js', { Accept: '*/*' }),
      entry(
        'POST',
        'http://127.0.0.1:3000/orders/123?expand=1',
        {
          ':method': 'POST',
          ':path': '/orders/123',
          'content-type': 'application/json',
          'content-length': '9',
          Authorization: 'Bearer t',
        },
        '{"qty":2}',
      ),
      entry('HEAD', 'http://127.0.0.1:3000/health'),
      entry('GET', 'http://127.0.0.1:3000/socket', { Upgrade: 'websocket', Connection: 'Upgrade' }, undefined, {
        _resourceType: 'websocket',
      }),
      entry('GET', 'http://127.0.0.1:4000/other-app'),
      entry('GET', 'data:image/png;base64,AAAA'),
      entry('GET', 'http://127.0.0.1:3000/orders/124', { 'x-trace': 'a', 'X-Trace': 'b' }),
    ],
  },
};

test('a HAR: the app’s requests replayed in order, with methods, paths, bodies; the rest counted', () => {
  const mix = parseRequestMix(JSON.stringify(HAR), 'session.har');
  assert.equal(mix.origin, 'http://127.0.0.1:3000', 'the loopback origin the HAR went to most');
  assert.deepEqual(mix.requests, [
    { method: 'GET', path: '/', headers: { Accept: 'text/html' }, weight: 1 },
    {
      method: 'POST',
      path: '/orders/123?expand=1',
      headers: { 'content-type': 'application/json' },
      body: '{"qty":2}',
      weight: 1,
    },
    { method: 'GET', path: '/orders/124', headers: { 'x-trace': 'a, b' }, weight: 1 },
  ]);
  assert.equal(mix.notes.length, 2);
  assert.match(mix.notes[0], /^session\.har: 3 of 8 requests replayed; /);
  assert.match(
    mix.notes[0],
    /2 to other hosts dropped \((cdn\.example\.com, 127\.0\.0\.1:4000|127\.0\.0\.1:4000, cdn\.example\.com)\)/,
  );
  assert.match(mix.notes[0], /1 HEAD dropped/);
  assert.match(mix.notes[0], /1 websocket dropped/);
  assert.match(mix.notes[0], /1 not http\(s\) dropped/);
  assert.match(mix.notes[1], /cookie and authorization headers left out of 2 requests/);
});

test('--keep-secrets (or keepSecrets in the file) sends cookies and authorization', () => {
  const kept = requestsFromHar(HAR, 's.har', { keepSecrets: true });
  assert.equal(kept.requests[0].headers.Cookie, 'sid=secret');
  assert.equal(kept.requests[1].headers.Authorization, 'Bearer t');
  assert.equal(kept.notes.length, 1);
  const inFile = requestsFromHar({ ...HAR, keepSecrets: true }, 's.har');
  assert.equal(inFile.requests[0].headers.Cookie, 'sid=secret');
});

test('the app’s address given: only its requests kept, whatever the HAR went to most', () => {
  const mix = requestsFromHar(HAR, 's.har', { origin: 'http://127.0.0.1:4000' });
  assert.deepEqual(
    mix.requests.map((r) => r.path),
    ['/other-app'],
  );
  assert.equal(mix.origin, undefined, 'the user’s own address is not repeated back');
  assert.match(mix.notes[0], /1 of 8 requests replayed; 6 to other hosts dropped/);
});

test('a HAR with nothing for the app is one bad-options line', () => {
  const none = { log: { entries: [entry('GET', 'https://example.com/')] } };
  assert.throws(
    () => requestsFromHar(none, 'x.har'),
    (e: unknown) =>
      e instanceof RunError &&
      e.kind === 'bad-options' &&
      /x\.har: none of its 1 requests can be replayed to the app \(no request to 127\.0\.0\.1/.test(e.message),
  );
  assert.throws(() => parseRequestMix('{"log":{}}', 'x.har'), /expected a list|not a HAR/);
  assert.throws(() => requestsFromHar({ log: { entries: [{}] } }, 'x.har'), /entry 1: no request/);
});

test('replayedHeaders: pseudo-headers, hop-by-hop, Host and Content-Length never sent again', () => {
  const { headers, secrets } = replayedHeaders(
    [
      [':authority', 'x'],
      ['Keep-Alive', 'timeout=5'],
      ['Transfer-Encoding', 'chunked'],
      ['TE', 'trailers'],
      ['Proxy-Authorization', 'Basic x'],
      ['cookie', 'a=1'],
      ['cookie', 'b=2'],
      ['accept-encoding', 'gzip'],
    ],
    true,
  );
  assert.deepEqual(headers, { 'Proxy-Authorization': 'Basic x', cookie: 'a=1; b=2', 'accept-encoding': 'gzip' });
  assert.equal(secrets, false);
  assert.equal(replayedHeaders([['Cookie', 'a']], false).secrets, true);
});
