// Records the runs the page and server tests read, so those tests assert on fixed data instead of
// on a live run a busy machine shapes differently each time:
// - test/fixtures/runs/NAME/: files of a run folder (read by test/helpers/recorded.ts);
// - test/webview/fixtures/NAME.json: a report.json shrunk to what the page shows first (read by
//   test/webview/report-fixtures.ts; NAME.timeline.json beside it where the run's timeline is kept).
//
//   npm run build && npm run setup:examples && node scripts/record-fixtures.mjs [NAME…]
//   HOTLINE_FIXTURES_OUT=DIR node scripts/record-fixtures.mjs …   writes under DIR instead (a trial)
//
// Each recording is a real `hotline profile` (real app, real load, real inspector); what the tests
// read is copied from its run folder with the checkout's root written as $REPO (the loaders put
// the reading checkout's root back) and run files over 100 KB gzipped.
// Then run the webview and server tiers: their assertions are the check that a new recording
// shows what they expect (e.g. a stall well inside the profile).
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as zlib from 'node:zlib';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TRIAL = process.env.HOTLINE_FIXTURES_OUT;
const RUNS_OUT = TRIAL ? path.join(TRIAL, 'runs') : path.join(ROOT, 'test', 'fixtures', 'runs');
const REPORTS_OUT = TRIAL ? path.join(TRIAL, 'reports') : path.join(ROOT, 'test', 'webview', 'fixtures');
const LOGIN_BODY = JSON.stringify({ email: 'alice@example.com', password: 'correct horse battery staple' });
const LOGIN = [
  ...['examples/login-api', '--entry', 'server.js', '--url', '/login', '--method', 'POST'],
  ...['--header', 'content-type:application/json', '--body', LOGIN_BODY],
  ...['--connections', '20', '--duration', '8', '--warmup', '1'],
];
const SHORT = ['--connections', '8', '--duration', '2', '--warmup', '1'];

const STALL = ['test/apps/stall', '--entry', 'server.js', '--url', '/', '--warmup', '1'];
const QUICK = ['--duration', '2', '--warmup', '1', '--connections', '8', '--json'];

/**
 * name → the `hotline profile` arguments and what its tests read: `files` of the run folder
 * (test/fixtures/runs/NAME), or `report` (test/webview/fixtures/NAME.json, shrunk; `timeline`: its
 * timeline.json beside it). `app`: an app started first, its pid put in for PID (attach).
 */
const RECORDINGS = {
  // test/webview/report.test.ts: the pbkdf2Sync run and its async pair (the baseline view): 8 s, so
  // 4 sub-windows a side, the fewest a verdict is given on (docs/measurement.md).
  'login-sync': { args: LOGIN, files: ['report.json'] },
  'login-async': { args: [...LOGIN, '--env', 'HASH_MODE=async'], files: ['report.json'] },
  // test/webview/timeline.test.ts: test/apps/stall in one continuous profiled window; app.log has
  // the app's own `stall <start> <end>` lines and the profile its clock (test/helpers/stalls.ts).
  'stall-timeline': {
    args: [...STALL, '--connections', '10', '--duration', '4', '--sub-windows', '1'],
    files: ['report.json', 'timeline.json', 'app.log', 'profile.cpuprofile'],
  },
  // test/server/extras.test.ts: whole run folders, analyzed anew by the language server.
  'worker-app': { args: ['test/apps/worker-app', '--entry', 'server.js', '--url', '/hash', ...SHORT], files: 'all' },
  'heap-app': {
    args: ['test/apps/heap-app', '--entry', 'server.js', '--url', '/rows', '--heap'],
    extra: ['--connections', '4', '--duration', '1', '--warmup', '1'],
    files: 'all',
  },
  // test/webview/report-extras.test.ts and report-waiting.test.ts (shrunk reports).
  'workers-heap': {
    args: ['test/apps/worker-app', '--entry', 'server.js', '--url', '/hash?text=hotline', ...QUICK, '--heap'],
    report: true,
  },
  'workers-base': {
    args: [
      'test/apps/worker-app',
      '--entry',
      'server.js',
      '--url',
      '/hash?text=hotline',
      ...QUICK,
      '--env',
      'ROUNDS=100000',
    ],
    report: true,
  },
  'heap-app-report': { name: 'heap-app', args: ['test/apps/heap-app', '--url', '/', ...QUICK, '--heap'], report: true },
  'cluster-app': {
    args: ['test/apps/cluster-app', '--entry', 'server.js', '--url', '/', ...QUICK, '--connections', '4'],
    report: true,
  },
  'threadpool-app': {
    args: ['test/apps/threadpool', '--entry', 'server.js', '--env', 'UV_THREADPOOL_SIZE=2', '--url', '/'],
    extra: ['--duration', '4', '--warmup', '1', '--connections', '32', '--json'],
    report: true,
  },
  // test/webview/report-routes.test.ts: a 1:2:1 request mix of test/apps/request-mix.
  'request-mix': {
    args: ['test/apps/request-mix', '--entry', 'server.js', '--requests', 'test/apps/request-mix/mix.json'],
    extra: ['--env', 'UNIT_ITERATIONS=1500000', '--duration', '4', '--warmup', '1', '--connections', '4', '--json'],
    report: true,
  },
  'stall-app': {
    args: [...STALL, '--env', 'STALL_MS=200', '--duration', '4', '--connections', '8', '--json'],
    report: true,
    timeline: true,
  },
  'external-unparsed': {
    args: ['test/apps/fixed-port', '--entry', 'server.js', '--env', 'FIXED_PORT=45872'],
    extra: [
      ...['--url', 'http://127.0.0.1:45872/scrypt', '--duration', '2', '--warmup', '1', '--json'],
      ...['--load-command', `node ${path.join(ROOT, 'test/apps/external-load/hammer.cjs')} {url} 2`],
    ],
    report: true,
  },
  'attach-wrk': {
    app: { dir: 'test/apps/fixed-port', env: { FIXED_PORT: '45871' } },
    args: ['test/apps/fixed-port', '--attach', 'pid:PID', '--url', 'http://127.0.0.1:45871/scrypt'],
    extra: ['--duration', '2', '--warmup', '1', '--load-command', 'wrk -t1 -c4 -d2s {url}', '--json'],
    report: true,
  },
};

