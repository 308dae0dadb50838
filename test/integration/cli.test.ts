// The built CLI (`node bin/hotline.js`, bundled in dist/cli.js by `npm run build`) as a user runs
// it: exit codes, what goes to stdout and stderr, and Ctrl-C. Runs real apps under real load.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import Ajv from 'ajv';
import type { ReportV1 } from '../../src/core/report/schema.ts';
import {
  HELPER_MODULE,
  LOGIN_API,
  LOGIN_PROFILE_ARGS,
  LeakGuard,
  REPO_ROOT,
  RUN_TEST_TIMEOUT,
  assertBuilt,
  descendantsOf,
  ensureLoginApiDeps,
  isRunning,
  lines,
  removeTempDirs,
  runCli,
  startCli,
  tempDir,
  type CliResult,
  type ProcInfo,
} from '../helpers/integration.ts';

const SHORT = ['--connections', '10', '--duration', '2', '--warmup', '1'];
// A verdict needs 4 sub-windows a side (verdicts/verdict.ts MIN_SUB_WINDOWS): 4 of 0.5 s keep the run 2 s.
const LOGIN_ARGS = [...LOGIN_PROFILE_ARGS, ...SHORT, '--sub-windows', '4'];

const show = (r: CliResult): string =>
  `exit ${r.code}${r.signal ? ` (${r.signal})` : ''}\n--- stdout ---\n${r.stdout.slice(-3000)}\n--- stderr ---\n${r.stderr.slice(-3000)}`;

/** One line on stderr, starting with "hotline:". */
function assertOneErrorLine(r: CliResult): void {
  const err = lines(r.stderr);
  assert.equal(err.length, 1, `exactly one line on stderr:\n${show(r)}`);
  assert.match(err[0], /^hotline: \S/);
}

before(() => {
  assertBuilt();
  ensureLoginApiDeps();
});
after(removeTempDirs);

/**
 * A run made once, by whichever test needs it first: the tests that read it (compare, analyze,
 * the baseline and gate tests) do not depend on another test's order, name filter or success.
 */
function shared<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

/**
 * What the app printed in the run kept in `out`, for a failure message: a run that fails or ends
 * partial (an app that died: "exit code 7" once in CI) then says what the app said.
 */
function appLogOf(out: string): string {
  const runs = fs.existsSync(out) ? fs.readdirSync(out) : [];
  const log = runs.map((id) => path.join(out, id, 'app.log')).find((f) => fs.existsSync(f));
  return log ? `\n--- app.log ---\n${fs.readFileSync(log, 'utf8').slice(-3000)}` : '\n(no app.log)';
}

/** The shipped JSON Schema of report.json (dist/, written by `npm run build`): a report fits it or the test says where not. */
function assertFitsSchema(report: unknown, what: string): void {
  const schema = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'dist', 'report.schema.json'), 'utf8')) as object;
  const validate = new Ajv({ allErrors: true }).compile(schema);
  assert.ok(
    validate(report),
    `${what} does not fit dist/report.schema.json: ${JSON.stringify(validate.errors?.slice(0, 5))}`,
  );
}

/** `hotline profile --json` of the login API's sync hash: its output and its run folder. */
const syncRun = shared(async () => {
  const out = tempDir();
  const r = await runCli([...LOGIN_ARGS, '--out', out, '--json']);
  assert.equal(r.code, 0, `the shared sync run failed:\n${show(r)}${appLogOf(out)}`);
  const report = JSON.parse(r.stdout) as ReportV1;
  return { r, report, runDir: path.join(out, report.id) };
});

/** The same in text mode. */
const textRun = shared(async () => {
  const out = tempDir();
  const r = await runCli([...LOGIN_ARGS, '--out', out]);
  assert.equal(r.code, 0, `the shared text-mode run failed:\n${show(r)}${appLogOf(out)}`);
  const ids = fs.readdirSync(out);
  assert.equal(ids.length, 1, `one run saved in ${out}`);
  return { r, runDir: path.join(out, ids[0]) };
});

