// Hotline in Restricted Mode, in a real VS Code (code-server in headless Chromium): Workspace
// Trust on, the folder never trusted. "Hotline: Profile Under Load" must refuse to start the app
// (that would run the workspace's code) and say why, while viewing still works: the Runs view
// and the report of a run already on disk. From that report, the webview may open only files of
// the workspace: a hot line in a file outside it, or behind a symlink inside it that points
// outside, is refused; one of the workspace opens.
//
//   node --import tsx --test --test-concurrency=1 test/e2e/trust.e2e.test.ts
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, ensureSetup, processesMentioning, startVSCode, type VSCode } from './harness.ts';
import * as dom from './vscode-dom.ts';
import { loginApiCopy, packExtension } from './hotline-setup.ts';
import { describeFailure } from './failure.ts';
import { analyzeRunDir } from '../../src/core/analyze-run/analyze-run.ts';
import { writeRunRecord } from '../../src/core/store/run-record.ts';
import type { LineCost } from '../../src/core/analysis/model.ts';
import type { ReportV1 } from '../../src/core/report/schema.ts';
import { PROFILE_FILE, createRunDir, newRunId, runsDirOf, writeReport } from '../../src/core/store/store.ts';

const FIXTURE = path.join(REPO_ROOT, 'test/fixtures/login-api');

// The report page's own DOM (webview/report), not VS Code's: its tabs and its grid rows, which
// carry the file and line they open as data-* attributes.
const HOT_LINES_TAB = '#tab-lines';
const rowOf = (file: string, line: number): string => `vscode-data-grid-row[data-file="${file}"][data-line="${line}"]`;
const REFUSED = /is not a file of this workspace, so it is not opened/;

/**
 * A finished run in the workspace, made from the captured login-api fixture (its profile and
 * moved to the workspace, analyzed by the engine), with two extra hot lines that point
 * at `outsideFile` and at `symlink`, as a tampered or foreign report.json could.
 */
function savedRun(ws: string, outsideFile: string, symlink: string): { reportFile: string; report: ReportV1 } {
  const meta = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'meta.json'), 'utf8')) as { root: string };
  const move = (text: string): string =>
    text.replaceAll(`${pathToFileURL(meta.root).href}/`, `${pathToFileURL(ws).href}/`);
  const load = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'load.json'), 'utf8')) as Pick<
    ReportV1,
    'load' | 'eventLoop'
  >;
  const startedAt = new Date();
  const id = newRunId(startedAt);
  const runDir = createRunDir(runsDirOf(ws), id);
  fs.writeFileSync(
    path.join(runDir, PROFILE_FILE),
    move(fs.readFileSync(path.join(FIXTURE, 'profile.cpuprofile'), 'utf8')),
  );
  writeRunRecord(runDir, {
    version: 1,
    id,
    startedAt: startedAt.toISOString(),
    app: {
      command: ['node', '--inspect-brk=127.0.0.1:0', path.join(ws, 'server.js')],
      cwd: ws,
      pid: 1,
      url: 'http://127.0.0.1:3000/login',
    },
    settings: {
      entry: 'server.js',
      url: '/login',
      method: 'POST',
      headers: {},
      connections: 20,
      pipelining: 1,
      durationS: 3,
      warmupS: 1,
      samplingIntervalUs: 1000,
      timeoutS: 10,
    },
    load: load.load,
    eventLoop: load.eventLoop,
  });
  const report = analyzeRunDir(runDir, ws);
  const hot = report.lines[0];
  assert.ok(
    hot && hot.file === path.join(ws, 'server.js') && hot.line === 35,
    `the fixture's hot line is server.js:35 (got ${hot?.file}:${hot?.line})`,
  );
  const foreign = (file: string, fn: string, ownMs: number): LineCost => ({
    ...hot,
    file,
    line: 1,
    function: fn,
    ownMs,
    callees: [],
  });
  report.lines.splice(
    1,
    0,
    foreign(outsideFile, 'readOutside', hot.ownMs * 0.9),
    foreign(symlink, 'readThroughLink', hot.ownMs * 0.8),
  );
  return { reportFile: writeReport(runDir, report), report };
}

