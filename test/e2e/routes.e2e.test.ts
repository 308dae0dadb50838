// A request mix in a real VS Code (issue 35): test/apps/request-mix (GET /heavy/:id 3 units of CPU,
// GET /light/:id 1 unit, GET /wait a 20 ms timer) loaded 1:2:1 from a mix file the settings name
// (`hotline.requests`), "Hotline: Profile Under Load" from the palette with nothing asked. The
// report's Routes tab lists the three routes costliest first; a click on the heavy route's row
// opens its hottest line in the editor; the unit's line has a lens naming the two routes it serves
// in the shares report.json measured (heavy 3 units × 1, light 1 unit × 2: about 60:40). A mix file
// that is not there stops before anything starts, with one line. Screenshots in Light and Dark
// Modern (test/e2e/artifacts/routes-*).
//
//   node --import tsx --test --test-concurrency=1 --test-reporter=spec test/e2e/routes.e2e.test.ts
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT, ensureSetup, startVSCode, type VSCode } from './harness.ts';
import * as dom from './vscode-dom.ts';
import { packExtension } from './hotline-setup.ts';
import { describeFailure } from './failure.ts';
import type { ReportV1 } from '../../src/core/report/schema.ts';
import { routeSharesOf, routesLensText } from '../../src/server/lens-text.ts';

const APP = path.join(REPO_ROOT, 'test', 'apps', 'request-mix');
const MIX = [
  { path: '/heavy/7', weight: 1 },
  { path: '/light/17', weight: 1 },
  { path: '/light/42', weight: 1 },
  { path: '/wait', weight: 1 },
];
const SETTINGS = {
  'hotline.entry': 'server.js',
  'hotline.requests': 'mix.json',
  'hotline.connections': 4,
  'hotline.duration': 3,
  'hotline.warmup': 1,
  // A unit of ~10 ms: large beside each request's own HTTP work (as request-mix.test.ts).
  'hotline.env': { UNIT_ITERATIONS: '1500000' },
};
const THEMES = [
  { name: 'Light Modern', kind: 'vs', file: 'light-modern' },
  { name: 'Dark Modern', kind: 'vs-dark', file: 'dark-modern' },
] as const;