/** Shrinks a report for the page's fixtures: long lists cut to what the page shows first. */
function shrink(r) {
  const main = r.functions.filter((f) => f.thread === undefined).slice(0, 30);
  const workers = r.functions.filter((f) => f.thread === 'worker').slice(0, 15);
  const children = r.functions.filter((f) => f.thread === 'process').slice(0, 15);
  r.functions = [...main, ...workers, ...children].map(({ callers, callees, ...f }) => f);
  r.lines = r.lines.map((l) => ({ ...l, callees: l.callees.slice(0, 3) }));
  if (r.heap) r.heap = { ...r.heap, lines: r.heap.lines.slice(0, 15), functions: r.heap.functions.slice(0, 20) };
  delete r.baseline;
  return r;
}

/** The checkout's root as $REPO (its file URL first: on a root with spaces it differs from the path). */
const portable = (text) => text.split(pathToFileURL(ROOT).href).join('file://$REPO').split(ROOT).join('$REPO');

/** Starts an app to attach to; resolves once it says it listens. */
function startApp({ dir, env }) {
  const child = spawn(process.execPath, ['server.js'], {
    cwd: path.join(ROOT, dir),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${dir} exited (${code}) before it listened`)));
    child.stdout.setEncoding('utf8').on('data', (s) => {
      if (/listening/.test(s)) resolve(child);
    });
  });
}

const GZIP_OVER = 100 * 1024;

async function record(name) {
  const { args, extra = [], files, report, timeline, app: appSpec } = RECORDINGS[name];
  const runs = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-record-'));
  const app = appSpec ? await startApp(appSpec) : undefined;
  try {
    const argv = [...args, ...extra].map((a) => (app ? a.replace('PID', String(app.pid)) : a));
    const cli = spawnSync(process.execPath, ['bin/hotline.js', 'profile', ...argv, '--out', runs], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    if (cli.status !== 0) throw new Error(`${name}: hotline profile exited ${cli.status}:\n${cli.stderr}`);
    const [id] = fs.readdirSync(runs);
    const runDir = path.join(runs, id);
    if (report) {
      const out = RECORDINGS[name].name ?? name;
      fs.mkdirSync(REPORTS_OUT, { recursive: true });
      const shrunk = shrink(JSON.parse(fs.readFileSync(path.join(runDir, 'report.json'), 'utf8')));
      fs.writeFileSync(path.join(REPORTS_OUT, `${out}.json`), `${portable(JSON.stringify(shrunk, null, 1))}\n`);
      if (timeline)
        fs.writeFileSync(
          path.join(REPORTS_OUT, `${out}.timeline.json`),
          portable(fs.readFileSync(path.join(runDir, 'timeline.json'), 'utf8')),
        );
      console.log(`${name}: ${path.relative(ROOT, path.join(REPORTS_OUT, `${out}.json`))} (run ${id})`);
      return;
    }
    const dest = path.join(RUNS_OUT, name);
    fs.rmSync(dest, { recursive: true, force: true });
    fs.mkdirSync(dest, { recursive: true });
    const names = files === 'all' ? fs.readdirSync(runDir) : files;
    let bytes = 0;
    for (const file of names) {
      const text = portable(fs.readFileSync(path.join(runDir, file), 'utf8'));
      const data = Buffer.byteLength(text) > GZIP_OVER ? zlib.gzipSync(text, { level: 9 }) : Buffer.from(text);
      const out = data.length < Buffer.byteLength(text) ? `${file}.gz` : file;
      fs.writeFileSync(path.join(dest, out), data);
      bytes += data.length;
    }
    console.log(`${name}: ${names.length} files, ${(bytes / 1024).toFixed(0)} KB (run ${id})`);
  } finally {
    app?.kill();
    fs.rmSync(runs, { recursive: true, force: true });
  }
}

const names = process.argv.slice(2);
for (const name of names) if (!(name in RECORDINGS)) throw new Error(`no recording named ${name}`);
for (const name of names.length ? names : Object.keys(RECORDINGS)) await record(name);
