// Starts a REAL VS Code (code-server 4.139.1 = VS Code 1.139, on Node 24) with an extension
// installed, and drives it in Debian's Chromium through playwright-core.
//
//   const vs = await startVSCode({ workspace, extensionVsix });
//   try { ... vs.page ... } finally { await vs.stop(); }
//
// Everything code-server writes (HOME, XDG_*, TMPDIR, user data, extensions) goes into a fresh
// short run folder under /tmp, so runs never see each other nor the user's own settings.
// code-server is spawned in its own process group; stop() kills the group (and any process
// that descends from it, even one that made its own group), and a process 'exit'/signal
// handler does the same if a test dies without calling stop().
//
// Paths to node24 / code-server come from $HOTLINE_E2E_CACHE/env.json, which
// scripts/e2e-setup.sh writes (see ensureSetup()); `npm test` runs that script first.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { waitForWorkbench } from './vscode-dom.ts';
import { assertChromium } from '../helpers/chromium.ts';

// The repo root is found by walking up (tsx gives __dirname differently when this file is loaded
// from an ES module, e.g. scripts/demo-vscode.mjs).
function findRepoRoot(): string {
  for (let dir = path.resolve(__dirname); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'test/e2e/harness.ts')) && fs.existsSync(path.join(dir, 'package.json')))
      return dir;
    if (path.dirname(dir) === dir) throw new Error(`repo root not found above ${__dirname}`);
  }
}
export const REPO_ROOT = findRepoRoot();
export const ARTIFACTS_DIR = path.join(REPO_ROOT, 'test/e2e/artifacts');

export interface E2EEnv {
  cache: string;
  node: string;
  codeServerEntry: string;
  chromium: string;
}

export function cacheDir(): string {
  return process.env.HOTLINE_E2E_CACHE || path.join(os.homedir(), '.cache/hotline-e2e');
}

/** Reads the paths written by scripts/e2e-setup.sh; null when the setup has not run (or is stale). */
export function readSetup(): E2EEnv | null {
  const file = path.join(cacheDir(), 'env.json');
  if (!fs.existsSync(file)) return null;
  const env = JSON.parse(fs.readFileSync(file, 'utf8')) as E2EEnv;
  for (const p of [env.node, env.codeServerEntry, env.chromium]) if (!fs.existsSync(p)) return null;
  return env;
}

/** Returns the setup's paths, running scripts/e2e-setup.sh first when they are missing. */
export function ensureSetup(): E2EEnv {
  let env = readSetup();
  if (env) return env;
  const r = spawnSync('bash', [path.join(REPO_ROOT, 'scripts/e2e-setup.sh')], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`scripts/e2e-setup.sh failed (exit ${r.status})`);
  env = readSetup();
  if (!env) throw new Error('scripts/e2e-setup.sh ran but env.json is missing or incomplete');
  return env;
}

/** Default user settings: a clean, deterministic window (no welcome page, no chat, no tips...). */
export const DEFAULT_USER_SETTINGS: Record<string, unknown> = {
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.startupEditor': 'none',
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.reduceMotion': 'on',
  'workbench.editor.enablePreview': false,
  'window.restoreWindows': 'none',
  'chat.disableAIFeatures': true,
  'chat.commandCenter.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'security.workspace.trust.enabled': false,
  'git.enabled': false,
  'git.autoRepositoryDetection': false,
  'npm.autoDetect': 'off',
  // TypeScript's automatic type acquisition goes to the network and shows a status-bar spinner.
  'typescript.disableAutomaticTypeAcquisition': true,
  'editor.minimap.enabled': false,
  'editor.cursorBlinking': 'solid',
  'editor.accessibilitySupport': 'off',
  // code-server's port auto-forwarding would pop "application running on port N" toasts when
  // the extension starts an app.
  'remote.autoForwardPorts': false,
  'files.simpleDialog.enable': true,
};

