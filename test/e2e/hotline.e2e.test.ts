// Hotline in a real VS Code (code-server in headless Chromium): install the .vsix, open the
// login example, run "Hotline: Profile Under Load" from the command palette, and check what a
// user sees — the report, the CodeLens on the pbkdf2Sync line, the flame graph, the Runs view —
// and that no app or load process is left, after a completed run, after Cancel and after a
// window reload. One test per scenario, so one failure does not hide the others; each waits on
// what the screen or the process table shows, never on a time window.
//
//   node --import tsx --test --test-concurrency=1 --test-reporter=spec test/e2e/hotline.e2e.test.ts
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ensureSetup, processesMentioning, startVSCode, type VSCode } from './harness.ts';
import * as dom from './vscode-dom.ts';
import { describeFailure } from './failure.ts';
import { LOGIN_SETTINGS, loginApiCopy, packExtension } from './hotline-setup.ts';
import { flameTitle } from '../../src/extension/flame/flame-title.ts';

const SCENARIO = { timeout: 300_000 };

let tmp = '';
let vsix = '';
before(() => {
  ensureSetup();
  tmp = fs.mkdtempSync('/tmp/hle2e-');
  vsix = packExtension(tmp);
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/**
 * The app of this workspace (its entry on the command line) and the load runner of this VS Code's
 * extension (others may run on a shared machine): none may outlive a run.
 */
function runProcesses(vs: VSCode, workspace: string): number[] {
  const ours = new Set(processesMentioning(vs.runDir));
  const loadRunners = processesMentioning('dist/load-runner.js').filter((pid) => ours.has(pid));
  return [...processesMentioning(path.join(workspace, 'server.js')), ...loadRunners];
}

/**
 * A VS Code on its own copy of the login example for the tests of one describe(), stopped after
 * them; then nothing of its runs may be left. `scenario` is a test that, when it fails, keeps a
 * screenshot and what the notifications and the extension host said.
 */
function vscodeWith(name: string, settings: Record<string, unknown>) {
  let vs: VSCode | undefined;
  let workspace = '';
  before(async () => {
    workspace = loginApiCopy(fs.mkdtempSync(path.join(tmp, `${name}-`)));
    vs = await startVSCode({ workspace, extensionVsix: vsix, userSettings: settings });
  });
  after(async () => {
    if (!vs) return;
    await vs.stop();
    assert.deepEqual(runProcesses(vs, workspace), [], 'nothing left after VS Code stopped');
  });
  const scenario = (title: string, body: (vs: VSCode, workspace: string) => Promise<void>): void => {
    test(title, SCENARIO, async (t) => {
      assert.ok(vs, 'VS Code started');
      try {
        await body(vs, workspace);
      } catch (err) {
        await describeFailure(vs, t, `hotline-failure-${name}-${title.slice(0, 40)}`);
        throw err;
      }
    });
  };
  return { scenario };
}

/** The run's progress notification, in whichever phase it is shown. */
const PROGRESS = /Hotline.*(Starting the app|Warm-up|Measuring|Profiling|Analyzing)/;

describe('a completed run', () => {
  const { scenario } = vscodeWith('completed', LOGIN_SETTINGS);
  let runId = '';

  scenario(
    'Profile Under Load from the palette: the progress names the phase, the report opens on the hot line',
    async (vs) => {
      const { page } = vs;
      await dom.runCommand(page, 'Hotline: Profile Under Load');
      await dom.waitForNotification(page, PROGRESS, 60_000);
      // The report opens when the run is analyzed; its first card is the hottest line.
      const report = await dom.webviewFrame(page, { title: 'Hotline Report', timeout: 120_000 });
      await report.getByText('server.js:35').first().waitFor({ state: 'visible', timeout: 60_000 });
      await report.getByText('checkPassword').first().waitFor({ state: 'visible' });
      await report
        .getByText(/crypto\.pbkdf2Sync/)
        .first()
        .waitFor({ state: 'visible' });
      await vs.screenshot('hotline-2-report');
    },
  );

  scenario('after the run: the app and the load are gone, the run is on disk', async (vs, workspace) => {
    await dom.waitUntil(
      'the app and the load to be gone after the run',
      async () => runProcesses(vs, workspace).length === 0,
      30_000,
    );
    const runsDir = path.join(workspace, '.hotline', 'runs');
    const runs = fs.readdirSync(runsDir);
    assert.equal(runs.length, 1);
    runId = runs[0];
    for (const f of ['report.json', 'profile.cpuprofile', 'run.json', 'sources.json'])
      assert.ok(fs.existsSync(path.join(runsDir, runId, f)), f);
  });

  scenario('the CodeLens on the pbkdf2Sync line; a click opens the report at that line', async (vs) => {
    const { page } = vs;
    await dom.openFile(page, 'server.js');
    const lens = await dom.waitForCodeLens(page, /ms\/request · \d+% of a core · blocks the event loop/, 60_000);
    const lensText = ((await lens.textContent()) ?? '').replace(/\u00a0/g, ' ').trim();
    const pct = Number(/ · (\d+)% of a core/.exec(lensText)?.[1]);
    assert.ok(pct >= 50, `lens "${lensText}" gives the pbkdf2Sync line most of a core`);
    const texts = await dom.codeLensTexts(page);
    assert.ok(
      texts.some((x) => /^total .* · self /.test(x)),
      `a function lens among ${JSON.stringify(texts)}`,
    );
    // For the screenshot only: Monaco re-renders its lines, so a detached line is not a failure.
    await page
      .locator(dom.SEL.activeEditorLines)
      .getByText('crypto.pbkdf2Sync')
      .first()
      .scrollIntoViewIfNeeded({ timeout: 5_000 })
      .catch(() => undefined);
    await vs.screenshot('hotline-3-codelens');

    // Clicking the lens opens the report at that line.
    await dom.clickCodeLens(page, /of a core · blocks the event loop/);
    // The report is revealed beside the code (the one webview in view), not re-opened as a new tab.
    const focused = await dom.webviewFrame(page);
    // The lens lands on the Hot lines tab with the row of that line selected.
    await focused.getByText('server.js:35').filter({ visible: true }).first().waitFor({ state: 'visible' });
  });

  scenario('the flame graph of the run, in speedscope', async (vs) => {
    assert.ok(runId, 'the run is on disk (an earlier test)');
    await dom.runCommand(vs.page, 'Hotline: Open Flame Graph');
    const flame = await dom.webviewFrame(vs.page, { title: flameTitle(runId), timeout: 60_000 });
    await flame
      .getByText(/profile\.cpuprofile/)
      .first()
      .waitFor({ state: 'visible', timeout: 60_000 });
    await vs.screenshot('hotline-4-flamegraph');
  });

  scenario('the Runs view lists the run; its .cpuprofile opens in speedscope from the workspace', async (vs) => {
    assert.ok(runId, 'the run is on disk (an earlier test)');
    const { page } = vs;
    await dom.openViewContainer(page, 'Hotline');
    await dom.waitForViewItem(page, 'Runs', /./, 30_000);
    const items = await dom.viewItems(page, 'Runs');
    assert.equal(items.length, 1, `one run in the Runs view: ${JSON.stringify(items)}`);
    const editor = await dom.openCustomEditor(page, `.hotline/runs/${runId}/profile.cpuprofile`);
    await editor
      .getByText(/profile\.cpuprofile/)
      .first()
      .waitFor({ state: 'visible', timeout: 60_000 });
    await vs.screenshot('hotline-5-runs-and-cpuprofile-editor');
  });
});

// Windows of 10 minutes: the run is still measuring whenever the test acts on it, however slow
// the machine; Cancel and the reload end it long before.
describe('a run stopped midway', () => {
  const { scenario } = vscodeWith('stopped', { ...LOGIN_SETTINGS, 'hotline.duration': 600 });

  /** Starts a run and waits until it measures with live req/s: the app and the load both run. */
  async function startMeasuring(vs: VSCode, workspace: string): Promise<void> {
    await dom.dismissNotifications(vs.page);
    await dom.runCommand(vs.page, 'Hotline: Profile Under Load');
    await dom.waitForNotification(vs.page, /Measuring \(profiler off\) · \d+ req\/s/, 120_000);
    assert.ok(runProcesses(vs, workspace).length > 0, 'the app and the load run while measuring');
  }

  scenario(
    'Cancel while measuring: the run says cancelled, the app and the load stop at once',
    async (vs, workspace) => {
      await startMeasuring(vs, workspace);
      await vs.screenshot('hotline-1-progress');
      await dom.clickNotificationButton(vs.page, /Measuring/, 'Cancel');
      await dom.waitForNotification(vs.page, /run cancelled/, 30_000);
      await vs.screenshot('hotline-6-cancelled');
      await dom.waitUntil(
        'the app and the load to be gone after Cancel',
        async () => runProcesses(vs, workspace).length === 0,
        15_000,
      );
    },
  );

  scenario(
    'a window reload during a run: the extension stops the app and the load as it goes',
    async (vs, workspace) => {
      await startMeasuring(vs, workspace);
      await dom.runCommand(vs.page, 'Developer: Reload Window');
      await dom.waitUntil(
        'the app and the load to be gone after the extension host went away',
        async () => runProcesses(vs, workspace).length === 0,
        20_000,
      );
      await dom.waitForWorkbench(vs.page);
    },
  );
});
