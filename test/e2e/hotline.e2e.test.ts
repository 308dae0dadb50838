// Hotline in a real VS Code (code-server in headless Chromium): install the .vsix, open the
// login example, run "Hotline: Profile Under Load" from the command palette, and check what a
// user sees — the report, the CodeLens on the pbkdf2Sync line, the flame graph — and that no
// app or load process is left, after a completed run and after Cancel.
//
//   node --import tsx --test --test-concurrency=1 --test-reporter=spec test/e2e/hotline.e2e.test.ts
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { ensureSetup, processesMentioning, startVSCode, type VSCode } from './harness.ts';
import * as dom from './vscode-dom.ts';
import { LOGIN_SETTINGS, loginApiCopy, packExtension } from './hotline-setup.ts';
import { flameTitle } from '../../src/extension/flame-title.ts';




/**
 * The app (its entry on the command line) and the load generator of this VS Code's extension
 * (its install folder is in the run folder): none may outlive a run. Not any dist/load-runner.js:
 * other runs on a shared machine have theirs.
 */
function runProcesses(workspace: string, runDir: string): number[] {
  const ours = new Set(processesMentioning(runDir));
  return [...processesMentioning(path.join(workspace, 'server.js')), ...processesMentioning('dist/load-runner.js').filter((pid) => ours.has(pid))];
}

