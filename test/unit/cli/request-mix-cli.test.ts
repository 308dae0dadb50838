// The CLI's way to a request mix (src/cli/args.ts targetsOf): one --url, several, or --requests
// FILE with --url giving only the app's address; misuse is a usage error before anything starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse, targetsOf, UsageError } from '../../../src/cli/args.ts';
import { COMMAND_OPTIONS, parseConfigOf } from '../../../src/cli/options.ts';
import { RunError } from '../../../src/core/common/index.ts';

const targets = (...args: string[]) => targetsOf(parse(args, parseConfigOf(COMMAND_OPTIONS.profile)).values);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-mix-cli-'));
const MIX = path.join(dir, 'mix.json');
fs.writeFileSync(MIX, JSON.stringify([{ path: '/a/1', weight: 2 }, { path: '/b' }]));
const HAR = path.join(dir, 's.har');
const entry = (url: string, headers: Record<string, string> = {}) => ({
  request: { method: 'GET', url, headers: Object.entries(headers).map(([name, value]) => ({ name, value })) },
});
fs.writeFileSync(
  HAR,
  JSON.stringify({
    log: { entries: [entry('http://127.0.0.1:3000/x', { cookie: 'a=1' }), entry('http://127.0.0.1:4000/y')] },
  }),
);
process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));

test('one --url is the single request, as before', () => {
  assert.deepEqual(targets('--url', '/login'), { url: '/login' });
});

test('several --url: a mix of equal weights with the method and body', () => {
  const t = targets('--url', '/a', '--url', '/b/2', '-m', 'POST', '-b', '{}');
  assert.equal(t.url, '/a');
  assert.deepEqual(
    t.requests?.map((r) => [r.method, r.path, r.body, r.weight]),
    [
      ['POST', '/a', '{}', 1],
      ['POST', '/b/2', '{}', 1],
    ],
  );
});

test('--requests FILE: the mix, its first path the run URL; --url names only the address', () => {
  const t = targets('--requests', MIX);
  assert.equal(t.url, '/a/1');
  assert.deepEqual(
    t.requests?.map((r) => [r.path, r.weight]),
    [
      ['/a/1', 2],
      ['/b', 1],
    ],
  );
  assert.equal(targets('--requests', MIX, '--url', 'http://127.0.0.1:3000').url, 'http://127.0.0.1:3000/a/1');
});

test('a HAR: the busiest loopback address, secrets left out unless --keep-secrets', () => {
  const t = targets('--requests', HAR);
  assert.equal(t.url, 'http://127.0.0.1:3000/x');
  assert.deepEqual(t.requests?.[0].headers, {});
  assert.equal(t.requestsNotes?.length, 2);
  assert.match(t.requestsNotes![0], /1 of 2 requests replayed; 1 to other hosts dropped \(127\.0\.0\.1:4000\)/);
  assert.deepEqual(targets('--requests', HAR, '--keep-secrets').requests?.[0].headers, { cookie: 'a=1' });
  assert.equal(targets('--requests', HAR, '--url', 'http://127.0.0.1:4000/').url, 'http://127.0.0.1:4000/y');
});

test('misuse is one usage line, bad files one bad-options line', () => {
  const usage = (args: string[], message: RegExp): void =>
    assert.throws(
      () => targets(...args),
      (e: unknown) => e instanceof UsageError && message.test(e.message),
    );
  usage([], /needs --url .* or --requests FILE/);
  usage(['--keep-secrets', '--url', '/a'], /--keep-secrets goes with --requests/);
  usage(['--requests', MIX, '-m', 'POST'], /each request has its own method and body/);
  usage(['--requests', MIX, '--url', '/a', '--url', '/b'], /not both/);
  usage(['--requests', MIX, '--url', '/a'], /--url gives only the app's address/);
  assert.throws(
    () => targets('--requests', path.join(dir, 'missing.yaml')),
    (e: unknown) => e instanceof RunError && e.kind === 'bad-options',
  );
});
