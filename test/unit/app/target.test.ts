// target.ts: what to start: --entry, package.json main, an npm script of the form
// `[VAR=value …] node [flags] FILE [args]` (started by Hotline itself), any other script or
// --command (run as it stands); what cannot name an app is refused with a TargetError.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { TargetError, resolveTarget } from '../../../src/core/app/target.ts';
import { makeTempDir, removeTempDirs, writeFiles } from '../../helpers/tempdir.ts';

after(removeTempDirs);

/** An app folder with this package.json (object, raw text, or none) and a server.js. */
function app(pkg?: object | string): string {
  const dir = makeTempDir('hotline-target-');
  const files: Record<string, string> = { 'server.js': '' };
  if (pkg !== undefined) files['package.json'] = typeof pkg === 'string' ? pkg : JSON.stringify(pkg);
  writeFiles(dir, files);
  return dir;
}

const withScript = (start: string): string => app({ scripts: { start, dev: 'nodemon server.js' } });

function refuses(fn: () => unknown, message: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof TargetError, String(err));
    assert.equal(err.name, 'TargetError');
    assert.match(err.message, message);
    return true;
  });
}

describe('resolveTarget', () => {
  test('an explicit entry wins, with the caller’s args, flags and env', () => {
    const dir = app({ main: 'other.js', scripts: { start: 'nodemon x.js' } });
    const spec = resolveTarget(dir, {
      entry: 'server.js',
      args: ['--a'],
      runtimeArgs: ['--trace-gc'],
      env: { A: '1' },
      nodePath: '/usr/bin/node',
    });
    assert.deepEqual(spec, {
      cwd: dir,
      entry: 'server.js',
      args: ['--a'],
      runtimeArgs: ['--trace-gc'],
      env: { A: '1' },
      nodePath: '/usr/bin/node',
    });
  });

  test('a relative folder is made absolute', () => {
    const dir = app();
    const rel = path.relative(process.cwd(), dir);
    assert.equal(resolveTarget(rel, { entry: 'server.js' }).cwd, dir);
  });

  test('package.json main, when the file exists', () => {
    const dir = app({ main: 'server.js', scripts: { start: 'node other.js' } });
    const spec = resolveTarget(dir, {});
    assert.equal(spec.entry, 'server.js');
    assert.deepEqual(spec.args, []);
  });

  test('main naming a missing file falls back to the start script', () => {
    const dir = app({ main: 'index.js', scripts: { start: 'node server.js' } });
    assert.equal(resolveTarget(dir, {}).entry, 'server.js');
  });

  test('an npm script `node server.js`', () => {
    const spec = resolveTarget(withScript('node server.js'), { script: 'start' });
    assert.equal(spec.entry, 'server.js');
    assert.deepEqual([spec.runtimeArgs, spec.args, spec.env], [[], [], {}]);
  });

  test('`NODE_ENV=production node --max-old-space-size=512 server.js --flag`: env, node flags, entry, app args', () => {
    const spec = resolveTarget(withScript('NODE_ENV=production node --max-old-space-size=512 server.js --flag'), {
      script: 'start',
    });
    assert.deepEqual(spec.env, { NODE_ENV: 'production' });
    assert.deepEqual(spec.runtimeArgs, ['--max-old-space-size=512']);
    assert.equal(spec.entry, 'server.js');
    assert.deepEqual(spec.args, ['--flag']);
  });

  test('flags that take a separate value keep it; the caller’s additions come after the script’s', () => {
    const spec = resolveTarget(withScript('PORT=3000 node -r dotenv/config --import ./tracing.mjs server.js a "b c"'), {
      script: 'start',
      runtimeArgs: ['--trace-gc'],
      args: ['--verbose'],
      env: { PORT: '4000', EXTRA: '1' },
    });
    assert.deepEqual(spec.runtimeArgs, ['-r', 'dotenv/config', '--import', './tracing.mjs', '--trace-gc']);
    assert.equal(spec.entry, 'server.js');
    assert.deepEqual(spec.args, ['a', 'b c', '--verbose']);
    assert.deepEqual(spec.env, { PORT: '4000', EXTRA: '1' }, 'the caller’s env wins');
  });

  test('the start script is used when there is no main', () => {
    assert.equal(resolveTarget(withScript('node server.js'), {}).entry, 'server.js');
  });

  test('`nodemon server.js` runs as it stands, named as the npm script it is', () => {
    const spec = resolveTarget(withScript('node server.js'), { script: 'dev', args: ['--verbose', 'a b'] });
    assert.equal(spec.command, "nodemon server.js --verbose 'a b'", 'the app args are quoted for the shell');
    assert.equal(spec.script, 'dev');
    assert.equal(spec.entry, '');
  });

  test('`node a.js && node b.js` and other shell syntax run as they stand', () => {
    for (const cmd of [
      'node a.js && node b.js',
      'node server.js | tee log',
      'node server.js > log.txt',
      'node $(pick).js',
    ]) {
      assert.equal(resolveTarget(withScript(cmd), { script: 'start' }).command, cmd);
    }
  });

  test('--command runs any line; an empty one is refused', () => {
    const spec = resolveTarget(app(), { command: 'npx tsx watch src/server.ts' });
    assert.equal(spec.command, 'npx tsx watch src/server.ts');
    assert.equal(spec.script, undefined);
    refuses(() => resolveTarget(app(), { command: '  ' }), /--command is empty/);
  });

  test('`node` with no script, a missing script, no way to tell, an invalid package.json', () => {
    refuses(() => resolveTarget(withScript('node --inspect'), { script: 'start' }), /names no script/);
    refuses(() => resolveTarget(withScript('node server.js'), { script: 'serve' }), /no script "serve"/);
    refuses(() => resolveTarget(app(), {}), /--entry FILE, --script NAME/);
    refuses(() => resolveTarget(app({ name: 'x' }), {}), /--entry FILE, --script NAME/);
    refuses(() => resolveTarget(app('{ not json'), {}), /not valid JSON/);
  });

  test('a quoted value in VAR=\'…\' or --opt="…" is unquoted like a shell would', {}, () => {
    assert.deepEqual(
      resolveTarget(withScript("NODE_OPTIONS='--max-old-space-size=512' node server.js"), { script: 'start' }).env,
      { NODE_OPTIONS: '--max-old-space-size=512' },
    );
    assert.deepEqual(resolveTarget(withScript('FOO="a b" node server.js'), { script: 'start' }).env, { FOO: 'a b' });
    assert.deepEqual(resolveTarget(withScript('node server.js --name="a b"'), { script: 'start' }).args, [
      '--name=a b',
    ]);
  });
});
