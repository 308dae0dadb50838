// Proves the e2e harness on a throwaway extension (test/e2e/fixtures/smoke-extension) in a real
// VS Code (code-server 4.139.1) driven in Chromium: palette command + notification, CodeLens
// (shown and clicked), a webview with a strict CSP whose script runs and posts back, a view
// container in the activity bar, a detached child process started by the extension; then that
// nothing of the run is left running.
//
//   node --import tsx --test --test-concurrency=1 --test-reporter=spec test/e2e/smoke.e2e.test.ts
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT, descendants, ensureSetup, processesMentioning, startVSCode, type VSCode } from './harness.ts';
import * as dom from './vscode-dom.ts';

const FIXTURE = path.join(REPO_ROOT, 'test/e2e/fixtures/smoke-extension');

function packSmokeExtension(outDir: string): string {
  const vsix = path.join(outDir, 'smoke-extension.vsix');
  const r = spawnSync(
    process.execPath,
    [require.resolve('@vscode/vsce/vsce'), 'package', '--no-dependencies', '--allow-missing-repository', '--out', vsix],
    { cwd: FIXTURE, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 },
  );
  assert.equal(r.status, 0, `vsce package failed:\n${r.stdout}\n${r.stderr}`);
  assert.ok(fs.existsSync(vsix), 'vsce wrote no .vsix');
  return vsix;
}

/** The pids of `pids` still running (zombies count as gone). */
function processesAlive(pids: number[]): number[] {
  return pids.filter((pid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
    } catch {
      return false;
    }
  });
}

function portIsClosed(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });
}

test(
  'real VS Code: command, notification, CodeLens, webview, view container, child process',
  { timeout: 300_000 },
  async (t) => {
    const t0 = Date.now();
    const lap = (what: string) => t.diagnostic(`${((Date.now() - t0) / 1000).toFixed(1)}s ${what}`);
    ensureSetup();
    lap('setup checked');

    const tmp = fs.mkdtempSync('/tmp/hle2e-smoke-');
    const vsix = packSmokeExtension(tmp);
    lap('vsce package');
    const workspace = path.join(tmp, 'workspace');
    fs.mkdirSync(path.join(workspace, 'src'), { recursive: true });
    fs.writeFileSync(
      path.join(workspace, 'src/hello.js'),
      "'use strict';\nfunction hello(name) {\n  return `hello ${name}`;\n}\nmodule.exports = { hello };\n",
    );

    const vs: VSCode = await startVSCode({ workspace, extensionVsix: vsix });
    lap(`VS Code ready at ${vs.url} (run folder ${vs.runDir})`);
    const { page } = vs;
    let failed = false;
    let childPid = 0;
    // `await t.test()` does not throw when the subtest fails, so failures are recorded here.
    const step = (name: string, fn: () => Promise<void> | void) =>
      t.test(name, async () => {
        try {
          await fn();
        } catch (e) {
          failed = true;
          throw e;
        }
      });
    try {
      await step('palette command shows a notification', async () => {
        await dom.runCommand(page, 'Smoke: Hello');
        const msg = await dom.waitForNotification(page, /smoke hello from VS Code \d+\.\d+/);
        assert.match(msg, /VS Code 1\.139/);
        assert.ok((await dom.notificationTexts(page)).includes(msg));
        await vs.screenshot('smoke-1-notification');
        await dom.dismissNotifications(page);
        assert.deepEqual(await dom.notificationTexts(page), []);
        lap('command + notification');
      });

      await step('CodeLens on a javascript file, clickable', async () => {
        await dom.openFile(page, 'src/hello.js');
        assert.equal(await dom.activeEditorTitle(page), 'hello.js');
        assert.match(await dom.editorText(page), /function hello\(name\) \{/);
        await dom.waitForCodeLens(page, 'smoke lens');
        assert.deepEqual(await dom.codeLensTexts(page), ['smoke lens']);
        await vs.screenshot('smoke-2-codelens');
        await dom.clickCodeLens(page, 'smoke lens', {
          until: (ms) => dom.waitForNotification(page, /smoke lens clicked on line 1/, ms),
        });
        await dom.clickNotificationButton(page, /smoke lens clicked/, 'Thanks');
        await dom.waitForNotification(page, /smoke thanks received/);
        await dom.dismissNotifications(page);
        lap('CodeLens');
      });

      await step('webview with a strict CSP renders and its script runs', async () => {
        await dom.runCommand(page, 'Smoke: Open Webview');
        const frame = await dom.webviewFrame(page, { title: 'Smoke Webview' });
        await frame.getByText('smoke webview').waitFor();
        await frame.locator('#status', { hasText: 'script ran under CSP' }).waitFor();
        await dom.waitForNotification(page, /smoke webview script ran: script ran under CSP/);
        assert.equal(await dom.activeEditorTitle(page), 'Smoke Webview');
        await vs.screenshot('smoke-3-webview');
        lap('webview');
      });

      await step('view container in the activity bar', async () => {
        await dom.openViewContainer(page, 'Smoke Tests');
        await dom.waitForViewItem(page, 'Smoke Items', 'smoke item two');
        assert.deepEqual(await dom.viewItems(page, 'Smoke Items'), ['smoke item one', 'smoke item two']);
        // Both the side bar and the webview stay usable: switch back and read the webview again.
        await dom.openViewContainer(page, 'Explorer');
        await dom.openFile(page, 'src/hello.js');
        const frame = await dom.webviewFrame(page, { title: 'Smoke Webview' });
        await frame.getByText('smoke webview').waitFor();
        await dom.openViewContainer(page, 'Smoke Tests');
        await vs.screenshot('smoke-4-view');
        lap('view container');
      });

      await step('extension host runs on Node 24 and can start a detached child', async () => {
        await dom.runCommand(page, 'Smoke: Start Detached Child');
        const msg = await dom.waitForNotification(page, /smoke child pid \d+ started/);
        assert.match(msg, /on node v24\./);
        childPid = Number(/pid (\d+)/.exec(msg)![1]);
        assert.ok(processesAlive([childPid]).length === 1, 'the child is not running');
      });

      await step('no request left the machine', () => {
        for (const u of vs.blockedRequests()) assert.ok(!u.startsWith('http://127.0.0.1'), u);
        t.diagnostic(`blocked requests: ${vs.blockedRequests().join(' ') || 'none'}`);
      });
    } catch (e) {
      failed = true;
      throw e;
    } finally {
      if (failed) {
        await vs.screenshot('smoke-failure').catch(() => {});
        t.diagnostic(`workbench: ${await dom.describeWorkbench(page)}`);
        t.diagnostic(`code-server log (tail):\n${vs.logs().slice(-3000)}`);
      }
      await vs.stop({ keepRunDir: failed });
      lap('stopped');
    }

    // Nothing of the run may be left: no process naming the run folder, the port closed, and no
    // Chromium child of this process.
    assert.deepEqual(processesMentioning(vs.runDir), [], 'processes of the run are left behind');
    assert.ok(await portIsClosed(vs.port), `port ${vs.port} still open`);
    if (childPid)
      assert.deepEqual(processesAlive([childPid]), [], 'the detached child of the extension is left behind');
    const chromiumLeft = descendants(process.pid).filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('chromium');
      } catch {
        return false;
      }
    });
    assert.deepEqual(chromiumLeft, [], 'Chromium processes are left behind');
    if (!failed) fs.rmSync(tmp, { recursive: true, force: true });
    lap('clean');
  },
);
