// What a new user meets in the terminal: bad usage exits 2 with the reason, files that are not
// CPU profiles are named, paths and repeated lines read well, and the docs say what the program
// prints (docs/reliability.md, the help's exit codes, docs/cli.md's list of run files).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import {
  LeakGuard,
  REPO_ROOT,
  RUN_TEST_TIMEOUT,
  assertBuilt,
  removeTempDirs,
  runCli,
  tempDir,
  type CliResult,
} from '../helpers/integration.ts';

const GRACEFUL = path.join(REPO_ROOT, 'test', 'apps', 'graceful');
const FORMATS = path.join(REPO_ROOT, 'test', 'fixtures', 'formats');
const show = (r: CliResult): string =>
  `exit ${r.code}\n--- stdout ---\n${r.stdout.slice(-2000)}\n--- stderr ---\n${r.stderr.slice(-2000)}`;

before(assertBuilt);
after(removeTempDirs);

for (const [args, message] of [
  [['--duration', '-1'], /duration must be a number above 0/],
  [['--duration', '0'], /duration must be a number above 0/],
  [['--sampling-interval', '10'], /sampling interval must be 50–100000 µs/],
  [['--timeout', '0'], /timeout must be a number above 0/],
  [['--warmup', '-2'], /warm-up must be 0–600 s/],
  [['--stack-rate', '-5'], /stack capture rate must be 0 \(off\) to 1000 a second/],
  [['--url', 'http://example.com/'], /not a loopback address/],
  // Several --url make a mix: each is checked, and the one off this machine named.
  [['--url', '/', '--url', 'http://example.com/'], /--url 2: example\.com is not this machine/],
] as const) {
  test(
    `profile ${args.join(' ')} is bad usage: exit 2 with the reason, before anything starts`,
    RUN_TEST_TIMEOUT,
    async () => {
      const guard = new LeakGuard(GRACEFUL);
      const url = (args as readonly string[]).includes('--url') ? [] : ['--url', '/'];
      const r = await runCli(['profile', GRACEFUL, ...url, ...args]);
      assert.equal(r.code, 2, show(r));
      assert.match(r.stderr, message);
      assert.doesNotMatch(r.stderr, /ambiguous/);
      guard.assertClean();
    },
  );
}

/** The quoted messages of a row of docs/reliability.md's fault table, "…" as a wildcard. */
function documentedMessages(fault: string): RegExp[] {
  const row = fs
    .readFileSync(path.join(REPO_ROOT, 'docs', 'reliability.md'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`| ${fault} |`));
  assert.ok(row, `docs/reliability.md has a row "${fault}"`);
  const seen = row.split('|')[2];
  return [...seen.matchAll(/"([^"]+)"/g)].map(
    (m) =>
      new RegExp(
        m[1]
          .split('…')
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('.+'),
      ),
  );
}

test("a folder that does not exist says so, in docs/reliability.md's words, exit 2", RUN_TEST_TIMEOUT, async () => {
  const [folderMessage, entryMessage] = documentedMessages('Entry file or folder does not exist');
  const missing = path.join(tempDir(), 'no-such-app');
  const r = await runCli(['profile', missing, '--url', '/']);
  assert.equal(r.code, 2, show(r));
  assert.match(r.stderr.split('\n')[0], folderMessage);
  assert.ok(r.stderr.includes(missing), 'names the folder');
  const e = await runCli(['profile', GRACEFUL, '--entry', 'nope.js', '--url', '/', '--duration', '1']);
  assert.equal(e.code, 2, show(e));
  assert.match(e.stderr, entryMessage);
});

