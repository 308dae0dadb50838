// Attaching to an app that already runs: the test starts a real app itself (no inspector, or
// one of its own), Hotline attaches by pid, port or URL, puts real load on it through the real
// inspector, finds the hot line, and lets the app go: still running, still serving, nothing of
// the run left inside it, and the inspector closed again when Hotline opened it.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import CDP from 'chrome-remote-interface';
import { profileUnderLoad } from '../../src/core/index.ts';
import { RunError } from '../../src/core/common/run-error.ts';
import { listeningSockets } from '../../src/core/app/proc-net.ts';
import type { ReportV1 } from '../../src/core/report/schema.ts';
import {
  FIXED_PORT_APP,
  RUN_TEST_TIMEOUT,
  assertBuilt,
  freePort,
  isRunning,
  rejectionOf,
  removeTempDirs,
  runCli,
  tempDir,
} from '../helpers/integration.ts';

const SERVER = path.join(FIXED_PORT_APP, 'server.js');
const HOT_LINE = 15; // return crypto.scryptSync(password, SALT, 64);
const LOAD = { warmupS: 1, durationS: 2, connections: 4 } as const;

interface RunningApp {
  child: ChildProcess;
  pid: number;
  port: number;
  /** The inspector URL the app printed, when it was started with one. */
  inspectorUrl?: string;
  stdout(): string;
  stderr(): string;
}

const apps: RunningApp[] = [];

before(assertBuilt);
after(removeTempDirs);
afterEach(() => {
  for (const app of apps.splice(0)) app.child.kill('SIGKILL');
});

