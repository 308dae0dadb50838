// --load-command: the user's own load tool (real wrk, from Debian's `wrk` package) drives each
// window while Hotline profiles a real app through the real inspector; a tool whose output is
// unknown still gives a run (figures "not parsed", output kept); a command aimed elsewhere than
// this machine is refused before anything starts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { profileUnderLoad } from '../../src/core/index.ts';
import { RunError } from '../../src/core/common/run-error.ts';
import type { ReportV1 } from '../../src/core/report/schema.ts';
import {
  leakCheckedRuns,
  FIXED_PORT_APP,
  REPO_ROOT,
  RUN_TEST_TIMEOUT,
  freePort,
  rejectionOf,
  runCli,
  tempDir,
} from '../helpers/integration.ts';

const SERVER = path.join(FIXED_PORT_APP, 'server.js');
const HAMMER = path.join(REPO_ROOT, 'test', 'apps', 'external-load', 'hammer.cjs');
const wrkMissing = spawnSync('wrk', ['--version']).error !== undefined;
const WRK = {
  skip: wrkMissing ? 'wrk is not installed here (apt-get install wrk): the wrk run cannot be tested' : false,
  ...RUN_TEST_TIMEOUT,
};

const runs = leakCheckedRuns();

test(
  'CLI --load-command "wrk …": wrk drives both windows, its figures are parsed, the hot line is found, load.log is kept',
  WRK,
  async () => {
    runs.watch(FIXED_PORT_APP);
    const port = await freePort();
    const out = tempDir();
    const r = await runCli([
      'profile',
      FIXED_PORT_APP,
      '--entry',
      'server.js',
      '--env',
      `FIXED_PORT=${port}`,
      '--url',
      `http://127.0.0.1:${port}/scrypt`,
      '--load-command',
      'wrk -t1 -c4 -d2s --latency {url}',
      '--warmup',
      '1',
      '--duration',
      '2',
      '--out',
      out,
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as ReportV1;
    runs.appStarted(report.app.pid);
    const load = report.load!;
    assert.equal(load.external?.tool, 'wrk');
    assert.equal(load.external?.parsed, true);
    assert.deepEqual(load.external?.command, [
      'wrk',
      '-t1',
      '-c4',
      '-d2s',
      '--latency',
      `http://127.0.0.1:${port}/scrypt`,
    ]);
    assert.deepEqual(load.external?.exitCodes, { measured: 0, profiled: 0 });

    // The report's figures are the ones wrk printed for the measured window (the first of the log).
    const log = fs.readFileSync(path.join(out, report.id, 'load.log'), 'utf8');
    const windows = log.split(/^── /m).filter(Boolean);
    assert.deepEqual(
      windows.map((w) => w.split(':')[0]),
      ['warmup', 'measured', 'profiled'],
      log,
    );
    const measured = windows[1];
    assert.equal(load.requests.perSecond, Number(/Requests\/sec:\s+([\d.]+)/.exec(measured)![1]));
    assert.equal(load.requests.total, Number(/(\d+) requests in/.exec(measured)![1]));
    assert.ok(load.requests.total > 0, 'wrk got responses');
    assert.ok(load.latencyMs.p99 > 0 && load.latencyMs.p50 > 0, 'the --latency distribution was read');
    assert.ok(load.profiled.requests.perSecond > 0);
    // The window lasted as long as wrk ran (2 s), whatever Hotline's own --duration said.
    assert.ok(load.durationS >= 1.9 && load.durationS < 10, `measured window ${load.durationS} s`);

    const first = report.lines[0];
    assert.equal(first.file, SERVER);
    assert.equal(first.line, 15, 'crypto.scryptSync in deriveKey');
    assert.ok(report.eventLoop && report.eventLoop.delayMs.p50 > 0, 'the event loop was measured under wrk');
  },
);

test(
  'a load command whose output no parser knows: the run completes, figures "not parsed", the output is in load.log',
  RUN_TEST_TIMEOUT,
  async () => {
    runs.watch(FIXED_PORT_APP);
    const port = await freePort();
    const { runDir, report } = await profileUnderLoad({
      target: { cwd: FIXED_PORT_APP, entry: 'server.js', env: { FIXED_PORT: String(port) } },
      url: `http://127.0.0.1:${port}/scrypt`,
      loadCommand: `${process.execPath} ${HAMMER} {url} 2`,
      warmupS: 1,
      durationS: 2,
      runsDir: tempDir(),
    });
    runs.appStarted(report.app.pid);
    assert.equal(report.load?.external?.parsed, false);
    assert.equal(report.load?.external?.tool, undefined);
    assert.match(fs.readFileSync(path.join(runDir, 'load.log'), 'utf8'), /hammered [1-9]\d* times/);
    assert.equal(report.lines[0]?.line, 15, 'the profile is taken all the same');
  },
);

test(
  'a load command aimed at another host, or using a shell, is refused before the app starts',
  RUN_TEST_TIMEOUT,
  async () => {
    runs.watch(FIXED_PORT_APP);
    for (const [command, pattern] of [
      ['wrk -d2s http://10.1.2.3:8080/', /load tests only target this machine/],
      ['wrk -d2s {url} | tee out.txt', /without a shell/],
      ['no-such-load-tool-here {url}', /was not found on PATH/],
    ] as const) {
      const err = await rejectionOf(() =>
        profileUnderLoad({
          target: { cwd: FIXED_PORT_APP, entry: 'server.js' },
          url: '/ok',
          loadCommand: command,
          runsDir: tempDir(),
        }),
      );
      assert.ok(err instanceof RunError && err.kind === 'bad-options', `${command}: ${String(err)}`);
      assert.match(err.message, pattern);
    }
  },
);

test(
  'a load command that fails at once: load-failed with its last words, and the app is stopped',
  RUN_TEST_TIMEOUT,
  async () => {
    runs.watch(FIXED_PORT_APP);
    const port = await freePort();
    const err = await rejectionOf(() =>
      profileUnderLoad({
        target: { cwd: FIXED_PORT_APP, entry: 'server.js', env: { FIXED_PORT: String(port) } },
        url: `http://127.0.0.1:${port}/ok`,
        loadCommand: `${process.execPath} -e "console.error('bad flag --foo'); process.exit(3)" {url}`,
        warmupS: 0,
        durationS: 2,
        runsDir: tempDir(),
      }),
    );
    assert.ok(err instanceof RunError && err.kind === 'load-failed', String(err));
    assert.match(err.message, /exited with code 3 in the measured window without figures: bad flag --foo/);
  },
);
