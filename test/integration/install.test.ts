// The CLI as a user installs it: `npm pack` of a copy of the checkout (the files git knows, as a
// fresh clone has them, with this checkout's node_modules: `npm install` already ran), then
// `npm install -g` of the tarball into an empty prefix, then `hotline profile` of an app in a
// folder outside the checkout, which must name the app's hot line. The tarball has no
// dependencies (everything it runs is bundled in dist/), so the install is run `--offline` with
// an empty npm cache: it fetches nothing from a registry. Likewise `npx ./hotline-*.tgz`.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { ReportV1 } from '../../src/core/report/schema.ts';
import { REPO_ROOT, markedLine, removeTempDirs, tempDir } from '../helpers/integration.ts';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const STEP_TIMEOUT_MS = 240_000;

/** What the tarball holds, and nothing else: the launcher, the three bundles it runs, report.json's schema. */
const SHIPPED = [
  'CHANGELOG.md',
  'LICENSE',
  'README.md',
  'bin/hotline.js',
  'dist/capture-sender.js',
  'dist/cli.js',
  'dist/load-runner.js',
  'dist/report.schema.json',
  'package.json',
];

const APP = `'use strict';
// A small app the installed CLI profiles: one line does nearly all the work.
const crypto = require('node:crypto');
const http = require('node:http');

function hash(password) {
  return crypto.pbkdf2Sync(password, 'salt', 2000, 64, 'sha512'); // HOT
}

http
  .createServer((req, res) => {
    res.end(hash('secret').toString('hex').slice(0, 8));
  })
  .listen(Number(process.env.PORT) || 0, '127.0.0.1');
`;

interface Done {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment without what an enclosing `npm test` exports (npm_*, NODE): a user's shell. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { NO_COLOR: '1', ...extra };
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(npm_|NODE$)/i.test(k) && !(k in env)) env[k] = v;
  }
  return env;
}

/** Runs a command to its end, killed (and failing) after STEP_TIMEOUT_MS. */
function run(cmd: string, args: string[], cwd: string, env = userEnv()): Promise<Done> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${cmd} ${args.join(' ')} did not end in ${STEP_TIMEOUT_MS / 1000} s:\n${stderr.slice(-2000)}`));
    }, STEP_TIMEOUT_MS);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const show = (r: Done): string =>
  `exit ${r.code}\n--- stdout ---\n${r.stdout.slice(-3000)}\n--- stderr ---\n${r.stderr.slice(-3000)}`;

/** A copy of the checkout's files as git sees them (tracked and not ignored), no build output. */
function copyCheckout(to: string): void {
  const ls = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  assert.equal(ls.status, 0, `git ls-files failed: ${ls.stderr}`);
  for (const rel of ls.stdout.split('\0').filter(Boolean)) {
    const from = path.join(REPO_ROOT, rel);
    if (!fs.existsSync(from)) continue; // deleted in the work tree, not yet in git
    fs.mkdirSync(path.dirname(path.join(to, rel)), { recursive: true });
    fs.copyFileSync(from, path.join(to, rel));
  }
  fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(to, 'node_modules'), 'dir');
}

let tarball = '';

before(async () => {
  const checkout = tempDir('hotline-clone-');
  copyCheckout(checkout);
  assert.ok(!fs.existsSync(path.join(checkout, 'dist')), 'the copy starts without a build');
  const manifest = fs.readFileSync(path.join(checkout, 'package.json'), 'utf8');
  const out = tempDir('hotline-pack-');
  const r = await run(NPM, ['pack', '--pack-destination', out], checkout);
  assert.equal(r.code, 0, `npm pack failed:\n${show(r)}`);
  const made = fs.readdirSync(out).filter((f) => f.endsWith('.tgz'));
  assert.deepEqual(made.length, 1, `one tarball: ${made.join(', ')}`);
  tarball = path.join(out, made[0]);
  assert.equal(
    fs.readFileSync(path.join(checkout, 'package.json'), 'utf8'),
    manifest,
    "npm pack leaves the checkout's package.json as it was",
  );
});
after(removeTempDirs);

test('the tarball holds the CLI and what it runs, no sources or tests, no install script', async () => {
  const list = spawnSync('tar', ['-tzf', tarball], { encoding: 'utf8' });
  assert.equal(list.status, 0, list.stderr);
  const files = list.stdout
    .split('\n')
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ''))
    .sort();
  assert.deepEqual(files, SHIPPED);
  const shipped = spawnSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' });
  const manifest = JSON.parse(shipped.stdout) as { scripts: Record<string, string>; dependencies?: object };
  for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) {
    assert.equal(manifest.scripts[script], undefined, `the tarball's package.json has no ${script} script`);
  }
  assert.equal(manifest.dependencies, undefined, 'everything the CLI runs is bundled: nothing to fetch');
});

test(
  'npm install -g of the tarball into an empty prefix gives a hotline that profiles an app outside the checkout',
  { timeout: 3 * STEP_TIMEOUT_MS },
  async () => {
    const prefix = tempDir('hotline-prefix-');
    const cache = tempDir('hotline-npm-cache-');
    const install = await run(
      NPM,
      ['install', '-g', '--prefix', prefix, '--cache', cache, '--offline', '--no-audit', '--no-fund', tarball],
      path.dirname(tarball),
    );
    assert.equal(install.code, 0, `npm install -g failed:\n${show(install)}`);
    assert.doesNotMatch(install.stderr, /install-scripts|prepare/, 'no install script for the user to allow');
    const bin = path.join(prefix, 'bin', 'hotline');
    assert.ok(fs.existsSync(bin), `${bin} exists`);

    const app = tempDir('hotline-user-app-');
    fs.writeFileSync(path.join(app, 'server.js'), APP);
    const out = tempDir('hotline-user-runs-');
    const r = await run(
      bin,
      [
        'profile',
        '.',
        '--entry',
        'server.js',
        '--url',
        '/',
        '--connections',
        '4',
        '--duration',
        '2',
        '--warmup',
        '1',
      ].concat(['--out', out, '--json']),
      app,
    );
    assert.equal(r.code, 0, `hotline profile failed:\n${show(r)}`);
    const report = JSON.parse(r.stdout) as ReportV1;
    const first = report.lines[0];
    assert.ok(first, `a hot line:\n${show(r)}`);
    assert.equal(first.file, path.join(app, 'server.js'), show(r));
    assert.equal(first.line, markedLine(path.join(app, 'server.js'), 'HOT'));
    assert.ok((report.load?.requests.total ?? 0) > 0, 'the app was loaded');
  },
);

test('npx ./hotline-*.tgz runs the CLI without installing it', { timeout: STEP_TIMEOUT_MS }, async () => {
  const cache = tempDir('hotline-npx-cache-');
  const r = await run(
    NPX,
    ['--yes', '--cache', cache, '--offline', `./${path.basename(tarball)}`, 'help'],
    path.dirname(tarball),
  );
  assert.equal(r.code, 0, show(r));
  assert.match(r.stdout + r.stderr, /hotline profile \[DIR\]/);
});