/** The async fix profiled against the sync run as its baseline. */
const asyncRun = shared(async () => {
  const { runDir: base } = await syncRun();
  const out = tempDir();
  const r = await runCli([...LOGIN_ARGS, '--env', 'HASH_MODE=async', '--out', out, '--baseline', base]);
  assert.equal(r.code, 0, `the shared async run failed:\n${show(r)}${appLogOf(out)}`);
  const [id] = fs.readdirSync(out);
  return { r, base, runDir: path.join(out, id) };
});

test('profile --json prints report.json on stdout, pbkdf2Sync line first, exit 0', RUN_TEST_TIMEOUT, async () => {
  const guard = new LeakGuard(LOGIN_API);
  const { r, report, runDir } = await syncRun();
  assert.equal(report.version, 1);
  const first = report.lines[0];
  assert.equal(first?.file, path.join(LOGIN_API, 'server.js'), show(r));
  assert.equal(first.line, 35);
  assert.ok(
    report.hints.some((h) => h.api === 'crypto.pbkdf2Sync' && h.line === 35),
    'the pbkdf2Sync hint',
  );
  assert.ok(!r.stdout.includes('correct horse'), 'the password is redacted');
  assert.match(r.stderr, /^hotline: /m, 'progress goes to stderr');
  assert.ok(fs.existsSync(path.join(runDir, 'report.json')), `run saved in ${runDir}`);
  assertFitsSchema(report, 'the --json report');
  guard.assertClean([report.app.pid]);
});

test('profile in text mode prints the hot-line table and the hint', RUN_TEST_TIMEOUT, async () => {
  const guard = new LeakGuard(LOGIN_API);
  const { r } = await textRun();
  assert.match(r.stdout, /server\.js:35\b/, show(r));
  assert.match(r.stdout, /crypto\.pbkdf2Sync/, show(r));
  assert.match(r.stdout, /req\/s/);
  assert.ok(!r.stdout.includes('correct horse'), 'the password is not printed');
  guard.assertClean();
});

test('compare of the two runs: exit 0, req/s side by side', RUN_TEST_TIMEOUT, async () => {
  const a = (await syncRun()).runDir;
  const b = (await textRun()).runDir;
  const r = await runCli(['compare', a, b]);
  assert.equal(r.code, 0, show(r));
  assert.match(r.stdout, /req\/s/, show(r));
  assert.equal(r.stderr, '');

  const j = await runCli(['compare', a, b, '--json']);
  assert.equal(j.code, 0, show(j));
  const comparison = JSON.parse(j.stdout) as { baseId: string; currentId: string; load?: unknown };
  assert.equal(comparison.baseId, path.basename(a));
  assert.equal(comparison.currentId, path.basename(b));
  assert.ok(comparison.load, 'load deltas present');
});

test(
  'profile --baseline SYNC of the async fix: the comparison is printed and kept, in the right direction',
  RUN_TEST_TIMEOUT,
  async () => {
    const guard = new LeakGuard(LOGIN_API);
    const { r, base, runDir } = await asyncRun();
    assert.match(r.stdout, /Hotline compare {2}base \S+ {2}→ {2}\S+/, show(r));
    // What the fix changes whatever else loads the machine (req/s on 2 busy cores does not):
    // the event loop stops waiting on the hash, and checkPassword's main-thread cost is gone.
    assert.match(r.stdout, /loop delay p99 .* better/, show(r));
    assert.match(r.stdout, /cheaper .* checkPassword /, show(r));
    const report = JSON.parse(fs.readFileSync(path.join(runDir, 'report.json'), 'utf8')) as ReportV1;
    assert.equal(report.baseline?.runId, path.basename(base), 'report.json names its baseline');
    assertFitsSchema(report, 'a report with its baseline');
    const deltas = report.baseline.deltas as { eventLoop?: { p99: { change: number } } };
    assert.ok(deltas.eventLoop && deltas.eventLoop.p99.change < 0, JSON.stringify(deltas.eventLoop));
    guard.assertClean();
  },
);

/**
 * A copy of a real run whose measured req/s and p99 are set to `rps` and `p99` (in each of its
 * measured sub-windows too, and with room in its event loop, so req/s and p99 are what the gate
 * checks): a baseline the gate's verdict against a real run is known for, whatever the machine's
 * load did to that run.
 */
