// The report page's Routes tab from a recorded request mix (fixtures/request-mix.json:
// test/apps/request-mix at 1:2:1) in a real Chromium, light and dark: one row per route, the
// costliest first, each with its CPU per request and its hottest line, which a click opens; the
// "(no request)" row last. No tab for a run of one route.
// Run after `node esbuild.mjs`: node --import tsx --test test/webview/report-routes.test.ts
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { formatMs } from '../../src/format.ts';
import { loadReportFixture } from './report-fixtures.ts';
import {
  assertBundleFresh,
  hostRecord,
  launchChromium,
  openCheckedReport,
  screenshot,
  servePage,
  type PageServer,
  type ThemeName,
} from './report-helpers.ts';

const mix = loadReportFixture('request-mix');
const threadpoolApp = loadReportFixture('threadpool-app');

describe('report webview: Routes tab', { timeout: 120_000 }, () => {
  let browser: Browser;
  let server: PageServer;

  before(async () => {
    assertBundleFresh();
    server = await servePage();
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('the fixture is what it claims: three routes of the mix and the time of no request', () => {
    const served = (mix.routes ?? []).filter((r) => r.requests > 0);
    assert.deepEqual(served.map((r) => r.route).sort(), ['/heavy/{n}', '/light/{n}', '/wait']);
    assert.ok(served.every((r) => r.cpuMsPerRequest !== undefined && r.lines && r.lines.length > 0));
    assert.equal(threadpoolApp.routes, undefined);
  });

  for (const theme of ['light', 'dark'] as ThemeName[]) {
    test(`one row per route, costliest first, a row opens its hottest line (${theme})`, async () => {
      const { page, check } = await openCheckedReport(browser, server, {
        theme,
        onReady: [{ type: 'report', report: mix }],
        id: mix.id,
      });
      assert.match(await page.locator('[data-field="mix"]').innerText(), /a mix of 4 requests, 3 routes/);
      await page.locator('vscode-panel-tab#tab-routes').click();
      assert.match(await page.locator('#tab-routes').innerText(), /Routes\s*3/);
      const rows = page.locator('vscode-data-grid.route-list vscode-data-grid-row[data-kind="route"]');
      assert.equal(await rows.count(), mix.routes!.length);
      const byCpu = mix.routes!.filter((r) => r.requests > 0).sort((a, b) => (b.cpuPct ?? 0) - (a.cpuPct ?? 0));
      for (const [i, r] of byCpu.entries()) {
        const row = await rows.nth(i).innerText();
        for (const part of [
          `${r.method} ${r.route}`,
          formatMs(r.cpuMsPerRequest!),
          String(r.requests),
          `server.js:${r.lines![0].line}`,
        ])
          assert.ok(row.includes(part), `${part} in row ${i}: ${row}`);
      }
      assert.match(await rows.last().innerText(), /\(no request\)/);
      await screenshot(page, `routes-${theme}`);
      await rows.first().click();
      const top = byCpu[0].lines![0];
      assert.deepEqual((await hostRecord(page)).posted.at(-1), { type: 'openSource', file: top.file, line: top.line });
      await check();
    });
  }

  test('a Waits column when the routes’ requests waited: each route’s total per request, its lines in the title', async () => {
    // The recorded mix with a data-store wait given to its /wait route (the recorded app waits on a
    // timer, which the wait probe does not time): the page's part, not the engine's (route-waits.test.ts).
    const cwd = mix.app.cwd;
    const waits = [
      { file: `${cwd}/server.js`, line: 37, kind: 'pg', msPerRequest: 18.4 },
      { file: `${cwd}/server.js`, line: 37, kind: 'redis', msPerRequest: 1.6 },
    ];
    const withWaits = { ...mix, routes: mix.routes!.map((r) => (r.route === '/wait' ? { ...r, waits } : r)) };
    const { page, check } = await openCheckedReport(browser, server, {
      theme: 'light',
      onReady: [{ type: 'report', report: withWaits }],
      id: mix.id,
    });
    await page.locator('vscode-panel-tab#tab-routes').click();
    const grid = page.locator('vscode-data-grid.route-list');
    assert.match(
      await grid.locator('vscode-data-grid-row[row-type="sticky-header"]').innerText(),
      /Errors\s+Waits\s+Hottest line/,
    );
    const row = grid.locator('vscode-data-grid-row[data-route="GET /wait"]');
    const cell = row.locator('vscode-data-grid-cell[grid-column="8"] span');
    assert.equal(await cell.innerText(), formatMs(20));
    assert.equal(
      await cell.getAttribute('title'),
      'server.js:37 pg: 18 ms/request\nserver.js:37 redis: 1.6 ms/request',
    );
    const heavy = grid.locator(
      'vscode-data-grid-row[data-route="GET /heavy/{n}"] vscode-data-grid-cell[grid-column="8"]',
    );
    assert.equal((await heavy.innerText()).trim(), '\u2013', 'a route without waits');
    await screenshot(page, 'routes-waits-light');
    await check();
  });

  test('no Routes tab for a run of one route', async () => {
    const { page, check } = await openCheckedReport(browser, server, {
      theme: 'dark',
      onReady: [{ type: 'report', report: threadpoolApp }],
      id: threadpoolApp.id,
    });
    assert.equal(await page.locator('vscode-panel-tab#tab-routes').count(), 0);
    await check();
  });
});
