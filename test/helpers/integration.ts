// Shared by test/integration/*: where the apps are, temp folders, the built CLI as a child
// process, and process accounting read straight from /proc (independent of src/core/app/processes.ts,
// so a bug there cannot hide a leak here). Nothing here sleeps: waits are on events.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, afterEach, before } from 'node:test';
import type { RunPhase, RunProgress } from '../../src/core/capture/run-types.ts';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const LOGIN_API = path.join(REPO_ROOT, 'examples', 'login-api');
export const HELPER_MODULE = path.join(REPO_ROOT, 'test', 'apps', 'helper-module');
export const FIXED_PORT_APP = path.join(REPO_ROOT, 'test', 'apps', 'fixed-port');
export const TS_APP = path.join(REPO_ROOT, 'test', 'apps', 'ts-app');
export const BAD_APPS = path.join(REPO_ROOT, 'test', 'apps', 'bad');
export const CLI = path.join(REPO_ROOT, 'bin', 'hotline.js');

/** The demo user's password: it must never reach report.json in clear. */
export const LOGIN_PASSWORD = 'correct horse battery staple';
export const LOGIN_BODY = JSON.stringify({ email: 'alice@example.com', password: LOGIN_PASSWORD });
/** `hotline profile` of the login API's POST /login (add the load options). */
export const LOGIN_PROFILE_ARGS = [
  'profile',
  'examples/login-api',
  '--entry',
  'server.js',
  '--url',
  '/login',
  '--method',
  'POST',
  '--header',
  'content-type:application/json',
  '--body',
  LOGIN_BODY,
];
export const JSON_HEADERS = { 'content-type': 'application/json' };

/** The 1-based line of `file` that carries the comment `// MARK` (a test app's known answer). */
export function markedLine(file: string, mark: string): number {
  return (
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .findIndex((l) => l.includes(`// ${mark}`)) + 1
  );
}

/** Short runs: the suite must stay within a few minutes on two cores. */
export const SHORT_RUN = { warmupS: 1, durationS: 2, connections: 10 } as const;

/** Per-test ceiling: a hung run fails its test instead of the whole suite. */
export const RUN_TEST_TIMEOUT = { timeout: 60_000 };

// ---- set-up ----------------------------------------------------------------------------------

/** The load runner and the capture sender start from dist/: without a build every run fails. */
export function assertBuilt(): void {
  for (const file of ['dist/load-runner.js', 'dist/capture-sender.js', 'dist/cli.js']) {
    assert.ok(
      fs.existsSync(path.join(REPO_ROOT, file)),
      `${file} is missing: run \`npm run build\` before the integration tests`,
    );
  }
}

/** examples/login-api needs Express installed once. */
export function ensureLoginApiDeps(): void {
  if (fs.existsSync(path.join(LOGIN_API, 'node_modules', 'express'))) return;
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['--prefix', LOGIN_API, 'ci', '--no-audit', '--no-fund'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, `npm ci in examples/login-api failed:\n${r.stdout}\n${r.stderr}`);
}

const tempDirs: string[] = [];

/** A fresh folder under the OS temp dir; removeTempDirs() deletes all of them. */
export function tempDir(prefix = 'hotline-it-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of tempDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** A port nothing listens on right now (the OS picks it): the engine's own. */
export { freePort } from '../../src/core/app/ports.ts';

/** A TCP server holding a port, for the port-in-use cases. */
export async function occupyPort(): Promise<{ port: number; close(): Promise<void> }> {
  const server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Runs `fn`, which must reject; returns the rejection for the caller to inspect. */
export async function rejectionOf(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  assert.fail('expected the run to fail, but it completed');
}

// ---- processes, from /proc -------------------------------------------------------------------

export interface ProcInfo {
  pid: number;
  ppid: number;
  /** R, S, D, Z (zombie), … from /proc/<pid>/stat. */
  state: string;
  argv: string[];
}

function readProc(pid: number): ProcInfo | undefined {
  let stat: string;
  let cmdline: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return undefined; // gone while we looked
  }
  // "pid (comm) state ppid …": comm may hold spaces or parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { pid, ppid: Number(fields[1]), state: fields[0], argv: cmdline.split('\0').filter((a) => a !== '') };
}

/** Every live (non-zombie) process on the machine. */
export function listProcesses(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const info = readProc(Number(name));
    if (info && info.state !== 'Z' && info.state !== 'X') out.push(info);
  }
  return out;
}

/** Alive and not a zombie waiting to be reaped. */
export function isRunning(pid: number): boolean {
  const info = readProc(pid);
  return info !== undefined && info.state !== 'Z' && info.state !== 'X';
}

/** Children, grandchildren, … of `pid`, as they are now. */
export function descendantsOf(pid: number): ProcInfo[] {
  const all = listProcesses();
  const out: ProcInfo[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const p of all) {
      if (p.ppid === parent) {
        out.push(p);
        queue.push(p.pid);
      }
    }
  }
  return out;
}

