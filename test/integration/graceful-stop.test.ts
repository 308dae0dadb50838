// Stopping the app: one SIGTERM per process, a grace period it can use for its shutdown, then
// SIGKILL for what is left. test/apps/graceful writes a file in pieces on SIGTERM; a second
// SIGTERM mid-way, or a SIGKILL as soon as the parent is gone, leaves that file short.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { killTree } from '../../src/core/app/processes.ts';
import type { ReportV1 } from '../../src/core/report/schema.ts';
import {
  LeakGuard,
  REPO_ROOT,
  RUN_TEST_TIMEOUT,
  assertBuilt,
  removeTempDirs,
  runCli,
  tempDir,
} from '../helpers/integration.ts';

const GRACEFUL = path.join(REPO_ROOT, 'test', 'apps', 'graceful');
const COMPLETE = 'piece 1\npiece 2\npiece 3\npiece 4\npiece 5\ncomplete\n';

after(removeTempDirs);

/** The app started as a run starts it (its own process group), resolved once it listens. */
async function startGraceful(
  env: Record<string, string>,
): Promise<{ pid: number; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> }> {
  const child = spawn(process.execPath, [path.join(GRACEFUL, 'server.js')], {
    cwd: GRACEFUL,
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (s: string) => {
      if (s.includes('ready')) resolve();
    });
    void exited.then((e) => reject(new Error(`the app ended before it was ready (${JSON.stringify(e)})`)));
  });
  return { pid: child.pid!, exited };
}

test('an app and its child that flush a file on SIGTERM both finish it and exit 0', RUN_TEST_TIMEOUT, async () => {
  const guard = new LeakGuard(GRACEFUL);
  const out = path.join(tempDir(), 'flushed.log');
  const app = await startGraceful({ GRACEFUL_OUT: out, GRACEFUL_CHILD: '1' });
  await killTree(app.pid, app.exited, 10_000);
  assert.deepEqual(await app.exited, { code: 0, signal: null }, 'the app ended by itself, not by a signal');
  assert.equal(fs.readFileSync(out, 'utf8'), COMPLETE, "the app's file is complete");
  assert.equal(
    fs.readFileSync(`${out}.child`, 'utf8'),
    COMPLETE,
    "the child's file is complete: it was not killed when its parent ended",
  );
  guard.assertClean([app.pid]);
});

test(
  'an app that ignores SIGTERM is killed when the grace period is over, child included',
  RUN_TEST_TIMEOUT,
  async () => {
    const guard = new LeakGuard(GRACEFUL);
    const out = path.join(tempDir(), 'never.log');
    const app = await startGraceful({ GRACEFUL_OUT: out, GRACEFUL_CHILD: '1', GRACEFUL_IGNORE: '1' });
    await killTree(app.pid, app.exited, 300);
    assert.deepEqual(await app.exited, { code: null, signal: 'SIGKILL' });
    assert.equal(fs.existsSync(out), false);
    guard.assertClean([app.pid]);
  },
);

test(
  'hotline profile stops a graceful app with one SIGTERM and waits for its shutdown (--stop-grace)',
  RUN_TEST_TIMEOUT,
  async () => {
    assertBuilt();
    const guard = new LeakGuard(GRACEFUL);
    const dir = tempDir();
    const out = path.join(dir, 'flushed.log');
    const r = await runCli([
      'profile',
      GRACEFUL,
      '--url',
      '/',
      '--duration',
      '1',
      '--warmup',
      '0',
      '--connections',
      '2',
      '--out',
      path.join(dir, 'runs'),
      '--env',
      `GRACEFUL_OUT=${out}`,
      '--env',
      'GRACEFUL_CHILD=1',
      '--stop-grace',
      '10',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(fs.readFileSync(out, 'utf8'), COMPLETE, "the app's file is complete");
    assert.equal(fs.readFileSync(`${out}.child`, 'utf8'), COMPLETE, "the child's file is complete");
    guard.assertClean();
  },
);

test(
  "an exit during Hotline's own stop is no crash: a shutdown that ends with exit code 7 leaves the report whole",
  RUN_TEST_TIMEOUT,
  async () => {
    assertBuilt();
    const guard = new LeakGuard(GRACEFUL);
    const dir = tempDir();
    const out = path.join(dir, 'flushed.log');
    const r = await runCli([
      ...['profile', GRACEFUL, '--url', '/', '--duration', '1', '--warmup', '0', '--connections', '2'],
      ...['--out', path.join(dir, 'runs'), '--env', `GRACEFUL_OUT=${out}`, '--env', 'GRACEFUL_EXIT_CODE=7', '--json'],
    ]);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as ReportV1;
    assert.equal(report.partial, undefined, `not partial: ${JSON.stringify(report.partial)}`);
    assert.doesNotMatch(r.stderr, /exited during/);
    // The exit code 7 did happen, after the SIGTERM: the app finished its shutdown.
    assert.equal(fs.readFileSync(out, 'utf8'), COMPLETE);
    guard.assertClean();
  },
);

test('--stop-grace out of range is bad usage (exit 2)', RUN_TEST_TIMEOUT, async () => {
  const r = await runCli(['profile', GRACEFUL, '--url', '/', '--stop-grace', '-3']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /stop grace period must be 0–600 s/);
});
