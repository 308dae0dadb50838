// The report's Timeline tab in a real VS Code (code-server in headless Chromium): profile
// test/apps/stall (a 300 ms stall once a second) from the command palette, open the Timeline
// tab, drag across two seconds of the heat map and open that range: the extension cuts the
// profile into the run folder (written before it is shown) and the flame graph shows the cut.
// Then the stall line in server.js carries its stall lens.
//
//   node --import tsx --test --test-concurrency=1 --test-reporter=spec test/e2e/timeline.e2e.test.ts
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT, ensureSetup, startVSCode, type VSCode } from './harness.ts';
import * as dom from './vscode-dom.ts';
import { packExtension } from './hotline-setup.ts';
import { describeFailure } from './failure.ts';
import { flameTitle } from '../../src/extension/flame/flame-title.ts';
import { parseCpuProfileText } from '../../src/core/profile/cpuprofile.ts';

test(
  'Hotline in a real VS Code: the heat map of a run, a dragged range opened in the flame graph',
  { timeout: 600_000 },
  async (t) => {
    ensureSetup();
    const tmp = fs.mkdtempSync('/tmp/hle2e-');
    const vsix = packExtension(tmp);
    const workspace = path.join(tmp, 'stall');
    fs.cpSync(path.join(REPO_ROOT, 'test', 'apps', 'stall'), workspace, { recursive: true });
    const vs: VSCode = await startVSCode({
      workspace,
      extensionVsix: vsix,
      userSettings: {
        'hotline.entry': 'server.js',
        'hotline.url': '/',
        'hotline.connections': 10,
        'hotline.duration': 4,
        'hotline.warmup': 1,
      },
    });
    const { page } = vs;
    try {
      await dom.runCommand(page, 'Hotline: Profile Under Load');
      const report = await dom.webviewFrame(page, { title: 'Hotline Report', timeout: 150_000 });
      await report.locator('vscode-panel-tab#tab-timeline').click({ timeout: 60_000 });
      const canvas = report.locator('canvas.heatmap-canvas');
      await canvas.waitFor({ state: 'visible' });
      const box = (await canvas.boundingBox())!;
      const w = Number(await canvas.getAttribute('data-cell-width'));
      const h = Number(await canvas.getAttribute('data-cell-height'));
      const rows = Number(await canvas.getAttribute('data-rows'));
      const cell = (c: number, r: number) => ({ x: box.x + 48 + c * w + w / 2, y: box.y + 6 + r * h + h / 2 });
      // From the top of second 1 to the bottom of second 2: 1000–3000 ms.
      const from = cell(1, 0);
      const to = cell(2, rows - 1);
      await page.mouse.move(from.x, from.y);
      await page.mouse.down();
      await page.mouse.move(to.x, to.y, { steps: 6 });
      await page.mouse.up();
      await report
        .getByText(/1\.00\u20133\.00 s/)
        .first()
        .waitFor({ state: 'visible' });
      await report.locator('table.range-table tr[data-kind="range-line"]').first().waitFor({ state: 'visible' });
      await vs.screenshot('timeline-1-heatmap');

      await report.locator('#open-range').click();
      const runsDir = path.join(workspace, '.hotline', 'runs');
      const [runId] = fs.readdirSync(runsDir);
      const flame = await dom.webviewFrame(page, {
        title: `${flameTitle(runId)} \u00b7 1.00\u20133.00 s`,
        timeout: 60_000,
      });
      await flame
        .getByText(/range-1000-3000ms\.cpuprofile/)
        .first()
        .waitFor({ state: 'visible', timeout: 60_000 });
      await vs.screenshot('timeline-2-range-flamegraph');

      const cut = parseCpuProfileText(
        fs.readFileSync(path.join(runsDir, runId, 'range-1000-3000ms.cpuprofile'), 'utf8'),
      );
      const whole = parseCpuProfileText(fs.readFileSync(path.join(runsDir, runId, 'profile.cpuprofile'), 'utf8'));
      assert.equal(cut.startTime, whole.startTime + 1_000_000, 'the cut starts 1 s into the profile');
      assert.equal(cut.endTime - cut.startTime, 2_000_000, 'and lasts 2 s');
      assert.ok(
        (cut.samples?.length ?? 0) > 0 && (cut.samples?.length ?? 0) < (whole.samples?.length ?? 0),
        `${cut.samples?.length} of ${whole.samples?.length} samples`,
      );

      // The stall line's lens (report.stalls): how often it stalled the event loop, the longest.
      await dom.openFile(page, 'server.js');
      await dom.waitForCodeLens(page, /^stalled the event loop \d+× · max \d+ ms$/, 60_000);
      await vs.screenshot('timeline-3-stall-lens');
    } catch (err) {
      await describeFailure(vs, t, 'timeline-failure');
      throw err;
    } finally {
      await vs.stop();
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  },
);