export interface CodeServerOptions {
  /** Folder opened in VS Code. */
  workspace: string;
  /** A .vsix (or several) installed with `--install-extension` before start. */
  extensionVsix?: string | string[];
  /** An unpacked extension folder, copied to <ext>/<publisher>.<name>-<version>. */
  extensionDir?: string;
  /** Merged over DEFAULT_USER_SETTINGS into the user settings.json. */
  userSettings?: Record<string, unknown>;
  /** Extra environment for code-server (and so the extension host). */
  env?: Record<string, string>;
  /** Fixed port (default: a free one). */
  port?: number;
  /** ms to wait for code-server to serve (default 60 s). */
  startTimeoutMs?: number;
  /**
   * Workspace Trust on (default off): code-server starts without --disable-workspace-trust and
   * the folder, never trusted before in the fresh user data, opens in Restricted Mode without the
   * modal startup prompt (WORKSPACE_TRUST_SETTINGS; userSettings may still override them).
   */
  workspaceTrust?: boolean;
}

/**
 * With `workspaceTrust: true`: trust is enabled, and an untrusted folder opens in Restricted
 * Mode straight away (no "Do you trust the authors?" dialog blocking the window); the banner
 * says so, and files opened from outside open without a prompt.
 */
export const WORKSPACE_TRUST_SETTINGS: Record<string, unknown> = {
  'security.workspace.trust.enabled': true,
  'security.workspace.trust.startupPrompt': 'never',
  'security.workspace.trust.banner': 'always',
  'security.workspace.trust.untrustedFiles': 'open',
  'security.workspace.trust.emptyWindow': false,
};

export interface CodeServer {
  url: string;
  port: number;
  pid: number;
  /** The run folder: home/, tmp/, ud/ (user data), ext/ (extensions), code-server.log. */
  runDir: string;
  workspace: string;
  /** code-server's stdout+stderr so far. */
  logs(): string;
  /** The extension host's log (VS Code's exthost.log), or '' when not written yet. */
  extensionHostLog(): string;
  /** Settles when code-server's main process exits (on its own or through stop()). */
  exited: Promise<void>;
  /** Kills code-server's process group and descendants; waits until they are gone. */
  stop(opts?: { keepRunDir?: boolean }): Promise<void>;
}

export interface VSCode extends CodeServer {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Browser console messages and page errors so far. */
  browserLogs(): string[];
  /** URLs of requests to hosts other than 127.0.0.1 that were aborted. */
  blockedRequests(): string[];
  /** Saves test/e2e/artifacts/<name>.png and returns its path. */
  screenshot(name: string): Promise<string>;
}

// ------------------------------------------------------------------------------------------
// Process bookkeeping: every live code-server is stopped when the process ends, even if a test
// forgot stop(): on 'exit' (SIGKILL to the group and descendants, synchronous), on SIGINT/SIGTERM/
// SIGHUP (a graceful stop, then exit with 128+signal), and under `node --test` in an after()
// hook of the test file (otherwise the open browser/child would keep its process alive forever).

interface LiveEntry {
  kill: (sig: NodeJS.Signals) => void;
  stop: () => Promise<void>;
}
const live = new Set<LiveEntry>();
let handlersInstalled = false;

/** Stops every code-server this process started and has not stopped yet. */
export async function stopAll(): Promise<void> {
  await Promise.allSettled([...[...openBrowsers].map((b) => closeBrowser(b)), ...[...live].map((l) => l.stop())]);
}
const openBrowsers = new Set<Browser>();

function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', () => {
    for (const l of live) l.kill('SIGKILL');
  });
  let signalled = false;
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(sig, () => {
      if (signalled) return;
      signalled = true;
      const code = 128 + (os.constants.signals[sig] ?? 15);
      setTimeout(() => process.exit(code), 15_000).unref();
      void stopAll().finally(() => process.exit(code));
    });
  }
}

// Under node:test, whatever is still running when the file's tests end is stopped then. This is
// registered once, when the harness is loaded: an after() registered later would belong to the
// test or hook running at that moment (a before() hook that starts VS Code for a describe() would
// stop it as soon as the hook returned).
if (process.env.NODE_TEST_CONTEXT) after(() => stopAll());