test(
  'analyze of a heap profile shows its allocations; of perf script text or any text, says what it is in one line (exit 1)',
  RUN_TEST_TIMEOUT,
  async () => {
    // The fixture was captured in another checkout: point its URLs at this one's heap-app.
    const heapApp = path.join(REPO_ROOT, 'test', 'apps', 'heap-app');
    const heap = path.join(tempDir(), 'rows.heapprofile');
    fs.writeFileSync(
      heap,
      fs
        .readFileSync(path.join(FORMATS, 'heap-app.heapprofile'), 'utf8')
        .replace(/"url":"[^"]*\/test\/apps\/heap-app\//g, `"url":"${heapApp}/`),
    );
    const h = await runCli(['analyze', heap, '--root', heapApp]);
    assert.equal(h.code, 0, show(h));
    assert.match(h.stdout, /^Allocations \(sampling heap profile: /m);
    assert.match(h.stdout, /server\.js:\d+ {2}makeRows {2}\d/, 'makeRows allocates most');
    const perf = await runCli(['analyze', path.join(FORMATS, 'node-busy.perf.txt')]);
    assert.equal(perf.code, 1, show(perf));
    assert.equal(perf.stderr.trimEnd().split('\n').length, 1, show(perf));
    assert.match(perf.stderr, /is `perf script` output .*opens it as a flame graph/);
    assert.doesNotMatch(perf.stderr, /JSON/);
    const text = await runCli(['analyze', path.join(FORMATS, 'README.md')]);
    assert.equal(text.code, 1, show(text));
    assert.match(text.stderr, /README\.md is not a profile: `hotline analyze` reads \.cpuprofile files/);
  },
);

test(
  "a run from another folder: the run folder printed absolute, the app's node --prof log found and named, analyze names that log",
  RUN_TEST_TIMEOUT,
  async () => {
    const app = tempDir('hotline-prof-');
    fs.copyFileSync(path.join(GRACEFUL, 'server.js'), path.join(app, 'server.js'));
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ scripts: { start: 'node --prof server.js' } }));
    const elsewhere = tempDir();
    const runs = path.join(tempDir(), 'runs');
    const guard = new LeakGuard(app);
    const r = await runCli(
      [
        'profile',
        app,
        '--script',
        'start',
        '--url',
        '/',
        '--duration',
        '1',
        '--warmup',
        '0',
        '--connections',
        '2',
        '--out',
        runs,
        '--env',
        `GRACEFUL_OUT=${path.join(elsewhere, 'x.log')}`,
        '--verbose',
      ],
      { cwd: elsewhere },
    );
    assert.equal(r.code, 0, show(r));
    guard.assertClean();
    // --verbose: a timed line for each step, in the order the run takes them.
    const steps = [
      /the start command: node --prof server\.js/,
      /starting server\.js/, // a plain `node FILE` script is started as an entry
      /the app's inspector: Debugger (listening on ws:|attached)/,
      /warm-up/,
      /measuring \(profiler off\) \[0\//,
      /profiling \[0\//,
      /analyzed and saved /,
    ].map((step) => r.stderr.split('\n').findIndex((l) => /^hotline: \+\d+\.\d s /.test(l) && step.test(l)));
    assert.ok(
      steps.every((at, i) => at >= 0 && (i === 0 || at > steps[i - 1])),
      `${steps.join(' ')}\n${show(r)}`,
    );
    const [runId] = fs.readdirSync(runs);
    assert.ok(
      r.stdout.includes(`Saved ${path.join(runs, runId)}${path.sep} (report.json, profile.cpuprofile, …)`),
      show(r),
    );
    assert.doesNotMatch(r.stdout, /Saved \.\./);
    const log = fs.readdirSync(app).find((f) => /^isolate-.*\.log$/.test(f));
    assert.ok(log, 'node --prof wrote its log in the app folder');
    assert.ok(r.stdout.includes(`node --prof wrote ${path.join(app, log)}`), show(r));
    const a = await runCli(['analyze', path.join(app, log)]);
    assert.equal(a.code, 1, show(a));
    assert.match(a.stderr, /is a `node --prof` log \(V8 ticks\), not a CPU profile.*node --prof-process/);
  },
);

