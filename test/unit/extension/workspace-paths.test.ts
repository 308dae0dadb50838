// isInWorkspace: the check that stands between a webview's "open this file" message and the
// disk. Real files, folders and symlinks in a temp folder; each case prints what it asked and
// what it got.
//
//   <tmp>/app/             the workspace folder
//   <tmp>/app/server.js    a file of it
//   <tmp>/app/lib/util.js
//   <tmp>/app/..hidden.js  a file whose name starts with two dots (not a `..` segment)
//   <tmp>/app/evil.js      symlink → <tmp>/outside/secret.js
//   <tmp>/app/secrets/     symlink → <tmp>/outside/
//   <tmp>/app/alias.js     symlink → <tmp>/app/lib/util.js (stays inside)
//   <tmp>/app2/server.js   a sibling folder whose name has the workspace's as a prefix
//   <tmp>/outside/secret.js
//   <tmp>/app/loop         symlink → itself (cannot be resolved)
//   <tmp>/app-link         symlink → <tmp>/app (the workspace opened through a link)
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { isInWorkspace } from '../../../src/extension/workspace-paths.ts';
import { makeTempDir, removeTempDirs, writeFiles } from '../../helpers/tempdir.ts';

let tmp = '';
let app = '';

before(() => {
  tmp = makeTempDir('hotline-wspaths-');
  app = path.join(tmp, 'app');
  writeFiles(tmp, {
    'app/server.js': 'server\n',
    'app/lib/util.js': 'util\n',
    'app/..hidden.js': 'hidden\n',
    'app2/server.js': 'sibling\n',
    'outside/secret.js': 'secret\n',
  });
  fs.symlinkSync(path.join(tmp, 'outside', 'secret.js'), path.join(app, 'evil.js'));
  fs.symlinkSync(path.join(tmp, 'outside'), path.join(app, 'secrets'), 'dir');
  fs.symlinkSync(path.join(app, 'lib', 'util.js'), path.join(app, 'alias.js'));
  fs.symlinkSync(app, path.join(tmp, 'app-link'), 'dir');
  fs.symlinkSync(path.join(app, 'loop'), path.join(app, 'loop'));
});

after(removeTempDirs);

/** Asks, prints the question and the answer, and checks it. */
function expect(t: { diagnostic(m: string): void }, file: string, folders: string[], want: boolean): void {
  const got = isInWorkspace(file, folders);
  const show = (p: string): string => JSON.stringify(p.split(tmp).join('<tmp>'));
  t.diagnostic(`isInWorkspace(${show(file)}, [${folders.map(show).join(', ')}]) → ${got}`);
  assert.equal(got, want, `${file} in [${folders.join(', ')}]`);
}

test('a file of the workspace is inside; one in a subfolder too; a name starting with ".." is just a name', (t) => {
  expect(t, path.join(app, 'server.js'), [app], true);
  expect(t, path.join(app, 'lib', 'util.js'), [app], true);
  expect(t, path.join(app, '..hidden.js'), [app], true);
  // Not on disk (yet): the check is about the place, openInWorkspace checks that it exists.
  expect(t, path.join(app, 'lib', 'new.js'), [app], true);
});

test('a file outside every folder is refused', (t) => {
  expect(t, path.join(tmp, 'outside', 'secret.js'), [app], false);
  expect(t, '/etc/passwd', [app], false);
  expect(t, path.join(app, 'server.js'), [], false);
});

test('any ".." segment is refused, even one that would resolve back inside', (t) => {
  // Written by hand: path.join would normalise the `..` away.
  expect(t, `${app}/../outside/secret.js`, [app], false);
  expect(t, `${app}/lib/../server.js`, [app], false);
  expect(t, `${app}/lib/..`, [app], false);
  expect(t, `${app}/lib/../../app/server.js`, [app], false);
  expect(t, `${app}\\..\\outside\\secret.js`, [app], false);
});

test('a symlink inside the workspace that points outside is refused (file or folder)', (t) => {
  t.diagnostic(`<tmp>/app/evil.js → ${fs.readlinkSync(path.join(app, 'evil.js')).replace(tmp, '<tmp>')}`);
  expect(t, path.join(app, 'evil.js'), [app], false);
  expect(t, path.join(app, 'secrets', 'secret.js'), [app], false);
  // Through the outside-pointing folder link, even a file that does not exist yet.
  expect(t, path.join(app, 'secrets', 'new.js'), [app], false);
  // A symlink that stays inside is fine.
  expect(t, path.join(app, 'alias.js'), [app], true);
});

test('the workspace folder itself is not a file of it', (t) => {
  expect(t, app, [app], false);
  expect(t, `${app}${path.sep}`, [app], false);
  expect(t, `${app}${path.sep}.`, [app], false);
});

test('a sibling folder with a common prefix (app vs app2) is outside', (t) => {
  expect(t, path.join(tmp, 'app2', 'server.js'), [app], false);
  expect(t, path.join(tmp, 'app2'), [app], false);
  // …and inside when it is itself a workspace folder.
  expect(t, path.join(tmp, 'app2', 'server.js'), [app, path.join(tmp, 'app2')], true);
});

test('relative paths are refused, whatever the current directory', (t) => {
  const cwd = process.cwd();
  process.chdir(app);
  try {
    expect(t, 'server.js', [app], false);
    expect(t, './server.js', [app], false);
    expect(t, 'lib/util.js', [app], false);
    expect(t, '', [app], false);
  } finally {
    process.chdir(cwd);
  }
  // A relative workspace folder is not a folder to compare with either.
  expect(t, path.join(app, 'server.js'), ['app'], false);
});

test('a workspace opened through a symlink: its files match by real path, either spelling', (t) => {
  const link = path.join(tmp, 'app-link');
  expect(t, path.join(link, 'server.js'), [link], true);
  expect(t, path.join(app, 'server.js'), [link], true);
  expect(t, path.join(link, 'server.js'), [app], true);
  expect(t, path.join(link, 'evil.js'), [link], false);
});

test('a NUL byte in the path, or a symlink that cannot be resolved, is refused', (t) => {
  expect(t, `${app}/server.js\0.png`, [app], false);
  expect(t, path.join(app, 'loop'), [app], false);
  expect(t, path.join(app, 'loop', 'x.js'), [app], false);
});
