// The report page at the width it opens at beside the code (~520 px in a 1400 px window with the
// Explorer open): every tab reachable, every card inside the page, and a table wider than the
// page scrolls sideways instead of being cut off. A recorded report (test/webview/fixtures) with
// itself as the baseline, so the Cheaper / costlier tab is there too, in a real Chromium.
// Run after `node esbuild.mjs`: node --import tsx --test test/webview/report-narrow.test.ts
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { loadReportFixture } from './report-fixtures.ts';
import {
  hostRecord,
  launchChromium,
  openReportPage,
  type PageServer,
  REPORT_JS,
  servePage,
  type ThemeName,
  waitForReport,
} from './report-helpers.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const document: any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const window: any;

/** What the page reads of an element's box. */
interface Rect {
  left: number;
  right: number;
  width: number;
}

const WIDTH = 520;
const report = loadReportFixture('stall-app');

describe('report webview at 520 px', { timeout: 120_000 }, () => {
  let browser: Browser;
  let server: PageServer;

  before(async () => {
    assert.ok(fs.existsSync(REPORT_JS), `${REPORT_JS} is missing: run \`node esbuild.mjs\` first`);
    server = await servePage();
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const theme of ['dark', 'light'] as ThemeName[]) {
    test(`${theme}: every tab inside the page and selectable, cards inside, wide tables scroll`, async () => {
      const { page, errors } = await openReportPage(browser, server, {
        theme,
        onReady: [{ type: 'report', report, baseline: { ...report, id: 'base' } }],
        viewport: { width: WIDTH, height: 900 },
      });
      await waitForReport(page, report.id);
      const tabs = await page.evaluate(() =>
        [...document.querySelectorAll('vscode-panel-tab')].map((t: { id: string; getBoundingClientRect(): Rect }) => {
          const r = t.getBoundingClientRect();
          return { id: t.id, left: r.left, right: r.right };
        }),
      );
      assert.ok(tabs.length >= 5, JSON.stringify(tabs));
      assert.ok(
        tabs.some((t) => t.id === 'tab-compare'),
        'the baseline gives the Cheaper / costlier tab',
      );
      for (const t of tabs) assert.ok(t.left >= 0 && t.right <= WIDTH, `${t.id} at ${t.left}–${t.right}`);
      const cards = await page.evaluate(() =>
        [...document.querySelectorAll('.first-look > div, .stat')]
          .map((c: { getBoundingClientRect(): Rect }) => c.getBoundingClientRect())
          .filter((r: Rect) => r.width > 0)
          .map((r: Rect) => r.right),
      );
      assert.ok(cards.length > 4);
      for (const right of cards) assert.ok(right <= WIDTH, `a card ends at ${right} px`);
      for (const t of tabs) {
        await page.locator(`vscode-panel-tab#${t.id}`).click();
        const state = await page.evaluate((id: string) => {
          const tab = document.getElementById(id);
          const grids = [...document.querySelectorAll('vscode-panel-view:not([hidden]) vscode-data-grid.grid')];
          return {
            selected: tab.getAttribute('aria-selected'),
            pageScroll: document.documentElement.scrollWidth,
            cut: grids
              .filter((g: { scrollWidth: number; clientWidth: number }) => g.scrollWidth > g.clientWidth + 1)
              .filter((g: unknown) => window.getComputedStyle(g).overflowX !== 'auto').length,
          };
        }, t.id);
        assert.equal(state.selected, 'true', t.id);
        assert.ok(state.pageScroll <= WIDTH, `${t.id}: the page is ${state.pageScroll} px wide`);
        assert.equal(state.cut, 0, `${t.id}: a table wider than the page does not scroll`);
      }
      assert.deepEqual(errors, []);
      assert.deepEqual((await hostRecord(page)).violations, []);
      await page.close();
    });
  }
});