function baselineWith(runDir: string, rps: number, p99: number): string {
  const dir = path.join(tempDir(), `baseline-${rps}`);
  fs.cpSync(runDir, dir, { recursive: true });
  const file = path.join(dir, 'report.json');
  const report = JSON.parse(fs.readFileSync(file, 'utf8')) as ReportV1;
  report.load!.requests.perSecond = rps;
  report.load!.latencyMs.p99 = p99;
  for (const w of report.load!.subWindows?.measured ?? []) {
    w.perSecond = rps;
    w.latencyMs.p99 = p99;
  }
  if (report.eventLoop) report.eventLoop.utilization = 0.5;
  fs.writeFileSync(file, JSON.stringify(report));
  return dir;
}

test(
  'profile --baseline FASTER --fail-if-slower 5%: exit 3, the regressed figures on stderr, the report still saved',
  RUN_TEST_TIMEOUT,
  async () => {
    const { runDir: asyncRunDir } = await asyncRun();
    const guard = new LeakGuard(LOGIN_API);
    const faster = baselineWith(asyncRunDir, 1_000_000, 0.001);
    const out = tempDir();
    const r = await runCli([...LOGIN_ARGS, '--out', out, '--baseline', faster, '--fail-if-slower', '5%']);
    assert.equal(r.code, 3, show(r));
    assert.match(
      r.stderr,
      /^hotline: gate: req\/s +1000000 → [\d.]+ \(\u2212\d+(\.\d)?%( 95% \[[^\]]+\])?, limit \u22125%\) {2}REGRESSED$/m,
      show(r),
    );
    assert.match(r.stderr, /^hotline: gate: latency p99 .* REGRESSED$/m);
    assert.match(r.stderr, /^hotline: gate: FAIL/m);
    assert.equal(fs.readdirSync(out).length, 1, 'the run is kept even though the gate failed');
    guard.assertClean();
  },
);

test(
  'compare SLOWER NOW --fail-if-slower 5%: gate passes, exit 0; and the other way round exit 3',
  RUN_TEST_TIMEOUT,
  async () => {
    const { runDir: asyncRunDir } = await asyncRun();
    const slower = baselineWith(asyncRunDir, 0.5, 60_000);
    const pass = await runCli(['compare', slower, asyncRunDir, '--fail-if-slower', '5%']);
    assert.equal(pass.code, 0, show(pass));
    assert.match(pass.stderr, /^hotline: gate: pass/m, show(pass));
    assert.match(pass.stdout, /req\/s .* better/);
    const fail = await runCli(['compare', asyncRunDir, slower, '--fail-if-slower', '5%']);
    assert.equal(fail.code, 3, show(fail));
    assert.match(fail.stderr, /^hotline: gate: FAIL/m, show(fail));
  },
);

test('--fail-if-slower without --baseline, a bad threshold, a missing baseline: exit 2 before the app starts', async () => {
  const guard = new LeakGuard(LOGIN_API);
  const noBase = await runCli([...LOGIN_ARGS, '--out', tempDir(), '--fail-if-slower', '5%']);
  assert.equal(noBase.code, 2, show(noBase));
  assert.match(noBase.stderr, /--fail-if-slower needs --baseline/);
  const bad = await runCli([
    ...LOGIN_ARGS,
    '--out',
    tempDir(),
    '--baseline',
    'x', // need not exist: the threshold is checked first
    '--fail-if-slower',
    'lots',
  ]);
  assert.equal(bad.code, 2, show(bad));
  assert.match(bad.stderr, /percentage from 0 to 99/);
  const missing = await runCli([...LOGIN_ARGS, '--out', tempDir(), '--baseline', 'no-such-run']);
  assert.equal(missing.code, 2, show(missing));
  assertOneErrorLine(missing);
  assert.match(missing.stderr, /--baseline: No run at no-such-run/);
  assert.doesNotMatch(missing.stderr, /starting/, 'no app was started');
  guard.assertClean();
});

