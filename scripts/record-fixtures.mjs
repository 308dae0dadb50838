// Records the runs the page and server tests read (test/fixtures/runs/), so those tests assert on
// fixed data instead of on a live run a busy machine shapes differently each time.
//
//   npm run build && npm run setup:examples && node scripts/record-fixtures.mjs [NAME…]
//
// Each recording is a real `hotline profile` (real app, real load, real inspector); the files the
// tests read are copied from its run folder with the checkout's root written as $REPO (the loader,
// test/helpers/recorded.ts, puts the reading checkout's root back) and files over 100 KB gzipped.
// Then run the webview and server tiers: their assertions are the check that a new recording
// shows what they expect (e.g. a stall well inside the profile).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as zlib from 'node:zlib';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'test', 'fixtures', 'runs');
const LOGIN_BODY = JSON.stringify({ email: 'alice@example.com', password: 'correct horse battery staple' });
const LOGIN = [
  ...['examples/login-api', '--entry', 'server.js', '--url', '/login', '--method', 'POST'],
  ...['--header', 'content-type:application/json', '--body', LOGIN_BODY],
  ...['--connections', '20', '--duration', '2', '--warmup', '1'],
];
const SHORT = ['--connections', '8', '--duration', '2', '--warmup', '1'];

/** name → the `hotline profile` arguments and the run files its tests read. */
const RECORDINGS = {
  // test/webview/report.test.ts: the pbkdf2Sync run and its async pair (the baseline view).
  'login-sync': { args: LOGIN, files: ['report.json'] },
  'login-async': { args: [...LOGIN, '--env', 'HASH_MODE=async'], files: ['report.json'] },
  // test/webview/timeline.test.ts: test/apps/stall in one continuous profiled window; app.log has
  // the app's own `stall <start> <end>` lines and the profile its clock (test/helpers/stalls.ts).
  'stall-timeline': {
    args: ['test/apps/stall', '--entry', 'server.js', '--url', '/', '--connections', '10', '--duration', '4'],
    extra: ['--sub-windows', '1', '--warmup', '1'],
    files: ['report.json', 'timeline.json', 'app.log', 'profile.cpuprofile'],
  },
  // test/server/extras.test.ts: whole run folders, analyzed anew by the language server.
  'worker-app': { args: ['test/apps/worker-app', '--entry', 'server.js', '--url', '/hash', ...SHORT], files: 'all' },
  'heap-app': {
    args: ['test/apps/heap-app', '--entry', 'server.js', '--url', '/rows', '--heap'],
    extra: ['--connections', '4', '--duration', '1', '--warmup', '1'],
    files: 'all',
  },
};

const GZIP_OVER = 100 * 1024;

function record(name) {
  const { args, extra = [], files } = RECORDINGS[name];
  const runs = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-record-'));
  try {
    const cli = spawnSync(process.execPath, ['bin/hotline.js', 'profile', ...args, ...extra, '--out', runs], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    if (cli.status !== 0) throw new Error(`${name}: hotline profile exited ${cli.status}:\n${cli.stderr}`);
    const [id] = fs.readdirSync(runs);
    const runDir = path.join(runs, id);
    const dest = path.join(OUT, name);
    fs.rmSync(dest, { recursive: true, force: true });
    fs.mkdirSync(dest, { recursive: true });
    const names = files === 'all' ? fs.readdirSync(runDir) : files;
    let bytes = 0;
    for (const file of names) {
      // The file URL first: on a root with spaces it differs from the path.
      const text = fs
        .readFileSync(path.join(runDir, file), 'utf8')
        .split(pathToFileURL(ROOT).href)
        .join('file://$REPO')
        .split(ROOT)
        .join('$REPO');
      const data = Buffer.byteLength(text) > GZIP_OVER ? zlib.gzipSync(text, { level: 9 }) : Buffer.from(text);
      const out = data.length < Buffer.byteLength(text) ? `${file}.gz` : file;
      fs.writeFileSync(path.join(dest, out), data);
      bytes += data.length;
    }
    console.log(`${name}: ${names.length} files, ${(bytes / 1024).toFixed(0)} KB (run ${id})`);
  } finally {
    fs.rmSync(runs, { recursive: true, force: true });
  }
}

const names = process.argv.slice(2);
for (const name of names) if (!(name in RECORDINGS)) throw new Error(`no recording named ${name}`);
for (const name of names.length ? names : Object.keys(RECORDINGS)) record(name);
