// Apps started the way their owners start them (test/apps/start-commands, dependencies from the
// npm registry, pinned): each npm script run by `--script` exactly as package.json says, under
// real load. The known answer (two pbkdf2Sync calls of 2:1 work) must land on the right .ts/.js
// lines within ±3 points (one run, or the mean of two: measureShares), nothing on line 1 or on a comment, and no process may be left behind,
// after the run and after a cancel.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, test } from 'node:test';
import { renderReport } from '../../src/cli/render.ts';
import { profileUnderLoad } from '../../src/core/index.ts';
import type { RunProgress } from '../../src/core/capture/run-types.ts';
import type { ReportV1 } from '../../src/core/report/schema.ts';
import {
  descendantsOf,
  isRunning,
  LeakGuard,
  leakCheckedRuns,
  REPO_ROOT,
  startCli,
  tempDir,
} from '../helpers/integration.ts';
import { compareWithTruth, measureShares, truthLines } from '../helpers/truth.ts';

const APP = path.join(REPO_ROOT, 'test', 'apps', 'start-commands');
const TS_DIR = path.join(APP, 'src');
const JS_DIR = path.join(APP, 'js');
/** Points a share may be off its constructed value. */
const TOLERANCE = 3;
// As the truth apps' (truth.test.ts): the calling lines of the two pbkdf2Sync calls are decided by
// stack captures, ~2000 in 10 s, a spread of ~1.3 points (6 s gave 70.5% once on a loaded machine).
// Two alternations (the app's inspector closed and reopened under its start command), with short
// measured sub-windows: the known answer is in the profiled ones.
const LOAD = { url: '/', warmupS: 2, durationS: 10, subWindows: 2, measuredS: 1, connections: 4 } as const;
const TIMEOUT = { timeout: 240_000 };

const runs = leakCheckedRuns();

before(() => {
  if (fs.existsSync(path.join(APP, 'node_modules', 'tsx'))) return;
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], { cwd: APP, encoding: 'utf8' });
  assert.equal(r.status, 0, `npm ci in ${APP} failed (npm run setup:examples installs it):\n${r.stderr}`);
});

async function profileScript(script: string, o: { nodePath?: string } = {}): Promise<ReportV1> {
  runs.watch(APP);
  const { report } = await profileUnderLoad({
    target: { cwd: APP, entry: '', ...scriptTarget(script), ...(o.nodePath ? { nodePath: o.nodePath } : {}) },
    ...LOAD,
    runsDir: tempDir(),
  });
  runs.appStarted(report.app.pid);
  return report;
}