test(
  'Restricted Mode: Profile Under Load refuses to start the app and says why; viewing works; the report opens no file outside the workspace',
  { timeout: 600_000 },
  async (t) => {
    ensureSetup();
    const tmp = fs.mkdtempSync('/tmp/hle2e-trust-');
    const vsix = packExtension(tmp);
    const workspace = loginApiCopy(tmp);
    const outsideDir = path.join(tmp, 'outside');
    const outsideFile = path.join(outsideDir, 'secret.js');
    fs.mkdirSync(outsideDir);
    fs.writeFileSync(outsideFile, '// a file that is not part of the workspace\nmodule.exports = "top secret";\n');
    const symlink = path.join(workspace, 'linked-secret.js');
    fs.symlinkSync(outsideFile, symlink);
    const { reportFile } = savedRun(workspace, outsideFile, symlink);
    const runsDir = path.dirname(path.dirname(reportFile));
    t.diagnostic(
      `workspace ${workspace}; a saved run ${path.basename(path.dirname(reportFile))}; hot lines added for ${outsideFile} and ${symlink} → ${fs.readlinkSync(symlink)}`,
    );

    const vs: VSCode = await startVSCode({
      workspace,
      extensionVsix: vsix,
      workspaceTrust: true,
      // Everything a run needs, so that without the trust check the command would start the app
      // straight away (no pickers), and the process check below would see it.
      userSettings: {
        'hotline.entry': 'server.js',
        'hotline.url': '/login',
        'hotline.method': 'POST',
        'hotline.headers': { 'content-type': 'application/json' },
        'hotline.body': JSON.stringify({ email: 'alice@example.com', password: 'correct horse battery staple' }),
        'hotline.connections': 5,
        'hotline.duration': 2,
        'hotline.warmup': 1,
      },
    });
    const { page } = vs;
    /** The app of the workspace and a load runner of this VS Code's extension: none may run here. */
    const runProcesses = (): string[] =>
      [...processesMentioning(path.join(workspace, 'server.js')), ...processesMentioning(path.join(vs.runDir, 'ext'))]
        .map((pid) => {
          try {
            return `${pid}: ${fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ')}`;
          } catch {
            return '';
          }
        })
        .filter((line) => line.includes(path.join(workspace, 'server.js')) || line.includes('load-runner'));
    const lap = (() => {
      const t0 = Date.now();
      return (what: string) => t.diagnostic(`${((Date.now() - t0) / 1000).toFixed(1)}s ${what}`);
    })();
    try {
      // The window is in Restricted Mode (status bar), with no modal trust prompt in the way.
      await page
        .locator(dom.SEL.statusBar)
        .getByText('Restricted Mode')
        .first()
        .waitFor({ state: 'visible', timeout: 60_000 });
      lap('VS Code ready, status bar says Restricted Mode');

      await dom.runCommand(page, 'Hotline: Profile Under Load');
      const warning = await dom.waitForNotification(page, /Restricted Mode/, 60_000);
      lap(`warning: ${warning}`);
      assert.match(warning, /Restricted Mode/);
      assert.match(warning, /will not start it/);
      const toast = dom
        .notifications(page)
        .filter({ has: page.locator(dom.SEL.toastMessage, { hasText: /Restricted Mode/ }) })
        .first();
      await toast.getByRole('button', { name: 'Manage Workspace Trust', exact: true }).waitFor({ state: 'visible' });
      await vs.screenshot('trust-1-restricted-warning');
      assert.deepEqual(runProcesses(), [], 'no app and no load runner were started');
      assert.deepEqual(fs.readdirSync(runsDir), [path.basename(path.dirname(reportFile))], 'no new run folder');
      await dom.dismissNotifications(page);

      // Viewing still works: the Runs view lists the saved run, and its report opens.
      await dom.openViewContainer(page, 'Hotline');
      await dom.waitForViewItem(page, 'Runs', /./, 60_000);
      const items = await dom.viewItems(page, 'Runs');
      lap(`Runs view: ${JSON.stringify(items)}`);
      assert.equal(items.length, 1, 'the saved run is listed');
      await dom.runCommand(page, 'Hotline: Open Report');
      const report = await dom.webviewFrame(page, { title: 'Hotline Report', timeout: 60_000 });
      await report.getByText('server.js:35').first().waitFor({ state: 'visible', timeout: 60_000 });
      await vs.screenshot('trust-2-runs-view-and-report');
      lap('report shown');
      assert.deepEqual(runProcesses(), [], 'still no app started');

      // The report asks to open a file outside the workspace, and one behind an outward symlink: refused.
      await report.locator(HOT_LINES_TAB).click();
      for (const file of [outsideFile, symlink]) {
        const row = report.locator(rowOf(file, 1));
        await row.waitFor({ state: 'visible' });
        await row.locator('vscode-data-grid-cell').nth(1).click();
        const refusal = await dom.waitForNotification(
          page,
          new RegExp(`${path.basename(file).replace('.', '\\.')}.*${REFUSED.source}`),
          30_000,
        );
        lap(`clicked the hot line of ${file} → "${refusal}"`);
        assert.ok(refusal.includes(file), 'the refusal names the file');
        await vs.screenshot(`trust-3-refused-${path.basename(file, '.js')}`);
        await dom.dismissNotifications(page);
      }
      // A file of the workspace opens from the same grid: the clicks above did reach the extension.
      await report
        .locator(rowOf(path.join(workspace, 'server.js'), 35))
        .locator('vscode-data-grid-cell')
        .nth(1)
        .click();
      await dom.waitUntil(
        'server.js to open in an editor',
        async () => (await dom.editorTabTitles(page)).includes('server.js'),
        30_000,
      );
      await dom.waitForEditorText(page, /pbkdf2Sync/);
      const tabs = await dom.editorTabTitles(page);
      lap(`clicked the hot line of server.js:35 → editor tabs ${JSON.stringify(tabs)}`);
      assert.ok(
        !tabs.includes('secret.js') && !tabs.includes('linked-secret.js'),
        `no tab of a refused file: ${JSON.stringify(tabs)}`,
      );
      await vs.screenshot('trust-4-workspace-file-opened');
      assert.deepEqual(runProcesses(), [], 'no app was started at any point');
    } catch (err) {
      await describeFailure(vs, t, 'trust-failure');
      throw err;
    } finally {
      await vs.stop();
    }
    assert.deepEqual(runProcesses(), [], 'nothing left after VS Code stopped');
    fs.rmSync(tmp, { recursive: true, force: true });
  },
);