test('compare with a run that does not exist: exit 1, one line', async () => {
  const r = await runCli(['compare', path.join(tempDir(), 'nope'), path.join(tempDir(), 'nope2')]);
  assert.equal(r.code, 1, show(r));
  assertOneErrorLine(r);
});

test('analyze on a malformed .cpuprofile: exit 1, one line on stderr', async () => {
  const file = path.join(tempDir(), 'bad.cpuprofile');
  fs.writeFileSync(file, '{"nodes": 3}');
  const r = await runCli(['analyze', file]);
  assert.equal(r.code, 1, show(r));
  assertOneErrorLine(r);
  assert.match(r.stderr, /not a usable CPU profile/);
  assert.equal(r.stdout, '');
});

test('analyze on a file that is not JSON: exit 1, one line on stderr', async () => {
  const file = path.join(tempDir(), 'garbage.cpuprofile');
  fs.writeFileSync(file, 'this is not a profile\n');
  const r = await runCli(['analyze', file]);
  assert.equal(r.code, 1, show(r));
  assertOneErrorLine(r);
});

test('analyze on a missing file: exit 1, one line on stderr', async () => {
  const r = await runCli(['analyze', path.join(tempDir(), 'missing.cpuprofile')]);
  assert.equal(r.code, 1, show(r));
  assertOneErrorLine(r);
  assert.match(r.stderr, /does not exist/);
});

test('analyze of a saved run profile works on its own', RUN_TEST_TIMEOUT, async () => {
  const { runDir } = await syncRun();
  const r = await runCli(['analyze', path.join(runDir, 'profile.cpuprofile'), '--root', LOGIN_API, '--json']);
  assert.equal(r.code, 0, show(r));
  const analysis = JSON.parse(r.stdout) as { lines: Array<{ file: string; line: number }> };
  assert.equal(analysis.lines[0]?.file, path.join(LOGIN_API, 'server.js'));
  assert.equal(analysis.lines[0].line, 35);
});

test('analyze of a profile where user code calls a function named toString', {}, async () => {
  // app.js line 2 calls buf.toString('hex'); the profile puts 10 samples in Buffer's toString below it.
  const dir = tempDir();
  fs.writeFileSync(
    path.join(dir, 'app.js'),
    "function hexOf(buf) {\n  return buf.toString('hex');\n}\nmodule.exports = { hexOf };\n",
  );
  const url = `file://${path.join(dir, 'app.js')}`;
  const profile = {
    nodes: [
      {
        id: 1,
        callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 },
        hitCount: 0,
        children: [2],
      },
      {
        id: 2,
        callFrame: { functionName: 'hexOf', scriptId: '1', url, lineNumber: 0, columnNumber: 14 },
        hitCount: 0,
        children: [3],
      },
      {
        id: 3,
        callFrame: { functionName: 'toString', scriptId: '2', url: 'node:buffer', lineNumber: 833, columnNumber: 45 },
        hitCount: 10,
      },
    ],
    startTime: 0,
    endTime: 10_000,
    samples: Array(10).fill(3),
    timeDeltas: Array(10).fill(1000),
  };
  const file = path.join(dir, 'to-string.cpuprofile');
  fs.writeFileSync(file, JSON.stringify(profile));
  const r = await runCli(['analyze', file, '--root', dir, '--json']);
  assert.equal(r.code, 0, show(r));
  const analysis = JSON.parse(r.stdout) as { lines: Array<{ file: string; line: number }> };
  assert.equal(analysis.lines[0]?.line, 2);
});

test('an unknown command: exit 2', async () => {
  const r = await runCli(['frobnicate']);
  assert.equal(r.code, 2, show(r));
  assert.match(lines(r.stderr)[0] ?? '', /^hotline: unknown command "frobnicate"/);
});

test('profile without --url: exit 2', async () => {
  const r = await runCli(['profile', 'examples/login-api', '--entry', 'server.js']);
  assert.equal(r.code, 2, show(r));
  assert.match(lines(r.stderr)[0] ?? '', /^hotline: .*--url/);
});

