// profileUnderLoad end to end: a real app, real HTTP load, the real V8 inspector. Each test
// checks what a user would read (which line is hot, which fix is named) and that nothing the run
// started is still running afterwards. Needs `npm run build` (the load runner is forked from dist/).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, test } from 'node:test';
import { profileUnderLoad, type ProfiledRun } from '../../src/core/index.ts';
import { compareReports } from '../../src/core/verdicts/compare.ts';
import type { ReportV1 } from '../../src/core/report/schema.ts';
import {
  FIXED_PORT_APP,
  HELPER_MODULE,
  JSON_HEADERS,
  LOGIN_API,
  LOGIN_BODY,
  REPO_ROOT,
  RUN_TEST_TIMEOUT,
  SHORT_RUN,
  TS_APP,
  ensureLoginApiDeps,
  freePort,
  leakCheckedRuns,
  tempDir,
} from '../helpers/integration.ts';

/** Both login-api runs use the same load, so their figures compare. */
const LOGIN_LOAD = {
  url: '/login',
  method: 'POST',
  headers: JSON_HEADERS,
  body: LOGIN_BODY,
  warmupS: 1,
  durationS: 3,
  connections: 20,
} as const;

const runs = leakCheckedRuns();
before(ensureLoginApiDeps);

/** One run with the leak guard armed for `cwd`; the report's pid is checked after the test. */
async function run(opts: Parameters<typeof profileUnderLoad>[0]): Promise<ProfiledRun> {
  runs.watch(opts.target.cwd);
  const result = await profileUnderLoad(opts);
  runs.appStarted(result.report.app.pid);
  assert.ok(result.report.app.pid > 0, 'report.app.pid is a real pid');
  return result;
}

const rel = (file: string): string => path.relative(REPO_ROOT, file);
const top = (r: ReportV1): string =>
  r.lines
    .slice(0, 5)
    .map((l) => `${rel(l.file)}:${l.line} ${l.ownPct}% ${l.function}`)
    .join('\n');
const portOf = (url: string): number => Number(new URL(url).port);

let syncReport: ReportV1 | undefined;

test(
  'login-api, sync hashing: the pbkdf2Sync line is first, named by a hint, and the run is saved without the password',
  RUN_TEST_TIMEOUT,
  async () => {
    const { runDir, report } = await run({
      target: { cwd: LOGIN_API, entry: 'server.js' },
      ...LOGIN_LOAD,
      runsDir: tempDir(),
    });

    const first = report.lines[0];
    assert.ok(first, 'the report has hot lines');
    assert.equal(first.file, path.join(LOGIN_API, 'server.js'), `hot lines:\n${top(report)}`);
    assert.equal(first.line, 35, `hot lines:\n${top(report)}`);
    assert.equal(first.function, 'checkPassword');
    assert.ok(first.ownPct >= 50, `server.js:35 owns ${first.ownPct}% (expected >= 50)`);

    const hint = report.hints.find((h) => h.api === 'crypto.pbkdf2Sync');
    assert.ok(hint, `a hint names crypto.pbkdf2Sync (hints: ${report.hints.map((h) => h.api).join(', ') || 'none'})`);
    assert.equal(hint.line, 35);
    assert.equal(hint.file, path.join(LOGIN_API, 'server.js'));

    const reportFile = path.join(runDir, 'report.json');
    assert.ok(fs.existsSync(path.join(runDir, 'profile.cpuprofile')), 'profile.cpuprofile saved');
    assert.ok(fs.existsSync(reportFile), 'report.json saved');
    const text = fs.readFileSync(reportFile, 'utf8');
    const saved = JSON.parse(text) as ReportV1;
    assert.equal(saved.version, 1);
    assert.equal(saved.id, path.basename(runDir));
    assert.ok(!text.includes('correct horse'), 'the password from the request body is not in report.json');

    assert.ok(report.load, 'load figures present');
    assert.ok(report.load.requests.perSecond > 0, 'requests were served');
    assert.equal(report.load.statusCodes['200'] > 0, true, `status codes: ${JSON.stringify(report.load.statusCodes)}`);
    assert.ok(report.eventLoop, 'event-loop figures present');
    assert.equal(typeof report.eventLoop.delayMs.p99, 'number');
    syncReport = report;
  },
);

test(
  'login-api, async hashing vs sync: the hash leaves the main thread, the event loop is free',
  RUN_TEST_TIMEOUT,
  async (t) => {
    if (!syncReport) {
      t.skip('needs the sync run of the previous test');
      return;
    }
    const { report } = await run({
      target: { cwd: LOGIN_API, entry: 'server.js', env: { HASH_MODE: 'async' } },
      ...LOGIN_LOAD,
      runsDir: tempDir(),
    });
    assert.equal(report.settings.env?.HASH_MODE, 'async', 'the env reached the app and was recorded');
    assert.ok(!report.hints.some((h) => h.api === 'crypto.pbkdf2Sync'), 'no pbkdf2Sync hint once hashing is async');

    const c = compareReports(syncReport, report);
    assert.ok(c.load, 'both runs carry load figures');
    assert.ok(c.eventLoop, 'both runs carry event-loop figures');
    // req/s roughly doubles on a quiet 2-core machine (the hash moves to the threadpool), but that
    // is a figure of the machine's load: the README and bench/ report it; here it is only shown.
    t.diagnostic(`req/s: ${c.load.requestsPerSecond.base} sync → ${c.load.requestsPerSecond.current} async`);
    // What the fix changes whatever else runs: the event loop stops waiting on the hash...
    assert.ok(
      c.eventLoop.p99.current * 5 < c.eventLoop.p99.base,
      `event-loop p99: ${c.eventLoop.p99.base} ms sync → ${c.eventLoop.p99.current} ms async`,
    );
    // ...and checkPassword's main-thread time per request falls to almost nothing.
    const check = c.functions.find((f) => f.name === 'checkPassword');
    assert.ok(
      check && check.change < 0 && check.current < check.base / 10,
      `checkPassword ms/request: ${JSON.stringify(check)}`,
    );
  },
);

