// The report page's Stalls and Waits tabs, from real reports (fixtures/README.md) in a real
// Chromium, light and dark. Stalls (test/apps/stall, 200 ms every second): the summary tiles, one
// row per stall with its start, length and the line that ran in it, the periodic-stall callout, a
// row that opens its line. Waits (test/apps/threadpool, UV_THREADPOOL_SIZE=2 at 32 connections):
// the await line with its wait and queued time, the pool hint. No tabs for a report without them.
// Run after `node esbuild.mjs`: node --import tsx --test test/webview/report-waiting.test.ts
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { formatMs } from '../../src/format.ts';
import type { TimelineV1 } from '../../src/core/analysis/time/timeline.ts';
import { loadReportFixture, REPORT_FIXTURES } from './report-fixtures.ts';
import {
  REPORT_JS,
  REPO_ROOT,
  hostRecord,
  launchChromium,
  openCheckedReport,
  screenshot,
  servePage,
  type PageServer,
  type ThemeName,
} from './report-helpers.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const document: any;

const stallApp = loadReportFixture('stall-app');
const heapApp = loadReportFixture('heap-app');
const threadpoolApp = loadReportFixture('threadpool-app');
/** The stall-app run's timeline.json ($REPO as in the report fixtures). */
const stallTimeline = JSON.parse(
  fs
    .readFileSync(path.join(REPORT_FIXTURES, 'stall-app.timeline.json'), 'utf8')
    .split('$REPO')
    .join(REPO_ROOT.replace(/\\/g, '/')),
) as TimelineV1;