/** Processes whose command line names `folder` or a file inside it. */
export function processesMentioning(folder: string): ProcInfo[] {
  const dir = path.resolve(folder);
  return listProcesses().filter(
    (p) => p.pid !== process.pid && p.argv.some((a) => a === dir || a.includes(`${dir}${path.sep}`)),
  );
}

/** The environment that makes test/apps/bad/exits-later die on SIGUSR2 instead of on a timer. */
export const DIE_WHEN_TOLD = { EXIT_ON_SIGNAL: 'SIGUSR2' } as const;

/**
 * An onProgress for a run of `appDir` (started with DIE_WHEN_TOLD): once the run reports `afterS`
 * whole seconds of `phase`, the app it started (its server.js on the command line, new since this
 * call) is told to die. The crash lands in that window whatever the machine's speed.
 */
export function dieDuring(phase: RunPhase, appDir: string, afterS = 1): (p: RunProgress) => void {
  const entry = path.join(path.resolve(appDir), 'server.js');
  const before = new Set(processesMentioning(appDir).map((p) => p.pid));
  let told = false;
  return (p) => {
    if (told || p.phase !== phase || (p.second ?? 0) < afterS) return;
    told = true;
    for (const app of processesMentioning(appDir))
      if (!before.has(app.pid) && app.argv.includes(entry)) process.kill(app.pid, 'SIGUSR2');
  };
}

const describe = (ps: ProcInfo[]): string =>
  ps.map((p) => `  ${p.pid} (ppid ${p.ppid}, ${p.state}): ${p.argv.join(' ')}`).join('\n');

/**
 * Leak check for one test: remembers the processes that already mention the app folder (another
 * engineer's run, say), so that afterwards only the ones this test started count.
 */
export class LeakGuard {
  private readonly before: Set<number>;

  constructor(readonly folder: string) {
    this.before = new Set(processesMentioning(folder).map((p) => p.pid));
  }

  /** Fails when a given pid still runs, or a new process mentioning the folder is still there. */
  assertClean(pids: number[] = []): void {
    const running = pids.filter((pid) => pid > 0 && isRunning(pid));
    assert.deepEqual(
      running,
      [],
      `still running after the run:\n${describe(running.map((pid) => readProc(pid)!).filter(Boolean))}`,
    );
    const left = processesMentioning(this.folder).filter((p) => !this.before.has(p.pid));
    assert.deepEqual(
      left.map((p) => p.pid),
      [],
      `processes left behind in ${this.folder}:\n${describe(left)}`,
    );
  }
}

// ---- the built CLI ---------------------------------------------------------------------------

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliProcess {
  child: ChildProcess;
  /** Resolves when the CLI has exited and its output is complete. */
  done: Promise<CliResult>;
  /** Resolves with the stderr seen so far once it contains `text`; rejects if the CLI exits first. */
  waitForStderr(text: string): Promise<string>;
}

/** `node bin/hotline.js ARGS` from the repository root, output captured. */
export function startCli(args: string[], opts: { cwd?: string; detached?: boolean } = {}): CliProcess {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: opts.cwd ?? REPO_ROOT,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: opts.detached ?? false,
  });
  let stdout = '';
  let stderr = '';
  const watchers: Array<{ text: string; resolve(s: string): void }> = [];
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stdout!.on('data', (s: string) => {
    stdout += s;
  });
  child.stderr!.on('data', (s: string) => {
    stderr += s;
    for (const w of watchers.splice(0)) {
      if (stderr.includes(w.text)) w.resolve(stderr);
      else watchers.push(w);
    }
  });
  const done = new Promise<CliResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  const waitForStderr = (text: string): Promise<string> => {
    if (stderr.includes(text)) return Promise.resolve(stderr);
    return new Promise<string>((resolve, reject) => {
      watchers.push({ text, resolve });
      void done.then(
        (r) => reject(new Error(`the CLI exited (code ${r.code}) before printing "${text}":\n${r.stderr}`)),
        reject,
      );
    });
  };
  return { child, done, waitForStderr };
}

export function runCli(args: string[], opts: { cwd?: string } = {}): Promise<CliResult> {
  return startCli(args, opts).done;
}

/** The CLI's stderr as lines, without the empty last one. */
export function lines(text: string): string[] {
  return text.split('\n').filter((l, i, all) => !(l === '' && i === all.length - 1));
}

/**
 * The hooks of a file of tests that make runs: the build is checked before, temp folders are
 * removed after, and after each test nothing of the app folder given to watch() is left running
 * (the app's own pid included, once appStarted() names it).
 */
export function leakCheckedRuns(): { watch(cwd: string): void; appStarted(pid: number): void } {
  let guard: LeakGuard | undefined;
  let appPid = -1;
  before(assertBuilt);
  after(removeTempDirs);
  afterEach(() => {
    const g = guard;
    const pid = appPid;
    guard = undefined;
    appPid = -1;
    g?.assertClean([pid]);
  });
  return {
    watch: (cwd) => {
      guard = new LeakGuard(cwd);
    },
    appStarted: (pid) => {
      appPid = pid;
    },
  };
}