/** What `--script NAME` resolves to (target.ts), read from the app's package.json. */
function scriptTarget(script: string): { command: string; script: string } | { entry: string; runtimeArgs: string[] } {
  const command = (
    JSON.parse(fs.readFileSync(path.join(APP, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  ).scripts[script];
  const plain = /^node (?:(--import|--require) (\S+) )?(\S+)$/.exec(command);
  return plain ? { entry: plain[3], runtimeArgs: plain[1] ? [plain[1], plain[2]] : [] } : { command, script };
}

/**
 * The known answer of the app started by `script`, on the right lines (as a measurement:
 * measureShares), and in every run nothing on line 1 or on a comment of the app's files and the
 * heavier call first. Returns the first run's report.
 */
async function knownAnswer(script: string, dir: string, o: { nodePath?: string } = {}): Promise<ReportV1> {
  const truth = truthLines(dir);
  const label = (c: { file: string; line: number }): string => `${path.relative(APP, c.file)}:${c.line}`;
  const { runs: reports, failures } = await measureShares(
    async () => {
      const report = await profileScript(script, o);
      const { checks, deadHits } = compareWithTruth(report, truth);
      console.log(
        `# ${script}\n${checks.map((c) => `#   ${label(c)} expected ${c.expectedPct.toFixed(1)}% got ${c.actualPct.toFixed(1)}%`).join('\n')}`,
      );
      assert.deepEqual(deadHits, []);
      assert.ok(checks.length === 2, `${script}: two marked lines`);
      assert.equal(report.partial, undefined, `${script}: the run was cut short: ${report.partial?.reason}`);
      return { report, checks };
    },
    (r) => r.checks.map((c) => ({ label: label(c), expectedPct: c.expectedPct, actualPct: c.actualPct })),
    TOLERANCE,
  );
  assert.deepEqual(failures, [], `${script}\n${reports.map((r) => r.report.notes.join('\n')).join('\n')}`);
  for (const { report } of reports) {
    const appLines = report.lines.filter((l) => l.file.startsWith(APP + path.sep) && !l.file.includes('node_modules'));
    for (const l of appLines) {
      const text = fs.readFileSync(l.file, 'utf8').split('\n')[l.line - 1] ?? '';
      assert.ok(l.line > 1, `${script}: a cost on line 1 of ${l.file}`);
      assert.ok(!/^\s*(\/\/|\/\*|\*)/.test(text), `${script}: a cost on a comment, ${l.file}:${l.line}: ${text}`);
    }
    const first = report.lines.find((l) => l.thread !== 'worker');
    assert.equal(
      first?.line,
      Math.min(...truth.filter((t) => t.weight === 2).map((t) => t.line)),
      `${script}: first line`,
    );
  }
  return reports[0].report;
}

test('node --import tsx: the .ts lines, through the map tsx holds in memory', TIMEOUT, async () => {
  const report = await knownAnswer('tsx-import', TS_DIR);
  // Node's loader-hooks thread (module.register) is not the app's: no row, no line, no note of it.
  // A worker tsx's compiler may start (esbuild's service thread) started at the boot, and says so.
  const workers = (report.threads ?? []).filter((t) => t.id !== 0);
  assert.ok(!workers.some((t) => t.script?.startsWith('node:')), JSON.stringify(report.threads));
  for (const t of workers) assert.ok(t.startedAtBoot && !t.joinedLate, JSON.stringify(t));
  assert.ok(!report.notes.some((n) => /started during the profiled window/.test(n)), report.notes.join('\n'));
  assert.ok(
    !report.lines.some((l) => l.thread === 'worker' && l.file.startsWith('node:')),
    'no line from the loader thread',
  );
  // No heading with nothing under it.
  const text = renderReport(report, { cwd: APP, color: false });
  assert.doesNotMatch(text, /^Hot lines in worker threads.*\n(?! {2})/m, text);
});

test('tsx watch: the watcher is not the app; its child that listens is', TIMEOUT, async () => {
  const report = await knownAnswer('tsx-watch', TS_DIR);
  assert.ok(report.app.command.join(' ').includes('tsx watch src/server.ts'));
});

test('ts-node: the .ts lines through its inline map', TIMEOUT, async () => {
  await knownAnswer('ts-node', TS_DIR);
});

test('nodemon: the app runs once (Hotline writes nothing it watches while it runs)', TIMEOUT, async () => {
  await knownAnswer('nodemon', JS_DIR);
});

test("a package's bin (node_modules/.bin/hot-server)", TIMEOUT, async () => {
  await knownAnswer('bin', JS_DIR);
});

test('a framework CLI: fastify start', TIMEOUT, async () => {
  await knownAnswer('fastify', JS_DIR);
});

test('a shell chain: echo && node -e && tsx', TIMEOUT, async () => {
  await knownAnswer('chain', TS_DIR);
});

test('transpiled in memory with no map: function-level costs and one note, no line', TIMEOUT, async () => {
  const report = await profileScript('no-map');
  const check = path.join(TS_DIR, 'check.ts');
  assert.deepEqual(
    report.lines.filter((l) => l.file.startsWith(TS_DIR)),
    [],
    'no line of a file whose positions cannot be mapped',
  );
  assert.deepEqual(
    report.hints.filter((h) => h.file.startsWith(TS_DIR)),
    [],
    'no hint on such a line',
  );
  const fn = report.functions.find((f) => f.file === check && f.name === 'check');
  assert.ok(fn, `check() is listed: ${report.functions.map((f) => `${f.name} ${f.file}`).join(', ')}`);
  assert.ok(fn.totalPct > 80, `check() holds the time (${fn.totalPct}%)`);
  const notes = report.notes.filter((n) => n.includes('transpiled in memory'));
  assert.equal(notes.length, 1, report.notes.join('\n'));
  assert.match(notes[0], /src\/(check|server)\.ts .*source map could not be read/);
});

const NODE_24 = path.join(process.env.HOME ?? '', '.cache', 'hotline-e2e', 'node-v24.21.0', 'bin', 'node');

test(
  "Node 24's type stripping: positions kept, no map needed",
  { ...TIMEOUT, skip: fs.existsSync(NODE_24) ? false : `no Node 24 at ${NODE_24} (npm run setup:test installs it)` },
  async () => {
    await knownAnswer('strip', TS_DIR, { nodePath: NODE_24 });
  },
);

test('a watcher restart mid-run is reported, not waited for', TIMEOUT, async () => {
  runs.watch(APP);
  // A copy of the app's TypeScript in the app folder: touching it restarts tsx watch.
  const dir = fs.mkdtempSync(path.join(APP, 'restart-'));
  try {
    fs.cpSync(TS_DIR, dir, { recursive: true });
    const server = path.join(dir, 'server.ts');
    let touched = false;
    const onProgress = (p: RunProgress): void => {
      if (touched || p.phase !== 'profiling') return;
      touched = true;
      fs.appendFileSync(server, '\n');
    };
    let outcome: string;
    try {
      const { report } = await profileUnderLoad({
        target: { cwd: APP, entry: '', command: `tsx watch ${path.relative(APP, server)}` },
        ...LOAD,
        runsDir: tempDir(),
        onProgress,
      });
      runs.appStarted(report.app.pid);
      outcome = report.partial?.reason ?? 'a complete run';
    } catch (err) {
      outcome = (err as Error).message;
    }
    assert.ok(touched, 'the run reached its profiled window');
    assert.match(outcome, /still runs: a watcher .* restarts the app/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('SIGINT of the CLI while profiling a tsx watch app: exit 130, the whole tree gone', TIMEOUT, async () => {
  const guard = new LeakGuard(APP);
  const cli = startCli(['profile', APP, '--script', 'tsx-watch', '--url', '/', '--out', tempDir(), '--duration', '30']);
  await cli.waitForStderr('measuring');
  const during = descendantsOf(cli.child.pid!);
  assert.ok(
    during.some((p) => p.argv.some((a) => a.includes('tsx'))),
    `tsx was running:\n${during.map((p) => p.argv.join(' ')).join('\n')}`,
  );
  cli.child.kill('SIGINT');
  const r = await cli.done;
  assert.equal(r.code, 130, r.stderr);
  for (const p of during) assert.equal(isRunning(p.pid), false, `${p.pid} (${p.argv.join(' ')}) still runs`);
  guard.assertClean();
});

test(
  'the CLI killed hard (SIGKILL) while measuring a tsx watch app: the app ends its whole tree',
  TIMEOUT,
  async () => {
    const guard = new LeakGuard(APP);
    const cli = startCli([
      'profile',
      APP,
      '--script',
      'tsx-watch',
      '--url',
      '/',
      '--out',
      tempDir(),
      '--duration',
      '30',
    ]);
    await cli.waitForStderr('measuring');
    const during = descendantsOf(cli.child.pid!);
    cli.child.kill('SIGKILL');
    await cli.done;
    // Nothing can clean up after SIGKILL: the app sees Hotline gone and ends its process group.
    const deadline = Date.now() + 15_000;
    while (during.some((p) => isRunning(p.pid)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    for (const p of during) assert.equal(isRunning(p.pid), false, `${p.pid} (${p.argv.join(' ')}) still runs`);
    guard.assertClean();
  },
);
