// "Hotline: Attach and Profile Under Load…" in a real VS Code (code-server in headless
// Chromium): the test starts the login example itself, as a user would in a terminal; the
// command lists it among the Node processes running in the workspace, attaches (SIGUSR1 opens
// its inspector), profiles it under load, shows the report with the pbkdf2Sync line — and the
// app is still running and serving afterwards, its inspector closed again.
//
//   node --import tsx --test --test-concurrency=1 --test-reporter=spec test/e2e/attach.e2e.test.ts
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { ensureSetup, freePort, startVSCode, type VSCode } from './harness.ts';
import * as dom from './vscode-dom.ts';
import { loginApiCopy, packExtension } from './hotline-setup.ts';
import { describeFailure } from './failure.ts';
import { listeningSockets } from '../../src/core/app/proc-net.ts';

/** The packed extension, a copy of the login example, and that example already running. */
async function setUp(): Promise<{
  tmp: string;
  vsix: string;
  workspace: string;
  app: ChildProcess;
  port: number;
  listening: Promise<void>;
}> {
  ensureSetup();
  const tmp = fs.mkdtempSync('/tmp/hle2e-');
  const vsix = packExtension(tmp);
  const workspace = loginApiCopy(tmp);
  return { tmp, vsix, workspace, ...(await startLoginApi(workspace)) };
}

/** The login example started the way a user runs it (inspector closed), on a free port. */
async function startLoginApi(
  workspace: string,
): Promise<{ app: ChildProcess; port: number; listening: Promise<void> }> {
  const port = await freePort();
  const app = spawn(process.execPath, ['--inspect-port=0', 'server.js'], {
    cwd: workspace,
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const listening = new Promise<void>((resolve, reject) => {
    let out = '';
    app.stdout!.setEncoding('utf8').on('data', (s: string) => {
      out += s;
      if (/listening on/.test(out)) resolve();
    });
    app.once('exit', (code) => reject(new Error(`login-api exited (${code}) before listening: ${out}`)));
  });
  return { app, port, listening };
}

test(
  'Attach and Profile Under Load: pick the running app, report of its hot line, the app keeps running',
  { timeout: 600_000 },
  async (t) => {
    const { tmp, vsix, workspace, app, port, listening } = await setUp();
    let vs: VSCode | undefined;
    try {
      await listening;
      vs = await startVSCode({
        workspace,
        extensionVsix: vsix,
        userSettings: {
          'hotline.url': '/login',
          'hotline.method': 'POST',
          'hotline.headers': { 'content-type': 'application/json' },
          'hotline.body': JSON.stringify({ email: 'alice@example.com', password: 'correct horse battery staple' }),
          'hotline.connections': 20,
          'hotline.duration': 3,
          'hotline.warmup': 1,
        },
      });
      const { page } = vs;
      await dom.runCommand(page, 'Hotline: Attach and Profile Under Load…');
      // The app the test started is offered by its pid, among the workspace's Node processes.
      const row = page
        .locator(dom.SEL.quickInputRow)
        .filter({ hasText: `${app.pid}  ` })
        .first();
      await row.waitFor({ state: 'visible', timeout: 30_000 });
      await vs.screenshot('attach-1-picker');
      await row.click();

      // The run's progress, in whichever phase (a 3 s window may pass before a busy machine looks).
      await dom.waitForNotification(page, /Hotline.*(Warm-up|Measuring|Profiling|Analyzing)/, 60_000);
      const report = await dom.webviewFrame(page, { title: 'Hotline Report', timeout: 120_000 });
      await report.getByText('server.js:35').first().waitFor({ state: 'visible', timeout: 60_000 });
      await report
        .getByText(/crypto\.pbkdf2Sync/)
        .first()
        .waitFor({ state: 'visible' });
      await vs.screenshot('attach-2-report');

      const runsDir = path.join(workspace, '.hotline', 'runs');
      const [run] = fs.readdirSync(runsDir);
      const saved = JSON.parse(fs.readFileSync(path.join(runsDir, run, 'report.json'), 'utf8')) as {
        app: { pid: number };
        settings: { attach?: string };
      };
      assert.equal(saved.app.pid, app.pid);
      assert.equal(saved.settings.attach, `pid:${app.pid}`);

      // Let go: still running, still serving, and the inspector Hotline opened is closed again.
      assert.equal(app.exitCode, null, 'the app still runs');
      const res = await fetch(`http://127.0.0.1:${port}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'alice@example.com', password: 'wrong' }),
      });
      assert.equal(res.status, 401);
      await dom.waitUntil(
        'the inspector Hotline opened to be closed',
        async () => listeningSockets(app.pid!)?.length === 1,
        10_000,
      );
    } catch (err) {
      if (vs) {
        await describeFailure(vs, t, 'attach-failure');
      }
      throw err;
    } finally {
      await vs?.stop();
      app.kill('SIGKILL');
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  },
);

test(
  'Restricted Mode: Attach and Profile Under Load refuses, says why, and never touches the running app',
  { timeout: 600_000 },
  async (t) => {
    const { tmp, vsix, workspace, app, port, listening } = await setUp();
    let vs: VSCode | undefined;
    try {
      await listening;
      vs = await startVSCode({
        workspace,
        extensionVsix: vsix,
        workspaceTrust: true,
        userSettings: { 'hotline.url': '/login', 'hotline.duration': 2, 'hotline.warmup': 1 },
      });
      const { page } = vs;
      await page
        .locator(dom.SEL.statusBar)
        .getByText('Restricted Mode')
        .first()
        .waitFor({ state: 'visible', timeout: 60_000 });
      await dom.runCommand(page, 'Hotline: Attach and Profile Under Load…');
      const warning = await dom.waitForNotification(page, /Restricted Mode/, 60_000);
      assert.match(warning, /will not attach/);
      await vs.screenshot('attach-3-restricted');
      assert.equal(
        await page
          .locator(dom.SEL.quickInputRow)
          .filter({ hasText: String(app.pid) })
          .count(),
        0,
        'no process picker',
      );
      assert.deepEqual(
        listeningSockets(app.pid!)?.map((s) => s.port),
        [port],
        'no inspector was opened in the app',
      );
      assert.equal(fs.existsSync(path.join(workspace, '.hotline', 'runs')), false, 'no run');
    } catch (err) {
      if (vs) t.diagnostic(`notifications: ${JSON.stringify(await dom.notificationTexts(vs.page).catch(() => []))}`);
      throw err;
    } finally {
      await vs?.stop();
      app.kill('SIGKILL');
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  },
);