test(
  'a request mix in a real VS Code: the Routes tab, a route opening its hot line, a lens naming the routes a line serves',
  { timeout: 300_000 },
  async (t) => {
    ensureSetup();
    const tmp = fs.mkdtempSync('/tmp/hle2e-routes-');
    t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
    const vsix = packExtension(tmp);
    const workspace = path.join(tmp, 'request-mix');
    fs.mkdirSync(workspace);
    fs.copyFileSync(path.join(APP, 'server.js'), path.join(workspace, 'server.js'));
    const serverJs = path.join(workspace, 'server.js');
    const source = fs.readFileSync(serverJs, 'utf8').split('\n');
    const unitLine = source.findIndex((l) => l.includes('// UNIT LINE')) + 1;
    assert.ok(unitLine > 1, 'server.js marks its unit line');
    const vs: VSCode = await startVSCode({ workspace, extensionVsix: vsix, userSettings: SETTINGS });
    const { page } = vs;
    try {
      // 1. The mix file is not there yet: one line, nothing started, no run.
      await dom.runCommand(page, 'Hotline: Profile Under Load');
      const missing = await dom.waitForNotification(page, /cannot read the request mix .*mix\.json/, 30_000);
      t.diagnostic(`without the file: ${missing}`);
      assert.match(missing, /setting hotline\.requests/);
      assert.ok(!fs.existsSync(path.join(workspace, '.hotline', 'runs')), 'no run was made');
      await dom.dismissNotifications(page);

      // 2. The run, from the palette: the settings name the mix.
      fs.writeFileSync(path.join(workspace, 'mix.json'), JSON.stringify(MIX, null, 2));
      await dom.runCommand(page, 'Hotline: Profile Under Load');
      const report = await dom.webviewFrame(page, { title: 'Hotline Report', timeout: 180_000 });
      await report.locator('vscode-panel-tab#tab-routes').waitFor({ state: 'visible', timeout: 120_000 });
      const runsDir = path.join(workspace, '.hotline', 'runs');
      const [runId] = fs.readdirSync(runsDir);
      const r = JSON.parse(fs.readFileSync(path.join(runsDir, runId, 'report.json'), 'utf8')) as ReportV1;
      const routes = r.routes ?? [];
      t.diagnostic(
        `routes: ${routes.map((x) => `${x.method} ${x.route} ${x.requests} req, ${x.cpuMsPerRequest} ms/req, ${x.cpuPct}%`).join(' · ')}`,
      );
      const named = (m: string, route: string) => routes.find((x) => x.method === m && x.route === route);
      const heavy = named('GET', '/heavy/{n}');
      const light = named('GET', '/light/{n}');
      assert.ok(heavy && light && named('GET', '/wait'), 'three routes of the mix');
      assert.equal(heavy.lines?.[0]?.line, unitLine, 'the heavy route’s hottest line is the unit’s');

      // 3. The Routes tab: one row per route, the heavy one first (most of the CPU).
      await report.locator('vscode-panel-tab#tab-routes').click();
      const rows = report.locator('vscode-panel-view#view-routes [data-kind="route"]');
      await rows.first().waitFor({ state: 'visible', timeout: 30_000 });
      const order = await rows.evaluateAll((els) => els.map((e) => String(e.getAttribute('data-route'))));
      t.diagnostic(`rows: ${order.join(' | ')}`);
      assert.equal(order[0], 'GET /heavy/{n}');
      assert.ok(order.includes('GET /light/{n}') && order.includes('GET /wait'), order.join(' | '));
      const firstRow = (await rows.first().innerText()).replace(/\s+/g, ' ');
      assert.match(firstRow, new RegExp(`server\\.js:${unitLine}`), firstRow);
      await dom.dismissNotifications(page);

      // 4. The heavy route's row opens its hottest line.
      await rows.first().click();
      const cursor = await dom.waitUntil(
        `server.js at line ${unitLine}`,
        async () => {
          const title = await dom.activeEditorTitle(page).catch(() => '');
          const at = await page
            .locator('[id="status.editor.selection"]')
            .innerText()
            .catch(() => '');
          return title === 'server.js' && new RegExp(`^Ln ${unitLine},`).test(at.trim()) ? at.trim() : undefined;
        },
        30_000,
      );
      t.diagnostic(`opened: server.js, ${cursor}`);

      // 5. The lens on the unit's line: the routes it serves, in report.json's shares.
      const expected = routesLensText(routeSharesOf(routes, serverJs, unitLine));
      t.diagnostic(`expected lens: ${expected}`);
      const shares = /^serves GET \/heavy\/\{n\} (\d+)% · GET \/light\/\{n\} (\d+)%$/.exec(expected);
      assert.ok(shares, `heavy first, then light: ${expected}`);
      // 3 units × 1 against 1 unit × 2: 60% and 40%, give or take the sampling.
      assert.ok(Number(shares[1]) >= 45 && Number(shares[1]) <= 75, expected);
      await dom.waitForCodeLens(page, expected, 60_000);
      const placed = await dom.waitUntil(
        'the routes lens over the unit line',
        async () => (await dom.codeLensLines(page)).find((x) => x.lens === expected),
        30_000,
      );
      assert.equal(placed.line, unitLine, JSON.stringify(placed));

      // 6. Light and Dark Modern: the Routes tab and the lens.
      for (const theme of THEMES) {
        await dom.setColorTheme(page, theme.name, theme.kind);
        await dom.activateTab(page, 'server.js');
        await dom.waitForCodeLens(page, expected, 30_000);
        await vs.screenshot(`routes-codelens-${theme.file}`);
        await dom.activateTab(page, 'Hotline Report');
        const again = await dom.webviewFrame(page, { title: 'Hotline Report', timeout: 30_000 });
        await again.locator('vscode-panel-tab#tab-routes').click();
        await again
          .locator('vscode-panel-view#view-routes [data-kind="route"]')
          .first()
          .waitFor({ state: 'visible', timeout: 30_000 });
        await vs.screenshot(`routes-tab-${theme.file}`);
      }
    } catch (err) {
      await describeFailure(vs, t, 'routes-failure');
      throw err;
    } finally {
      await vs.stop();
    }
  },
);