describe('report webview: Stalls and Waits tabs', { timeout: 120_000 }, () => {
  let browser: Browser;
  let server: PageServer;

  before(async () => {
    assert.ok(fs.existsSync(REPORT_JS), `${REPORT_JS} is missing: run \`node esbuild.mjs\` first`);
    for (const tab of ['stalls.ts', 'waits.ts']) {
      const src = path.join(path.dirname(REPORT_JS), '..', '..', 'webview', 'report', tab);
      assert.ok(
        fs.statSync(src).mtimeMs <= fs.statSync(REPORT_JS).mtimeMs,
        `dist/webview/report.js is older than webview/report/${tab}: run \`node esbuild.mjs\``,
      );
    }
    server = await servePage();
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const text = (page: Page, selector: string): Promise<string> => page.locator(selector).first().innerText();

  test('the fixture is what it claims: stalls on the stall line and a periodic-stall hint', () => {
    assert.ok(stallApp.stalls && stallApp.stalls.length >= 3);
    assert.equal(stallApp.eventLoop?.stalls?.count, stallApp.stalls.length);
    assert.ok(stallApp.stalls.every((s) => s.lines[0]?.function === 'stallEverySecond'));
    assert.ok(stallApp.hints.some((h) => h.rule === 'periodic-stall'));
    assert.equal(heapApp.stalls, undefined);
    assert.equal(heapApp.waits, undefined);
    assert.ok(threadpoolApp.waits && threadpoolApp.waits.length >= 1);
    assert.ok(threadpoolApp.hints.some((h) => h.rule === 'threadpool-queue'));
  });

  for (const theme of ['light', 'dark'] as ThemeName[]) {
    test(`stalls: tiles, one row per stall, the callout, a row opens its line (${theme})`, async () => {
      const { page, check } = await openCheckedReport(browser, server, {
        theme,
        onReady: [{ type: 'report', report: stallApp }],
        id: stallApp.id,
      });
      const stalls = stallApp.stalls!;
      const summary = stallApp.eventLoop!.stalls!;
      await page.locator('vscode-panel-tab#tab-stalls').click();
      assert.match(await text(page, '#tab-stalls'), new RegExp(`Stalls\\s*${stalls.length}`));
      assert.match(await text(page, '.stalls [data-stat="stalls"]'), new RegExp(`${summary.count}`));
      assert.match(await text(page, '.stalls [data-stat="longest"]'), new RegExp(formatMs(summary.maxMs)));
      const rows = page.locator('vscode-data-grid.stall-list vscode-data-grid-row[data-kind="stall"]');
      assert.equal(await rows.count(), stalls.length);
      for (const [i, s] of stalls.entries()) {
        const row = await rows.nth(i).innerText();
        assert.ok(row.includes(`${(s.startMs / 1000).toFixed(2)} s`), row);
        assert.ok(row.includes(formatMs(s.durationMs)), row);
        assert.ok(row.includes(`server.js:${s.lines[0].line}`), row);
        assert.ok(row.includes('stallEverySecond'), row);
      }
      assert.match(await text(page, '.stalls [data-field="periodic-stall"]'), /stalls about every/);
      await screenshot(page, `stalls-${theme}`);
      await rows.first().click();
      assert.deepEqual((await hostRecord(page)).posted.at(-1), {
        type: 'openSource',
        file: stalls[0].lines[0].file,
        line: stalls[0].lines[0].line,
      });
      await check();
    });
  }

  for (const theme of ['light', 'dark'] as ThemeName[]) {
    test(`waits: the await line with its wait and queued time, the pool hint, a row opens its line (${theme})`, async () => {
      const { page, check } = await openCheckedReport(browser, server, {
        theme,
        onReady: [{ type: 'report', report: threadpoolApp }],
        id: threadpoolApp.id,
      });
      const waits = threadpoolApp.waits!;
      await page.locator('vscode-panel-tab#tab-waits').click();
      assert.match(await text(page, '.waits h2'), /Threadpool waits\s+UV_THREADPOOL_SIZE=2, \d+ cores/);
      const rows = page.locator('vscode-data-grid.wait-list vscode-data-grid-row[data-kind="wait"]');
      assert.equal(await rows.count(), waits.length);
      const row = await rows.first().innerText();
      const w = waits[0];
      for (const part of [formatMs(w.waitMs.p50), formatMs(w.queuedMs.p50), 'crypto.pbkdf2', `server.js:${w.line}`])
        assert.ok(row.includes(part), `${part} in ${row}`);
      assert.match(await text(page, '.waits [data-field="threadpool-queue"]'), /UV_THREADPOOL_SIZE=2/);
      await screenshot(page, `waits-${theme}`);
      await rows.first().click();
      assert.deepEqual((await hostRecord(page)).posted.at(-1), { type: 'openSource', file: w.file, line: w.line });
      await check();
    });
  }

  test('timeline: each stall marked on the heat map; its button selects it and ranks the stall line first', async () => {
    const { page, check } = await openCheckedReport(browser, server, {
      theme: 'dark',
      onReady: [{ type: 'report', report: stallApp, timeline: stallTimeline }],
      id: stallApp.id,
    });
    await page.locator('vscode-panel-tab#tab-timeline').click();
    const stalls = stallApp.stalls!;
    const buttons = page.locator('[data-field="stall-marks"] button.stall-mark');
    assert.equal(await buttons.count(), stalls.length);
    const s = stalls[1];
    assert.match(await buttons.nth(1).innerText(), new RegExp(`${(s.startMs / 1000).toFixed(2)} s`));
    await buttons.nth(1).click();
    const status = page.locator('[data-field="range"]');
    await page.waitForFunction(
      () => document.querySelector('[data-field="range"]')?.getAttribute('data-start-ms') !== null,
    );
    const from = Number(await status.getAttribute('data-start-ms'));
    const to = Number(await status.getAttribute('data-end-ms'));
    // The whole cells (20 ms rows) the stall covers.
    assert.ok(from <= s.startMs && from > s.startMs - 20, `range starts at ${from} for a stall at ${s.startMs}`);
    assert.ok(to >= s.startMs + s.durationMs && to < s.startMs + s.durationMs + 20, `range ends at ${to}`);
    const top = page.locator('tr[data-kind="range-line"]').first();
    assert.equal(await top.getAttribute('data-line'), String(s.lines[0].line));
    await screenshot(page, 'timeline-stalls-dark');
    await check();
  });

  test('a report without stalls or waits has no Stalls or Waits tab', async () => {
    const { page, check } = await openCheckedReport(browser, server, {
      theme: 'light',
      onReady: [{ type: 'report', report: heapApp }],
      id: heapApp.id,
    });
    assert.equal(await page.locator('vscode-panel-tab#tab-stalls').count(), 0);
    assert.equal(await page.locator('vscode-panel-tab#tab-waits').count(), 0);
    await check();
  });
});