/** All descendants of pid (children, grandchildren...), read from /proc. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (comm) state ppid ... — comm may contain spaces/parens, so split after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(name));
    children.set(ppid, list);
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length) {
    for (const c of children.get(stack.pop()!) ?? []) {
      out.push(c);
      stack.push(c);
    }
  }
  return out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie still answers kill(0); treat it as gone.
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** pids whose command line mentions `needle` (used to prove nothing of a run is left). */
export function processesMentioning(needle: string): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (cmd.includes(needle) && alive(Number(name))) out.push(Number(name));
    } catch {
      /* gone */
    }
  }
  return out;
}

// ------------------------------------------------------------------------------------------

export async function freePort(): Promise<number> {
  const srv = net.createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

function makeRunDir(): string {
  // Short on purpose: VS Code puts unix sockets under TMPDIR/XDG_RUNTIME_DIR (sun_path ≤ 108 bytes).
  const base = fs.existsSync('/tmp') ? '/tmp' : os.tmpdir();
  const dir = fs.mkdtempSync(path.join(base, 'hle2e-'));
  for (const d of ['home', 'tmp', 'ud/User', 'ext', 'xdg/config', 'xdg/data', 'xdg/cache', 'xdg/state', 'xdg/run'])
    fs.mkdirSync(path.join(dir, d), { recursive: true });
  fs.chmodSync(path.join(dir, 'xdg/run'), 0o700);
  return dir;
}

function runEnv(runDir: string, _env: E2EEnv, extra?: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  // Variables of an enclosing VS Code / test runner must not leak into the one we start.
  for (const k of Object.keys(base)) {
    if (/^(VSCODE_|ELECTRON_|NODE_OPTIONS$|NODE_TEST_CONTEXT$|CODE_SERVER_|npm_)/.test(k)) delete base[k];
  }
  return {
    ...base,
    HOME: path.join(runDir, 'home'),
    TMPDIR: path.join(runDir, 'tmp'),
    XDG_CONFIG_HOME: path.join(runDir, 'xdg/config'),
    XDG_DATA_HOME: path.join(runDir, 'xdg/data'),
    XDG_CACHE_HOME: path.join(runDir, 'xdg/cache'),
    XDG_STATE_HOME: path.join(runDir, 'xdg/state'),
    XDG_RUNTIME_DIR: path.join(runDir, 'xdg/run'),
    // The extension host runs on code-server's Node; a `node` spawned by an extension should be
    // whatever the caller has on PATH, so PATH is left as is.
    ...extra,
  };
}

function readJson<T>(file: string): T {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
}

function installUnpacked(extDir: string, extensionsDir: string): void {
  const pkg = readJson<{ publisher: string; name: string; version: string }>(path.join(extDir, 'package.json'));
  const dest = path.join(extensionsDir, `${pkg.publisher}.${pkg.name}-${pkg.version}`.toLowerCase());
  fs.cpSync(extDir, dest, { recursive: true, dereference: true });
}

function installVsix(env: E2EEnv, runDir: string, vsix: string, childEnv: NodeJS.ProcessEnv): void {
  const r = spawnSync(
    env.node,
    [
      env.codeServerEntry,
      '--config',
      path.join(runDir, 'config.yaml'),
      '--user-data-dir',
      path.join(runDir, 'ud'),
      '--extensions-dir',
      path.join(runDir, 'ext'),
      '--install-extension',
      path.resolve(vsix),
      '--force',
    ],
    { env: childEnv, encoding: 'utf8', timeout: 120_000 },
  );
  fs.appendFileSync(path.join(runDir, 'code-server.log'), `--- install ${vsix}\n${r.stdout}${r.stderr}\n`);
  if (r.status !== 0 || !/successfully installed/i.test(r.stdout + r.stderr)) {
    throw new Error(`installing ${vsix} failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  }
}

function httpStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.setTimeout(2000, () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/** Starts code-server only (no browser). Used by startVSCode() and scripts/demo-vscode.mjs. */
export async function startCodeServer(opts: CodeServerOptions): Promise<CodeServer> {
  const env = ensureSetup();
  installExitHandlers();
  const workspace = path.resolve(opts.workspace);
  if (!fs.statSync(workspace).isDirectory()) throw new Error(`workspace is not a folder: ${workspace}`);
  const runDir = makeRunDir();
  const logFile = path.join(runDir, 'code-server.log');
  fs.writeFileSync(logFile, '');
  const childEnv = runEnv(runDir, env, opts.env);
  fs.writeFileSync(
    path.join(runDir, 'ud/User/settings.json'),
    JSON.stringify(
      { ...DEFAULT_USER_SETTINGS, ...(opts.workspaceTrust ? WORKSPACE_TRUST_SETTINGS : {}), ...opts.userSettings },
      null,
      2,
    ),
  );

  for (const vsix of [opts.extensionVsix ?? []].flat()) installVsix(env, runDir, vsix, childEnv);
  if (opts.extensionDir) installUnpacked(opts.extensionDir, path.join(runDir, 'ext'));

  const startTimeout = opts.startTimeoutMs ?? 60_000;
  let lastError: Error | undefined;
  // A free port can be taken between freePort() and code-server's bind: retry on EADDRINUSE.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = opts.port ?? (await freePort());
    fs.writeFileSync(path.join(runDir, 'config.yaml'), `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
    const logFd = fs.openSync(logFile, 'a');
    const child: ChildProcess = spawn(
      env.node,
      [
        env.codeServerEntry,
        '--config',
        path.join(runDir, 'config.yaml'),
        '--user-data-dir',
        path.join(runDir, 'ud'),
        '--extensions-dir',
        path.join(runDir, 'ext'),
        '--bind-addr',
        `127.0.0.1:${port}`,
        '--auth',
        'none',
        '--disable-telemetry',
        '--disable-update-check',
        ...(opts.workspaceTrust ? [] : ['--disable-workspace-trust']),
        '--disable-getting-started-override',
        '--ignore-last-opened',
        workspace,
      ],
      { cwd: runDir, env: childEnv, detached: true, stdio: ['ignore', logFd, logFd] },
    );
    fs.closeSync(logFd);
    const pgid = child.pid!;
    let exited = false;
    const exitedPromise = new Promise<void>((resolve) =>
      child.on('exit', () => {
        exited = true;
        resolve();
      }),
    );

    const kill = (sig: NodeJS.Signals) => {
      // Descendants first: a process that made its own group/session (e.g. an app the extension
      // started detached) is not reached by the group kill.
      const pids = [...descendants(pgid), pgid];
      try {
        process.kill(-pgid, sig);
      } catch {
        /* group gone */
      }
      for (const p of pids) {
        try {
          process.kill(p, sig);
        } catch {
          /* gone */
        }
      }
    };
    let stopping: Promise<void> | undefined;
    const stopped = (keepRunDir = !!process.env.HOTLINE_E2E_KEEP): Promise<void> => (stopping ??= doStop(keepRunDir));
    const entry: LiveEntry = { kill, stop: () => stopped() };
    live.add(entry);

    const doStop = async (keepRunDir: boolean) => {
      const pids = [...descendants(pgid), pgid];
      kill('SIGTERM');
      const deadline = Date.now() + 5000;
      const gone = () => !groupAlive(pgid) && pids.every((p) => !alive(p));
      while (!gone() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      if (!gone()) {
        for (const p of [...descendants(pgid), ...pids]) {
          try {
            process.kill(p, 'SIGKILL');
          } catch {
            /* gone */
          }
        }
        try {
          process.kill(-pgid, 'SIGKILL');
        } catch {
          /* gone */
        }
        const hard = Date.now() + 5000;
        while (!gone() && Date.now() < hard) await new Promise((r) => setTimeout(r, 50));
        if (!gone()) throw new Error(`code-server (pgid ${pgid}) did not exit`);
      }
      live.delete(entry);
      if (!keepRunDir) fs.rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
    };

    const url = `http://127.0.0.1:${port}/`;
    const deadline = Date.now() + startTimeout;
    let ready = false;
    while (Date.now() < deadline && !exited) {
      if ((await httpStatus(url + 'healthz')) === 200) {
        ready = true;
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    const log = () => fs.readFileSync(logFile, 'utf8');
    if (ready) {
      return {
        url,
        port,
        pid: pgid,
        runDir,
        workspace,
        logs: log,
        exited: exitedPromise,
        extensionHostLog: () => readExtensionHostLog(runDir),
        stop: (o) => stopped(o?.keepRunDir),
      };
    }
    await stopped(true);
    lastError = new Error(
      `code-server did not serve ${url} within ${startTimeout} ms (exited: ${exited}); log ${logFile}:\n${log().slice(-3000)}`,
    );
    if (!/EADDRINUSE/.test(log()) || opts.port) break;
  }
  throw lastError!;
}

function readExtensionHostLog(runDir: string): string {
  const logsRoot = path.join(runDir, 'ud/logs');
  if (!fs.existsSync(logsRoot)) return '';
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/^exthost\d*\.log$/.test(e.name) || e.name === 'remoteexthost.log') found.push(p);
    }
  };
  walk(logsRoot);
  return found.map((f) => `--- ${path.relative(runDir, f)}\n${fs.readFileSync(f, 'utf8')}`).join('\n');
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--no-first-run',
  '--no-default-browser-check',
];

/** Starts code-server, then Chromium on it, and waits for the workbench. */
export async function startVSCode(
  opts: CodeServerOptions & { viewport?: { width: number; height: number } },
): Promise<VSCode> {
  const env = ensureSetup();
  assertChromium(); // before code-server starts: a missing browser is one line, nothing to stop
  const cs = await startCodeServer(opts);
  let browser: Browser | undefined;
  const consoleLines: string[] = [];
  const blocked: string[] = [];
  try {
    browser = await chromium.launch({ executablePath: env.chromium, headless: true, args: CHROMIUM_ARGS });
    openBrowsers.add(browser);
    const context = await browser.newContext({
      viewport: opts.viewport ?? { width: 1400, height: 900 },
      deviceScaleFactor: 1,
      locale: 'en-US',
      timezoneId: 'UTC',
      colorScheme: 'dark',
      reducedMotion: 'reduce',
    });
    // Nothing may leave the machine: the extension gallery look-up etc. would go out otherwise.
    await context.route(
      (u) => u.hostname !== '127.0.0.1',
      (route) => {
        blocked.push(route.request().url());
        return route.abort('blockedbyclient');
      },
    );
    const page = await context.newPage();
    page.on('console', (m) => consoleLines.push(`[${m.type()}] ${m.text()}`));
    page.on('pageerror', (e) => consoleLines.push(`[pageerror] ${e.message}`));
    const u = new URL(cs.url);
    u.searchParams.set('folder', cs.workspace);
    await page.goto(u.toString(), { waitUntil: 'domcontentloaded', timeout: 60_000 });
    await waitForWorkbench(page);

    const b = browser;
    let stopping: Promise<void> | undefined;
    return {
      ...cs,
      browser: b,
      context,
      page,
      browserLogs: () => [...consoleLines],
      blockedRequests: () => [...blocked],
      async screenshot(name: string) {
        fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
        const file = path.join(ARTIFACTS_DIR, `${name.replace(/[^\w.-]+/g, '-')}.png`);
        await page.screenshot({ path: file, animations: 'disabled', caret: 'hide' });
        return file;
      },
      stop(o?: { keepRunDir?: boolean }) {
        stopping ??= (async () => {
          await closeBrowser(b);
          await cs.stop(o);
        })();
        return stopping;
      },
    };
  } catch (e) {
    if (browser) await closeBrowser(browser);
    await cs.stop({ keepRunDir: true });
    const err = e as Error;
    err.message += `\n(run folder kept: ${cs.runDir})\n--- code-server log (tail)\n${cs.logs().slice(-2000)}\n--- browser console (tail)\n${consoleLines.slice(-30).join('\n')}`;
    throw err;
  }
}

async function closeBrowser(browser: Browser): Promise<void> {
  openBrowsers.delete(browser);
  // browser.close() can hang if Chromium is wedged; Playwright kills it on its own exit anyway.
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    browser.close().catch(() => {}),
    new Promise((r) => {
      timer = setTimeout(r, 10_000);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
}
