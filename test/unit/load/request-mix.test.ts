// Request mixes read from JSON/YAML text, several --url, and the weighted order the runner cycles
// (src/core/load/request-mix.ts). Bad input is one RunError('bad-options') line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RunError } from '../../../src/core/common/index.ts';
import {
  interleave,
  MAX_CYCLE,
  mixFromUrls,
  mixUrl,
  parseRequestMix,
  wholeWeights,
} from '../../../src/core/load/request-mix.ts';
import { readRequestMix } from '../../../src/core/load/request-mix-file.ts';
import { normalizeLoadOptions } from '../../../src/core/load/load-run.ts';

const badOptions = (fn: () => unknown, message: RegExp): void =>
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof RunError, `a RunError, got ${String(err)}`);
    assert.equal(err.kind, 'bad-options');
    assert.match(err.message, message);
    assert.ok(!err.message.includes('\n'), 'one line');
    return true;
  });

test('a JSON list: methods, paths, headers, bodies and weights as written; defaults GET and 1', () => {
  const mix = parseRequestMix(
    JSON.stringify([
      { path: '/heavy', weight: 1 },
      { method: 'post', path: '/orders?x=1', headers: { 'x-a': 'b', 'x-n': 2 }, body: { id: 7 }, weight: 2 },
      { url: 'http://127.0.0.1:3000/wait' },
    ]),
    'mix.json',
  );
  assert.deepEqual(mix.requests, [
    { method: 'GET', path: '/heavy', headers: {}, weight: 1 },
    {
      method: 'POST',
      path: '/orders?x=1',
      headers: { 'x-a': 'b', 'x-n': '2', 'content-type': 'application/json' },
      body: '{"id":7}',
      weight: 2,
    },
    { method: 'GET', path: '/wait', headers: {}, weight: 1 },
  ]);
  assert.equal(mix.origin, 'http://127.0.0.1:3000');
  assert.equal(mixUrl(mix), 'http://127.0.0.1:3000/heavy');
});

test('YAML, and the { requests: [...] } form', () => {
  const mix = parseRequestMix(
    'requests:\n  - path: /a\n    weight: 3\n  - method: PUT\n    path: /b\n    body: "text"\n',
    'mix.yaml',
  );
  assert.deepEqual(
    mix.requests.map((r) => [r.method, r.path, r.weight, r.body]),
    [
      ['GET', '/a', 3, undefined],
      ['PUT', '/b', 1, 'text'],
    ],
  );
  assert.equal(mix.origin, undefined);
  assert.equal(mixUrl(mix), '/a');
});

test('a file without a known extension is read as JSON, else YAML', () => {
  assert.equal(parseRequestMix('[{"path":"/x"}]', 'mix').requests[0].path, '/x');
  assert.equal(parseRequestMix('- path: /y\n', 'mix').requests[0].path, '/y');
});

test('bad input: one clear line each', () => {
  badOptions(() => parseRequestMix('{', 'm.json'), /m\.json: not JSON/);
  badOptions(() => parseRequestMix('a: [', 'm.yaml'), /m\.yaml: not YAML/);
  badOptions(() => parseRequestMix('{"x":1}', 'm.json'), /expected a list of requests/);
  badOptions(() => parseRequestMix('[]', 'm.json'), /empty/);
  badOptions(() => parseRequestMix('[{"weight":1}]', 'm.json'), /request 1: needs a path/);
  badOptions(() => parseRequestMix('[{"path":"/a","wieght":2}]', 'm.json'), /unknown field wieght/);
  badOptions(() => parseRequestMix('[{"path":"/a","weight":0}]', 'm.json'), /weight must be a number above 0/);
  badOptions(() => parseRequestMix('[{"path":"/a","weight":"2"}]', 'm.json'), /weight must be/);
  badOptions(() => parseRequestMix('[{"path":"/a","method":"HEAD"}]', 'm.json'), /method must be one of/);
  badOptions(() => parseRequestMix('[{"path":"/a","headers":{"bad name":"x"}}]', 'm.json'), /invalid header name/);
  badOptions(() => parseRequestMix('[{"path":"/a","headers":{"x":"a\\r\\nb"}}]', 'm.json'), /invalid value/);
  badOptions(() => parseRequestMix('[{"path":"orders"}]', 'm.json'), /neither a path/);
  badOptions(() => parseRequestMix('[{"url":"http://example.com/a"}]', 'm.json'), /not this machine/);
  badOptions(() => parseRequestMix('[{"path":"/a","url":"http://127.0.0.1:1/b"}]', 'm.json'), /not both/);
  badOptions(
    () => parseRequestMix('[{"url":"http://127.0.0.1:1/a"},{"url":"http://127.0.0.1:2/b"}]', 'm.json'),
    /one app per run/,
  );
  badOptions(
    () => parseRequestMix('[{"url":"http://127.0.0.1:1/a"}]', 'm.json', { origin: 'http://127.0.0.1:2' }),
    /not the app's address/,
  );
});

