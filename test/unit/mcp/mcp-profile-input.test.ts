// The profile tool's input (src/mcp/profile-input.ts): malformed arguments fail the schema, and
// what could run anything but the workspace's own start command is refused with a reason.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { ProfileArgs, runOptionsOf } from '../../../src/mcp/profile-input.ts';
import { ToolError } from '../../../src/mcp/results.ts';
import { makeTempDir, removeTempDirs, writeFiles } from '../../helpers/tempdir.ts';

after(removeTempDirs);

function workspace(): string {
  const root = makeTempDir('hotline-mcp-');
  writeFiles(root, {
    'package.json': JSON.stringify({ name: 'app', main: 'server.js', scripts: { start: 'node server.js' } }),
    'server.js': '',
  });
  return root;
}

test('the schema refuses malformed arguments', () => {
  for (const bad of [
    { url: '' },
    { requests: '' },
    { url: '/x', duration: 'ten' },
    { url: '/x', duration: -1 },
    { url: '/x', connections: 2.5 },
    { url: '/x', headers: { a: 1 } },
    { url: '/x', method: 'GET /' },
    { url: '/x', subWindows: 0 },
  ])
    assert.equal(ProfileArgs.safeParse(bad).success, false, JSON.stringify(bad));
  assert.equal(ProfileArgs.safeParse({ url: '/login', duration: 4, warmup: 0, subWindows: 4 }).success, true);
});

test('a run of the workspace: its entry, its settings, its runs folder', () => {
  const root = workspace();
  const o = runOptionsOf(root, {
    url: '/login',
    entry: 'server.js',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
    duration: 4,
    warmup: 1,
    subWindows: 4,
    env: { HASH_MODE: 'async' },
  });
  assert.equal(o.target.cwd, root);
  assert.equal(o.target.entry, 'server.js');
  assert.deepEqual(o.target.env, { HASH_MODE: 'async' });
  assert.equal(o.durationS, 4);
  assert.equal(o.subWindows, 4);
  assert.equal(o.runsDir, path.join(root, '.hotline', 'runs'));
  // No entry: the package's own (main, or its start script).
  assert.equal(runOptionsOf(root, { url: '/' }).target.cwd, root);
});

test('what would run anything else is refused, with why', () => {
  const root = workspace();
  const refused = (args: Parameters<typeof runOptionsOf>[1], why: RegExp): void =>
    assert.throws(
      () => runOptionsOf(root, args),
      (e: unknown) => e instanceof ToolError && why.test(e.message),
    );
  refused({ url: '/', entry: '../other/app.js' }, /outside the workspace/);
  refused({ url: '/', entry: '/usr/lib/node_modules/x.js' }, /outside the workspace/);
  refused({ url: '/', entry: 'server.js', script: 'start' }, /entry or script, not both/);
  for (const name of ['NODE_OPTIONS', 'PATH', 'LD_PRELOAD', 'NODE_PATH', 'npm_config_script_shell'])
    refused({ url: '/', env: { [name]: 'x' } }, new RegExp(`${name} is refused`));
  refused({ url: '/', env: { 'A B': 'x' } }, /not a variable name/);
});

test('a request mix of the workspace instead of a URL: read as --requests reads it; one of the two, inside the workspace', () => {
  const root = workspace();
  writeFiles(root, {
    'mix.json': JSON.stringify([
      { path: '/orders/1', weight: 2 },
      { path: '/users/2', weight: 1 },
    ]),
    'bad.json': '{"nothing": true}',
  });
  const o = runOptionsOf(root, { requests: 'mix.json' });
  assert.deepEqual(
    o.requests?.map((r) => `${r.method} ${r.path} ${r.weight}`),
    ['GET /orders/1 2', 'GET /users/2 1'],
  );
  assert.equal(o.url, '/orders/1');
  const refused = (a: Parameters<typeof runOptionsOf>[1]): string => {
    try {
      runOptionsOf(root, a);
    } catch (err) {
      assert.ok(err instanceof ToolError, String(err));
      return err.message;
    }
    assert.fail(`not refused: ${JSON.stringify(a)}`);
  };
  assert.match(refused({}), /give url or requests/);
  assert.match(refused({ url: '/x', requests: 'mix.json' }), /give url or requests/);
  assert.match(refused({ requests: '../mix.json' }), /outside the workspace/);
  assert.match(refused({ requests: 'none.json' }), /cannot read the request mix/);
  assert.match(refused({ requests: 'bad.json' }), /expected a list of requests/);
});
