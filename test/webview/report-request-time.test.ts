// The Overview's "One request's time", in a real Chromium, light and dark: a real report
// (test/apps/threadpool, UV_THREADPOOL_SIZE=2: most of a request is the pbkdf2 wait; its fixture
// keeps no CPU of its own code) with CPU of your code and dependencies, a downstream HTTP wait, two
// PostgreSQL queries a request and a longer profiled p50 added so that every part shows, its requestTime computed by
// report/request-time.ts. One bar segment
// per part above 0 in the legend's order, widths in proportion to the ms, each legend row with its
// ms and provenance; none of it for a report without requestTime.
// Run after `node esbuild.mjs`: node --import tsx --test test/webview/report-request-time.test.ts
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { formatMs } from '../../src/format.ts';
import { requestTimeOf, type ReportV1 } from '../../src/core/report/index.ts';
import { loadReportFixture } from './report-fixtures.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const getComputedStyle: (el: any) => { backgroundImage: string; backgroundColor: string };
import {
  ARTIFACTS,
  REPORT_JS,
  launchChromium,
  openCheckedReport,
  servePage,
  type PageServer,
  type ThemeName,
} from './report-helpers.ts';

const base = loadReportFixture('threadpool-app');
const withHttp: ReportV1 = {
  ...base,
  categories: { ...base.categories, user: 4000, dependencies: 1500 },
  load: {
    ...base.load!,
    profiled: { ...base.load!.profiled, latencyMs: { ...base.load!.profiled.latencyMs, p50: 420 } },
  },
  waits: [
    ...(base.waits ?? []),
    {
      ...base.waits![0],
      line: base.waits![0].line + 20,
      function: 'fetchDownstream',
      api: 'http.request',
      target: 'GET 127.0.0.1:4000',
      count: 400,
      perRequest: 1,
      waitMs: { p50: 50, p99: 60, total: 20_000 },
      queuedMs: { p50: 0, p99: 0 },
    },
    {
      ...base.waits![0],
      line: base.waits![0].line + 30,
      function: 'loadOrders',
      api: 'pg',
      target: '127.0.0.1:5432 SELECT * FROM orders WHERE user_id = $1',
      count: 800,
      perRequest: 2,
      waitMs: { p50: 9, p99: 30, total: 8_000 },
      queuedMs: { p50: 0, p99: 0 },
    },
  ],
};
const report: ReportV1 = { ...withHttp, requestTime: requestTimeOf(withHttp) };
const heapApp = loadReportFixture('heap-app');

describe("report webview: one request's time", { timeout: 120_000 }, () => {
  let browser: Browser;
  let server: PageServer;

  before(async () => {
    assert.ok(fs.existsSync(REPORT_JS), `${REPORT_JS} is missing: run \`node esbuild.mjs\` first`);
    const src = path.join(path.dirname(REPORT_JS), '..', '..', 'webview', 'report', 'request-time.ts');
    assert.ok(
      fs.statSync(src).mtimeMs <= fs.statSync(REPORT_JS).mtimeMs,
      'dist/webview/report.js is older: run `node esbuild.mjs`',
    );
    server = await servePage();
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('the constructed report is what it claims: every part above 0, the rest inferred', () => {
    const t = report.requestTime!;
    const of = (k: string) => t.parts.find((p) => p.key === k)!;
    assert.ok(of('threadpool').ms > 50 && of('http').ms === 50 && of('rest').how === 'inferred', JSON.stringify(t));
    assert.ok(t.parts.every((p) => p.ms > 0) && t.overMs === 0, JSON.stringify(t));
  });

  for (const theme of ['light', 'dark'] as ThemeName[]) {
    test(`the bar and its legend (${theme})`, async () => {
      const { page, check } = await openCheckedReport(browser, server, {
        theme,
        onReady: [{ type: 'report', report }],
        id: report.id,
      });
      const t = report.requestTime!;
      const section = page.locator('.overview section.request-time');
      assert.match(
        await section.locator('h2').innerText(),
        new RegExp(`One request's time[\\s\\S]*${formatMs(t.latencyMs)}`),
      );
      const shown = t.parts.filter((p) => p.ms > 0);
      const segs = section.locator('.request-bar .seg');
      assert.equal(await segs.count(), shown.length);
      const barWidth = (await section.locator('.request-bar').boundingBox())!.width;
      for (const [i, p] of shown.entries()) {
        assert.equal(await segs.nth(i).getAttribute('class'), `seg rt-${p.key}`);
        const w = (await segs.nth(i).boundingBox())!.width;
        const expected = (p.ms / (t.latencyMs + t.overMs)) * barWidth;
        assert.ok(Math.abs(w - expected) <= Math.max(2, expected * 0.02), `${p.key}: ${w}px for ${expected}px`);
        // A visible colour, not the page's background.
        const bg = await segs
          .nth(i)
          .evaluate((el) => getComputedStyle(el).backgroundImage + getComputedStyle(el).backgroundColor);
        assert.ok(!/^none(rgba\(0, 0, 0, 0\))$/.test(bg), `${p.key} has a colour: ${bg}`);
      }
      for (const p of t.parts) {
        const row = await section.locator(`.legend-row[data-part="${p.key}"]`).innerText();
        assert.ok(row.includes(p.label) && row.includes(formatMs(p.ms)), row);
        assert.match(row, p.how === 'inferred' ? /inferred/ : p.how === 'measured' ? /measured/ : /profile/);
      }
      assert.match(await section.locator('[data-field="request-time-note"]').innerText(), /is inferred/);
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      await section.screenshot({ path: path.join(ARTIFACTS, `report-request-time-${theme}.png`) });
      await check();
    });
  }

  test('the Waits tab: the HTTP call with its target and no queued part', async () => {
    const { page, check } = await openCheckedReport(browser, server, {
      theme: 'dark',
      onReady: [{ type: 'report', report }],
      id: report.id,
    });
    await page.locator('vscode-panel-tab#tab-waits').click();
    // The report has a pg statement too: all three kinds named.
    assert.match(await page.locator('.waits h2').innerText(), /Waits: threadpool, outgoing HTTP and data stores/);
    const row = await page
      .locator('vscode-data-grid.wait-list vscode-data-grid-row[data-kind="wait"][data-fn="fetchDownstream"]')
      .innerText();
    assert.match(row, /50 ms[\s\S]*\u2013[\s\S]*http\.request[\s\S]*GET 127\.0\.0\.1:4000/);
    await page.locator('.waits').screenshot({ path: path.join(ARTIFACTS, 'report-waits-http-dark.png') });
    await check();
  });

  test('no section for a report without requestTime', async () => {
    const { page, check } = await openCheckedReport(browser, server, {
      theme: 'light',
      onReady: [{ type: 'report', report: heapApp }],
      id: heapApp.id,
    });
    await page.locator('.overview').waitFor();
    assert.equal(await page.locator('section.request-time').count(), 0);
    await check();
  });
});