test('readRequestMix: a missing file is a bad option, not a crash', () => {
  badOptions(
    () => readRequestMix(path.join(os.tmpdir(), 'hotline-no-such-mix.json')),
    /cannot read the request mix .*ENOENT/,
  );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-mix-'));
  try {
    const file = path.join(dir, 'mix.yml');
    fs.writeFileSync(file, '- path: /a\n  weight: 2\n');
    assert.deepEqual(readRequestMix(file).requests, [{ method: 'GET', path: '/a', headers: {}, weight: 2 }]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('several --url: equal weights, the method and body for each, one app', () => {
  const mix = mixFromUrls(['/a', '/b/1'], 'post', '{}');
  assert.deepEqual(mix.requests, [
    { method: 'POST', path: '/a', headers: {}, body: '{}', weight: 1 },
    { method: 'POST', path: '/b/1', headers: {}, body: '{}', weight: 1 },
  ]);
  badOptions(() => mixFromUrls(['http://127.0.0.1:1/a', 'http://127.0.0.1:2/a']), /one app per run/);
  badOptions(() => mixFromUrls(['/a', 'http://10.0.0.1/a']), /not this machine/);
});

test('interleave: smooth weighted round-robin, exact per cycle, spread out', () => {
  assert.deepEqual(interleave([1, 2, 1]), [1, 0, 2, 1]);
  assert.deepEqual(interleave([1]), [0]);
  assert.deepEqual(interleave([1, 1, 1]), [0, 1, 2]);
  const order = interleave([5, 1, 3]);
  assert.equal(order.length, 9);
  assert.deepEqual(
    [0, 1, 2].map((i) => order.filter((x) => x === i).length),
    [5, 1, 3],
  );
  // Spread: the heaviest request never runs more than twice in a row here.
  assert.ok(!/000/.test(order.join('')), order.join(''));
  // Proportions, not the numbers written: 2:4:2 is 1:2:1.
  assert.deepEqual(interleave([2, 4, 2]), [1, 0, 2, 1]);
});

test('wholeWeights: fractions made whole, reduced; too fine a cycle refused', () => {
  assert.deepEqual(wholeWeights([0.5, 1]), [1, 2]);
  assert.deepEqual(wholeWeights([0.25, 0.5, 0.25]), [1, 2, 1]);
  assert.deepEqual(wholeWeights([10, 20]), [1, 2]);
  badOptions(() => interleave([1, MAX_CYCLE]), /cycle of/);
  badOptions(() => wholeWeights([1, -1]), /above 0/);
});

test('normalizeLoadOptions passes a mix on, checked, and refuses a body beside it', () => {
  const o = normalizeLoadOptions({
    url: 'http://127.0.0.1:3000/a',
    headers: { 'x-common': '1' },
    requests: [
      { method: 'get', path: '/a', headers: {}, weight: 1 },
      { method: 'POST', path: '/b', headers: { 'x-b': '2' }, body: 'x', weight: 3 },
    ],
  });
  assert.deepEqual(
    o.requests?.map((r) => [r.method, r.path, r.weight]),
    [
      ['GET', '/a', 1],
      ['POST', '/b', 3],
    ],
  );
  assert.equal(normalizeLoadOptions({ url: 'http://127.0.0.1:3000/a' }).requests, undefined);
  const refused = (requests: unknown, body?: string): void =>
    assert.throws(
      () =>
        normalizeLoadOptions({
          url: 'http://127.0.0.1:3000/a',
          requests: requests as never,
          ...(body ? { body } : {}),
        }),
      (e: Error & { code?: string }) => e.code === 'bad-options',
    );
  refused([]);
  refused([{ method: 'GET', path: '/a', headers: {}, weight: 1 }], 'b');
  refused([{ method: 'HEAD', path: '/a', headers: {}, weight: 1 }]);
  refused([{ method: 'GET', path: 'a', headers: {}, weight: 1 }]);
  refused([{ method: 'GET', path: '/a', headers: {}, weight: 0 }]);
  refused([
    { method: 'GET', path: '/a', headers: {}, weight: 1 },
    { method: 'GET', path: '/b', headers: {}, weight: MAX_CYCLE },
  ]);
});