/** Starts fixed-port/server.js the way a user would, and resolves once it listens (and its inspector is up, if asked). */
async function startApp(
  nodeFlags: string[],
  cwd = FIXED_PORT_APP,
  entry = SERVER,
  env: Record<string, string> = {},
): Promise<RunningApp> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeFlags, entry], {
    cwd,
    env: { ...process.env, FIXED_PORT: String(port), PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const wantsInspector = nodeFlags.some((f) => f.startsWith('--inspect='));
  const app: RunningApp = { child, pid: child.pid!, port, stdout: () => out, stderr: () => err };
  apps.push(app);
  await new Promise<void>((resolve, reject) => {
    const check = (): void => {
      const url = /Debugger listening on (ws:\/\/\S+)/.exec(err)?.[1];
      if (/listening on http/.test(out) && (!wantsInspector || url)) {
        app.inspectorUrl = url;
        resolve();
      }
    };
    child.stdout!.setEncoding('utf8').on('data', (s: string) => {
      out += s;
      check();
    });
    child.stderr!.setEncoding('utf8').on('data', (s: string) => {
      err += s;
      check();
    });
    child.once('exit', (code) => reject(new Error(`the app exited (${code}) before listening:\n${out}\n${err}`)));
  });
  return app;
}

async function get(port: number, p: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}${p}`);
  await res.arrayBuffer();
  return res.status;
}

function assertHotLine(report: ReportV1): void {
  const first = report.lines[0];
  const top = report.lines
    .slice(0, 3)
    .map((l) => `${l.file}:${l.line} ${l.ownPct}%`)
    .join('\n');
  assert.ok(first, 'the report has hot lines');
  assert.equal(first.file, SERVER, top);
  assert.equal(first.line, HOT_LINE, top);
  assert.ok(first.ownPct >= 50, `server.js:${HOT_LINE} owns ${first.ownPct}% (expected >= 50)\n${top}`);
}

/** What the run could have left inside the app (the loop, stall and wait probes, …), read through an inspector session of our own. */
async function leftInside(
  wsUrl: string,
): Promise<{ probe: boolean; stackCapture: boolean; listenPatched: boolean; watchdogTimers: number }> {
  const url = new URL(wsUrl);
  const client = await CDP({ host: url.hostname, port: Number(url.port), target: wsUrl });
  try {
    const { result } = await client.Runtime.evaluate({
      expression: `JSON.stringify({ probe: ['hotline.probe', 'hotline.stalls', 'hotline.waits'].some((k) => globalThis[Symbol.for(k)] !== undefined),
        stackCapture: globalThis[Symbol.for('hotline.stack')] !== undefined,
        listenPatched: !String(require('net').Server.prototype.listen).includes('[native code]') && String(require('net').Server.prototype.listen).includes('report('),
        watchdogTimers: process._getActiveHandles().filter((h) => h && h._onTimeout && String(h._onTimeout).includes('process.ppid')).length })`,
      includeCommandLineAPI: true,
      returnByValue: true,
    });
    return JSON.parse(String(result.value)) as {
      probe: boolean;
      stackCapture: boolean;
      listenPatched: boolean;
      watchdogTimers: number;
    };
  } finally {
    await client.close();
  }
}

test(
  'CLI --attach pid: SIGUSR1 opens the inspector, the hot line is found, the app keeps running with its inspector closed again',
  RUN_TEST_TIMEOUT,
  async () => {
    // --inspect-port=0: the inspector SIGUSR1 opens gets a free port (9229 may be taken here).
    const app = await startApp(['--inspect-port=0']);
    assert.deepEqual(
      listeningSockets(app.pid)?.map((s) => s.port),
      [app.port],
      'before: only the app port is open',
    );
    const out = tempDir();

    const r = await runCli([
      'profile',
      FIXED_PORT_APP,
      '--attach',
      `pid:${app.pid}`,
      '--url',
      '/scrypt',
      '--warmup',
      '1',
      '--duration',
      '2',
      '--connections',
      '4',
      '--out',
      out,
      '--json',
    ]);

    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as ReportV1;
    assertHotLine(report);
    assert.equal(report.app.pid, app.pid);
    assert.equal(report.app.cwd, FIXED_PORT_APP);
    assert.ok(report.app.command.includes(SERVER), `command from process.argv: ${report.app.command.join(' ')}`);
    assert.equal(report.settings.attach, `pid:${app.pid}`);
    assert.equal(report.app.url, `http://127.0.0.1:${app.port}/scrypt`);
    assert.ok(report.load && report.load.requests.total > 0, 'the load reached the app');
    assert.ok(report.eventLoop && report.eventLoop.delayMs.max > 0, 'the loop probe measured the app');
    assert.match(
      app.stderr(),
      /Debugger listening on ws:\/\/127\.0\.0\.1:\d+/,
      'the app opened its inspector on SIGUSR1',
    );

    // Let go: alive, serving, and the port Hotline opened is closed again.
    assert.ok(isRunning(app.pid), 'the app still runs');
    assert.equal(await get(app.port, '/ok'), 200);
    assert.deepEqual(
      listeningSockets(app.pid)?.map((s) => s.port),
      [app.port],
      'after: the inspector Hotline opened is closed',
    );
  },
);

test(
  'attach by ws:// URL to an app started with --inspect: the run undoes what it installed and leaves the inspector open for its owner',
  RUN_TEST_TIMEOUT,
  async () => {
    const app = await startApp(['--inspect=127.0.0.1:0']);
    const { report } = await profileUnderLoad({
      target: { cwd: FIXED_PORT_APP, entry: '' },
      attach: { target: app.inspectorUrl! },
      url: '/scrypt',
      runsDir: tempDir(),
      ...LOAD,
    });

    assertHotLine(report);
    assert.equal(report.app.pid, app.pid);
    assert.ok(isRunning(app.pid));
    assert.equal(await get(app.port, '/ok'), 200);
    // The app's own inspector stays (it was open before), and nothing of the run is left inside.
    assert.deepEqual(await leftInside(app.inspectorUrl!), {
      probe: false,
      stackCapture: false,
      listenPatched: false,
      watchdogTimers: 0,
    });
  },
);