test('Hotline in a real VS Code: profile under load, CodeLens on the hot line, report, flame graph, cancel', { timeout: 600_000 }, async (t) => {
  ensureSetup();
  const tmp = fs.mkdtempSync('/tmp/hle2e-');
  const vsix = packExtension(tmp);
  const workspace = loginApiCopy(tmp);
  const vs: VSCode = await startVSCode({
    workspace,
    extensionVsix: vsix,
    userSettings: LOGIN_SETTINGS,
  });
  const { page } = vs;
  const lap = (() => {
    const t0 = Date.now();
    return (what: string) => t.diagnostic(`${((Date.now() - t0) / 1000).toFixed(1)}s ${what}`);
  })();
  try {
    lap('VS Code ready');
    await dom.runCommand(page, 'Hotline: Profile Under Load');
    // The progress notification names the phase while the run goes on.
    await dom.waitForNotification(page, /Hotline.*(Starting|Warm-up|Measuring)/, 60_000);
    await dom.waitForNotification(page, /Measuring \(profiler off\) · \d+ req\/s/, 60_000);
    await vs.screenshot('hotline-1-progress');
    lap('run started');

    // The report opens when the run is analysed; its first card is the hottest line.
    const report = await dom.webviewFrame(page, { title: 'Hotline Report', timeout: 120_000 });
    await report.getByText('server.js:35').first().waitFor({ state: 'visible', timeout: 60_000 });
    await report.getByText('checkPassword').first().waitFor({ state: 'visible' });
    await report.getByText(/crypto\.pbkdf2Sync/).first().waitFor({ state: 'visible' });
    await vs.screenshot('hotline-2-report');
    lap('report shown');
    assert.deepEqual(runProcesses(workspace, vs.runDir), [], 'no app or load process after a completed run');

    // The run is on disk before it was shown.
    const runsDir = path.join(workspace, '.hotline', 'runs');
    const runs = fs.readdirSync(runsDir);
    assert.equal(runs.length, 1);
    for (const f of ['report.json', 'profile.cpuprofile', 'run.json', 'sources.json']) assert.ok(fs.existsSync(path.join(runsDir, runs[0], f)), f);

    // The lens on the pbkdf2Sync line.
    await dom.openFile(page, 'server.js');
    const lens = await dom.waitForCodeLens(page, /ms\/request · \d+% of a core · blocks the event loop/, 60_000);
    const lensText = ((await lens.textContent()) ?? '').replace(/\u00a0/g, ' ').trim();
    const pct = Number(/ · (\d+)% of a core/.exec(lensText)?.[1]);
    assert.ok(pct >= 50, `lens "${lensText}" gives the pbkdf2Sync line most of a core`);
    const texts = await dom.codeLensTexts(page);
    assert.ok(texts.some((x) => /^total .* · self /.test(x)), `a function lens among ${JSON.stringify(texts)}`);
    // For the screenshot only: Monaco re-renders its lines, so a detached line is not a failure.
    await page.locator(dom.SEL.activeEditorLines).getByText('crypto.pbkdf2Sync').first().scrollIntoViewIfNeeded({ timeout: 5_000 }).catch(() => undefined);
    await vs.screenshot('hotline-3-codelens');
    lap(`lens: ${lensText}`);

    // Clicking the lens opens the report at that line.
    await dom.clickCodeLens(page, /of a core · blocks the event loop/);
    const focused = await dom.webviewFrame(page, { title: 'Hotline Report' });
    // The lens lands on the Hot lines tab with the row of that line selected.
    await focused.getByText('server.js:35').filter({ visible: true }).first().waitFor({ state: 'visible' });

    // The flame graph of the run, in speedscope.
    await dom.runCommand(page, 'Hotline: Open Flame Graph');
    const flame = await dom.webviewFrame(page, { title: flameTitle(runs[0]), timeout: 60_000 });
    await flame.getByText(/profile\.cpuprofile/).first().waitFor({ state: 'visible', timeout: 60_000 });
    await vs.screenshot('hotline-4-flamegraph');
    lap('flame graph shown');

    // The Runs view lists the run; a .cpuprofile opened from the workspace shows in speedscope.
    await dom.openViewContainer(page, 'Hotline');
    await dom.waitForViewItem(page, 'Runs', /./, 30_000);
    const items = await dom.viewItems(page, 'Runs');
    assert.equal(items.length, 1, `one run in the Runs view: ${JSON.stringify(items)}`);
    await dom.openFile(page, `.hotline/runs/${runs[0]}/profile.cpuprofile`, { textEditor: false });
    const editor = await dom.webviewFrame(page, { title: 'profile.cpuprofile', timeout: 60_000 });
    await editor.getByText(/profile\.cpuprofile/).first().waitFor({ state: 'visible', timeout: 60_000 });
    await vs.screenshot('hotline-5-runs-and-cpuprofile-editor');
    lap('runs view and .cpuprofile editor');

    // Cancel during the measured window: the app and the load stop at once.
    await dom.dismissNotifications(page);
    await dom.runCommand(page, 'Hotline: Profile Under Load');
    await dom.waitForNotification(page, /Measuring/, 60_000);
    assert.ok(runProcesses(workspace, vs.runDir).length > 0, 'the app and the load run while measuring');
    await dom.clickNotificationButton(page, /Measuring/, 'Cancel');
    await dom.waitForNotification(page, /run cancelled/, 30_000);
    await vs.screenshot('hotline-6-cancelled');
    await dom.waitUntil('the app and the load to be gone after Cancel', async () => runProcesses(workspace, vs.runDir).length === 0, 15_000);
    lap('cancelled, nothing left running');

    // The window reloads (the extension host goes away) in the middle of a run: the extension's
    // deactivation stops the app and the load; nothing is left.
    await dom.dismissNotifications(page);
    await dom.runCommand(page, 'Hotline: Profile Under Load');
    await dom.waitForNotification(page, /Measuring/, 60_000);
    assert.ok(runProcesses(workspace, vs.runDir).length > 0, 'the app and the load run while measuring');
    await dom.runCommand(page, 'Developer: Reload Window');
    await dom.waitUntil('the app and the load to be gone after the extension host went away', async () => runProcesses(workspace, vs.runDir).length === 0, 20_000);
    await dom.waitForWorkbench(page);
    lap('reloaded during a run, nothing left running');
  } catch (err) {
    // What the screen and the extension host said, for whoever reads the failure.
    await vs.screenshot('hotline-failure').catch(() => undefined);
    t.diagnostic(`notifications: ${JSON.stringify(await dom.notificationTexts(page).catch(() => []))}`);
    t.diagnostic(`extension host log:\n${vs.extensionHostLog().split('\n').filter((l) => /hotline|error/i.test(l)).slice(-40).join('\n')}`);
    throw err;
  } finally {
    await vs.stop();
  }
  assert.deepEqual(runProcesses(workspace, vs.runDir), [], 'nothing left after VS Code stopped');
  fs.rmSync(tmp, { recursive: true, force: true });
});