test("the help's exit codes are the ones the program returns", RUN_TEST_TIMEOUT, async () => {
  const help = await runCli(['help']);
  assert.equal(help.code, 0);
  const codes = /Exit codes: (.+)$/ms.exec(help.stdout)?.[1].replace(/\s+/g, ' ') ?? '';
  const listed = new Map([...codes.matchAll(/(\d+) ([^,]+)/g)].map((m) => [Number(m[1]), m[2]]));
  assert.deepEqual([...listed.keys()], [0, 1, 2, 3, 4, 130], codes);
  assert.match(listed.get(4)!, /inconclusive/);
  assert.match(listed.get(2)!, /bad usage/);
  assert.equal((await runCli(['profile', GRACEFUL])).code, 2, 'bad usage: no --url');
  assert.equal((await runCli(['compare', 'no-such-run', 'nor-this'])).code, 1, 'the comparison failed');
  // 3: a run and a copy of it at half the req/s, compared with --fail-if-slower.
  const runs = path.join(tempDir(), 'runs');
  const r = await runCli([
    'profile',
    GRACEFUL,
    '--url',
    '/',
    // 4 sub-windows a side: the fewest a verdict is given on (fewer: too short to tell, exit 4).
    // -d and -c: autocannon's short flags.
    '-d',
    '2',
    '--sub-windows',
    '4',
    '--warmup',
    '0',
    '-c',
    '2',
    '--out',
    runs,
    '--env',
    `GRACEFUL_OUT=${path.join(tempDir(), 'x.log')}`,
  ]);
  assert.equal(r.code, 0, show(r));
  const base = path.join(runs, fs.readdirSync(runs)[0], 'report.json');
  const taken = (JSON.parse(fs.readFileSync(base, 'utf8')) as { settings: { durationS: number; connections: number } })
    .settings;
  assert.deepEqual([taken.durationS, taken.connections], [2, 2], '-d and -c were read as --duration and --connections');
  const report = JSON.parse(fs.readFileSync(base, 'utf8')) as {
    id: string;
    load: {
      requests: { perSecond: number };
      subWindows?: { measured: Array<{ perSecond: number; cpuMsPerRequest?: number }> };
    };
  };
  // The run's sub-windows made alike (no spread: 0.5 s sub-windows on a busy machine are noisy,
  // and this test is about the exit code, not the noise), then a copy at half the throughput and
  // twice the CPU per request in every one of them.
  const measured = report.load.subWindows?.measured ?? [];
  measured.splice(0, measured.length, ...measured.map(() => ({ ...measured[0] })));
  fs.writeFileSync(base, JSON.stringify(report));
  report.id = `${report.id}-slower`;
  report.load.requests.perSecond /= 2;
  for (const w of measured) {
    w.perSecond /= 2;
    if (w.cpuMsPerRequest !== undefined) w.cpuMsPerRequest *= 2;
  }
  const slower = path.join(tempDir(), 'report.json');
  fs.writeFileSync(slower, JSON.stringify(report));
  const c = await runCli(['compare', base, slower, '--fail-if-slower', '10%']);
  assert.equal(c.code, 3, show(c));
  // 130 (Ctrl-C) is cli.test.ts's "SIGINT" tests.
});

for (const command of ['profile', 'gate', 'analyze', 'compare', 'export', 'lsp']) {
  test(`hotline ${command} --help and -h print its usage and exit 0`, RUN_TEST_TIMEOUT, async () => {
    for (const flag of ['--help', '-h']) {
      const r = await runCli([command, flag]);
      assert.equal(r.code, 0, show(r));
      assert.ok(r.stdout.startsWith(`Usage:\n  hotline ${command} `), show(r));
      assert.equal(r.stderr, '');
    }
  });
}

test("--help before -- is Hotline's, even with the app's own --help after it", RUN_TEST_TIMEOUT, async () => {
  const r = await runCli(['profile', GRACEFUL, '--help', '--', '--help']);
  assert.equal(r.code, 0, show(r));
  assert.match(r.stdout, /^Usage:\n {2}hotline profile /);
});

test("--version and -v print package.json's version", RUN_TEST_TIMEOUT, async () => {
  const { version } = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
  for (const flag of ['--version', '-v']) {
    const r = await runCli([flag]);
    assert.equal(r.code, 0, show(r));
    assert.equal(r.stdout, `${version}\n`);
  }
});

test("an unknown option names the command's help, exit 2", RUN_TEST_TIMEOUT, async () => {
  const r = await runCli(['profile', GRACEFUL, '--url', '/', '--bogus']);
  assert.equal(r.code, 2, show(r));
  assert.equal(r.stderr, "hotline: unknown option --bogus: see 'hotline profile --help'\n");
  const g = await runCli(['gate', '.', '-z']);
  assert.equal(g.code, 2, show(g));
  assert.match(g.stderr, /unknown option -z: see 'hotline gate --help'/);
});