test(
  'attach by inspector port, cancelled mid-run: the load stops, the app runs on untouched',
  RUN_TEST_TIMEOUT,
  async () => {
    const app = await startApp(['--inspect=127.0.0.1:0']);
    const inspectorPort = Number(new URL(app.inspectorUrl!).port);
    const abort = new AbortController();
    const err = await rejectionOf(() =>
      profileUnderLoad({
        target: { cwd: FIXED_PORT_APP, entry: '' },
        attach: { target: String(inspectorPort) },
        url: '/scrypt',
        runsDir: tempDir(),
        ...LOAD,
        durationS: 30,
        signal: abort.signal,
        onProgress: (p) => {
          if (p.phase === 'measuring') abort.abort();
        },
      }),
    );
    assert.ok(err instanceof RunError && err.kind === 'cancelled', String(err));
    assert.ok(isRunning(app.pid));
    assert.equal(await get(app.port, '/ok'), 200);
    assert.deepEqual(await leftInside(app.inspectorUrl!), {
      probe: false,
      stackCapture: false,
      listenPatched: false,
      watchdogTimers: 0,
    });
  },
);

test(
  'an attached app killed in the profiled window leaves a partial report of the time before',
  RUN_TEST_TIMEOUT,
  async () => {
    const app = await startApp(['--inspect=127.0.0.1:0']);
    const { report } = await profileUnderLoad({
      target: { cwd: FIXED_PORT_APP, entry: '' },
      attach: { target: app.inspectorUrl! },
      url: '/scrypt',
      runsDir: tempDir(),
      ...LOAD,
      durationS: 6,
      segmentS: 1,
      // Two seconds into the profiled window (a segment is saved every second): the app dies.
      onProgress: (p) => {
        if (p.phase === 'profiling' && (p.second ?? 0) >= 2) app.child.kill('SIGKILL');
      },
    });
    assert.ok(report.partial, 'the report says it is partial');
    assert.match(report.partial.reason, /exited during profiling/);
    assertHotLine(report);
  },
);

test(
  'attach plus an external load command (real wrk): both work together, the app is let go',
  {
    ...RUN_TEST_TIMEOUT,
    skip: spawnSync('wrk', ['--version']).error ? 'wrk is not installed here (apt-get install wrk)' : false,
  },
  async () => {
    const app = await startApp(['--inspect=127.0.0.1:0']);
    const { report } = await profileUnderLoad({
      target: { cwd: FIXED_PORT_APP, entry: '' },
      attach: { target: `pid:${app.pid}` },
      url: '/scrypt',
      runsDir: tempDir(),
      warmupS: 1,
      durationS: 2,
      loadCommand: 'wrk -t1 -c4 -d2s {url}',
    });
    assert.equal(report.load?.external?.tool, 'wrk');
    assert.equal(report.load?.external?.parsed, true);
    assert.ok(report.load!.requests.total > 0);
    assertHotLine(report);
    assert.ok(isRunning(app.pid));
    assert.deepEqual(await leftInside(app.inspectorUrl!), {
      probe: false,
      stackCapture: false,
      listenPatched: false,
      watchdogTimers: 0,
    });
  },
);

test(
  'an app on two ports and a path --url: refused with both ports named, nothing left in the app',
  RUN_TEST_TIMEOUT,
  async () => {
    const dir = path.join(path.dirname(FIXED_PORT_APP), 'two-ports');
    const app = await startApp(['--inspect=127.0.0.1:0'], dir, path.join(dir, 'server.js'));
    const ports = [...app.stdout().matchAll(/127\.0\.0\.1:(\d+)/g)].map((m) => Number(m[1])).sort((a, b) => a - b);
    const err = await rejectionOf(() =>
      profileUnderLoad({
        target: { cwd: dir, entry: '' },
        attach: { target: app.inspectorUrl! },
        url: '/',
        runsDir: tempDir(),
        ...LOAD,
      }),
    );
    assert.ok(err instanceof RunError && err.kind === 'bad-options', String(err));
    assert.ok(err.message.includes(`listens on ports ${ports.join(', ')}`), err.message);
    assert.match(err.message, /full --url/);
    assert.ok(isRunning(app.pid));
    assert.deepEqual(await leftInside(app.inspectorUrl!), {
      probe: false,
      stackCapture: false,
      listenPatched: false,
      watchdogTimers: 0,
    });
  },
);