test(
  'profile with an app that cannot start: exit 1, and its error is quoted',
  {
    ...RUN_TEST_TIMEOUT,
  },
  async () => {
    const r = await runCli(['profile', 'test/apps/bad/missing-module', '--entry', 'server.js', '--url', '/', ...SHORT]);
    assert.equal(r.code, 1, show(r));
    assert.match(lines(r.stderr).find((l) => l.startsWith('hotline: The app')) ?? '', /exit/, show(r));
    assert.match(r.stderr, /Cannot find module 'hotline-test-module-that-does-not-exist'/, show(r));
  },
);

/** Starts a profile run of helper-module, waits for the measuring phase, returns what is running then. */
async function profileUntilMeasuring(
  detached: boolean,
): Promise<{ cli: ReturnType<typeof startCli>; during: ProcInfo[] }> {
  // One measured window of 60 s: a signal sent once 'measuring' is printed lands in it however
  // slowly this machine delivers it (the run is cancelled long before its end).
  const cli = startCli(
    [
      ...['profile', 'test/apps/helper-module', '--entry', 'server.js', '--url', '/compress', '--out', tempDir()],
      ...['--connections', '10', '--duration', '60', '--sub-windows', '1', '--warmup', '1'],
    ],
    { detached },
  );
  await cli.waitForStderr('measuring');
  const during = [
    { pid: cli.child.pid!, ppid: process.pid, state: 'S', argv: ['hotline'] },
    ...descendantsOf(cli.child.pid!),
  ];
  return { cli, during };
}

function assertStopped(during: ProcInfo[]): void {
  assert.ok(
    during.some((p) => p.argv.some((a) => a.endsWith(path.join('dist', 'load-runner.js')))),
    `the load runner was running:\n${during.map((p) => p.argv.join(' ')).join('\n')}`,
  );
  assert.ok(
    during.some((p) => p.argv.some((a) => a.startsWith(HELPER_MODULE))),
    'the app was running',
  );
  for (const p of during) assert.equal(isRunning(p.pid), false, `${p.pid} (${p.argv.join(' ')}) still runs`);
}

test('SIGINT while measuring: exit 130, app and load runner stopped', RUN_TEST_TIMEOUT, async () => {
  const guard = new LeakGuard(HELPER_MODULE);
  const { cli, during } = await profileUntilMeasuring(false);
  cli.child.kill('SIGINT');
  const r = await cli.done;
  assert.equal(r.code, 130, show(r));
  assert.match(r.stderr, /Cancelled during measuring/);
  assert.equal(r.stdout, '', 'no report printed');
  assertStopped(during);
  guard.assertClean();
});

test(
  'Ctrl-C in a terminal (SIGINT to the whole process group) while measuring: exit 130',
  RUN_TEST_TIMEOUT,
  async () => {
    const guard = new LeakGuard(HELPER_MODULE);
    // detached: the CLI leads its own process group, as a shell job does; the load runner is in it.
    const { cli, during } = await profileUntilMeasuring(true);
    process.kill(-cli.child.pid!, 'SIGINT');
    const r = await cli.done;
    assert.equal(r.code, 130, show(r));
    assert.match(r.stderr, /Cancelled during measuring/, show(r));
    assertStopped(during);
    guard.assertClean();
  },
);

test(
  'the CLI killed hard (SIGKILL) while measuring: the app and the load runner end by themselves',
  RUN_TEST_TIMEOUT,
  async () => {
    const guard = new LeakGuard(HELPER_MODULE);
    const { cli, during } = await profileUntilMeasuring(false);
    cli.child.kill('SIGKILL');
    await cli.done;
    // Nothing can clean up after SIGKILL: the app watches its parent, the load runner its IPC channel.
    const children = during.filter((p) => p.pid !== cli.child.pid);
    await waitUntilGone(
      children.map((p) => p.pid),
      10_000,
    );
    assertStopped(during);
    guard.assertClean();
  },
);

/** Polls the process table until every pid has ended (or fails after `ms`). */
async function waitUntilGone(pids: number[], ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (pids.some(isRunning)) {
    if (Date.now() > deadline) return; // assertStopped names what is left
    await new Promise((r) => setTimeout(r, 100));
  }
}