test('helper-module: the random port is found, and the hot line is in lib/compress.js', RUN_TEST_TIMEOUT, async () => {
  // The app ignores PORT: record the one Hotline set, to show the run used another.
  const seen: string[] = [];
  const preload = path.join(REPO_ROOT, 'test', 'helpers', 'print-port.cjs');
  const { report } = await run({
    target: { cwd: HELPER_MODULE, entry: 'server.js', runtimeArgs: ['--require', preload] },
    url: '/compress',
    ...SHORT_RUN,
    runsDir: tempDir(),
    onOutput: (_stream, text) => seen.push(text),
  });
  const m = /hotline-test PORT=(\d+)/.exec(seen.join(''));
  assert.ok(m, `the preload printed the PORT Hotline set (output: ${seen.join('')})`);
  const appPort = portOf(report.app.url);
  assert.ok(appPort > 0);
  assert.notEqual(appPort, Number(m[1]), 'the app listened on its own port, not on PORT');
  assert.match(
    seen.join(''),
    new RegExp(`listening on http://127\\.0\\.0\\.1:${appPort}\\b`),
    'report.app.url is the port the app printed',
  );

  const first = report.lines[0];
  assert.ok(first, 'the report has hot lines');
  assert.equal(first.file, path.join(HELPER_MODULE, 'lib', 'compress.js'), `hot lines:\n${top(report)}`);
  assert.equal(first.line, 28, `hot lines:\n${top(report)}`);
  assert.equal(first.function, 'compressPayload');
  const hint = report.hints.find((h) => h.api === 'zlib.gzipSync');
  assert.ok(hint, `a hint names zlib.gzipSync (hints: ${report.hints.map((h) => h.api).join(', ') || 'none'})`);
  assert.equal(hint.line, 28);
});

test('fixed-port, path URL: the port the app chose is learnt through the inspector', RUN_TEST_TIMEOUT, async () => {
  const port = await freePort();
  const { report } = await run({
    target: { cwd: FIXED_PORT_APP, entry: 'server.js', env: { FIXED_PORT: String(port) } },
    url: '/scrypt',
    ...SHORT_RUN,
    runsDir: tempDir(),
  });
  assert.equal(portOf(report.app.url), port);
  assert.equal(new URL(report.app.url).pathname, '/scrypt');
  assert.ok(
    report.load && report.load.statusCodes['200'] > 0,
    `status codes: ${JSON.stringify(report.load?.statusCodes)}`,
  );
  const first = report.lines[0];
  assert.equal(first?.file, path.join(FIXED_PORT_APP, 'server.js'), `hot lines:\n${top(report)}`);
  assert.equal(first.line, 15, `hot lines:\n${top(report)}`);
  assert.equal(first.function, 'deriveKey');
});

test("fixed-port, full URL on the app's own port: used as given", RUN_TEST_TIMEOUT, async () => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/scrypt`;
  const { report } = await run({
    target: { cwd: FIXED_PORT_APP, entry: 'server.js', env: { FIXED_PORT: String(port) } },
    url,
    ...SHORT_RUN,
    runsDir: tempDir(),
  });
  assert.equal(report.app.url, url);
  assert.ok(
    report.load && report.load.statusCodes['200'] > 0,
    `status codes: ${JSON.stringify(report.load?.statusCodes)}`,
  );
  const first = report.lines[0];
  assert.equal(first?.file, path.join(FIXED_PORT_APP, 'server.js'), `hot lines:\n${top(report)}`);
  assert.equal(first.line, 15, `hot lines:\n${top(report)}`);
});

test('ts-app: the hot line is mapped back to src/hot.ts through the source map', RUN_TEST_TIMEOUT, async () => {
  const { report } = await run({
    target: { cwd: TS_APP, entry: 'dist/server.js' },
    url: '/work',
    ...SHORT_RUN,
    runsDir: tempDir(),
  });
  const first = report.lines[0];
  assert.ok(first, 'the report has hot lines');
  assert.equal(first.file, path.join(TS_APP, 'src', 'hot.ts'), `hot lines:\n${top(report)}`);
  assert.equal(first.line, 53, `hot lines:\n${top(report)}`);
  assert.ok(first.generated, 'the generated position is kept');
  assert.ok(first.generated.file.endsWith(path.join('dist', 'hot.js')), `generated file ${first.generated.file}`);
  assert.equal(first.generated.line, 45, 'README: src/hot.ts:53 is dist/hot.js:45');
});
