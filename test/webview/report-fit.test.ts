// The report's tables at the width the report opens at beside the code (520 px) and at full width,
// in Light, Dark Modern and both High Contrast themes: in every table of Hot lines, Functions,
// Stalls, Routes and Cheaper / costlier the first three columns (the line or function, its share or
// change, its cost) are inside the viewport; the One request legend's figures too; a table wider
// than the page says so in words. A recorded report (the stall app) with itself as the baseline,
// its "One request's time" computed by the engine. Screenshots of each tab at 520 px land in
// test/e2e/artifacts/report-fit-<theme>-<tab>.png.
// Run after `node esbuild.mjs`: node --import tsx --test test/webview/report-fit.test.ts
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { requestTimeOf, type ReportV1 } from '../../src/core/report/index.ts';
import { loadReportFixture } from './report-fixtures.ts';
import {
  assertBundleFresh,
  hostRecord,
  launchChromium,
  openReportPage,
  type PageServer,
  screenshot,
  servePage,
  type ThemeName,
  waitForReport,
} from './report-helpers.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const document: any;

const stallApp = loadReportFixture('stall-app');
// With the routes of a request mix's run, so the Routes tab is checked too.
const report: ReportV1 = {
  ...stallApp,
  requestTime: requestTimeOf(stallApp),
  routes: loadReportFixture('request-mix').routes,
};
/** The baseline: the same run with its code's costs 1.6 times as high, so Cheaper / costlier has rows. */
const scale = (x: number): number => x * 1.6;
const baseline: ReportV1 = {
  ...report,
  id: 'base',
  lines: report.lines.map((l) => ({ ...l, ownMs: scale(l.ownMs), selfMs: scale(l.selfMs), totalMs: scale(l.totalMs) })),
  functions: report.functions.map((f) => ({ ...f, selfMs: scale(f.selfMs), totalMs: scale(f.totalMs) })),
};
const TABS = ['lines', 'functions', 'stalls', 'routes', 'compare'] as const;

/** What a table shows of its first three columns' headers, and whether it says it scrolls. */
interface GridFit {
  title: string;
  headers: Array<{ text: string; left: number; right: number }>;
  overflows: boolean;
  hint: string;
}

/**
 * The visible tab's grids: their first three header cells' boxes and the scroll note under each.
 * The note follows the grid's size through a ResizeObserver, whose callback runs after the frame's
 * layout: read at once after a tab opens on a busy machine, an overflowing grid had no note yet
 * (seen with two page-test files at a time). So the read waits, up to 5 s, for each overflowing
 * grid to have one; one that never gets it fails below.
 */
async function gridsOf(page: Page): Promise<GridFit[]> {
  await page
    .waitForFunction(
      () =>
        [...document.querySelectorAll('vscode-panel-view:not([hidden]) vscode-data-grid.grid')].every(
          // eslint-disable-next-line @typescript-eslint/no-explicit-any
          (g: any) =>
            g.scrollWidth <= g.clientWidth + 1 ||
            Boolean(g.closest('.grid-frame')?.querySelector('.scroll-hint')?.textContent),
        ),
      undefined,
      { timeout: 5_000 },
    )
    .catch(() => undefined);
  return page.evaluate(() =>
    [...document.querySelectorAll('vscode-panel-view:not([hidden]) vscode-data-grid.grid')].map(
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      (g: any) => {
        const headers = [...g.querySelectorAll('vscode-data-grid-cell[cell-type="columnheader"]')]
          // eslint-disable-next-line @typescript-eslint/no-explicit-any
          .filter((c: any) => Number(c.getAttribute('grid-column')) <= 3)
          // eslint-disable-next-line @typescript-eslint/no-explicit-any
          .map((c: any) => {
            const r = c.getBoundingClientRect();
            return { text: c.textContent, left: r.left, right: r.right };
          });
        const frame = g.closest('.grid-frame');
        return {
          title: g.getAttribute('aria-label'),
          headers,
          overflows: g.scrollWidth > g.clientWidth + 1,
          hint: frame?.querySelector('.scroll-hint')?.textContent ?? '',
        };
      },
    ),
  );
}

async function open(browser: Browser, server: PageServer, theme: ThemeName, width: number) {
  const opened = await openReportPage(browser, server, {
    theme,
    onReady: [{ type: 'report', report, baseline }],
    viewport: { width, height: 900 },
  });
  await waitForReport(opened.page, report.id);
  return opened;
}

describe('report tables fit the width they open at', { timeout: 300_000 }, () => {
  let browser: Browser;
  let server: PageServer;

  before(async () => {
    assertBundleFresh();
    assert.ok(report.requestTime, 'the engine gives the stall app a request time');
    assert.ok((report.stalls ?? []).length > 0, 'the fixture has stalls');
    server = await servePage();
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const cases: Array<[ThemeName, number]> = [
    ['light', 520],
    ['dark', 520],
    ['hc-dark', 520],
    ['hc-light', 520],
    ['dark', 1180],
  ];
  for (const [theme, width] of cases) {
    test(`${theme} at ${width} px: every table's first three columns and the legend's figures are in view`, async () => {
      const { page, errors } = await open(browser, server, theme, width);
      // The One request legend: each row's swatch, label, ms, share and provenance inside the page.
      const legend = await page.evaluate(() =>
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        [...document.querySelectorAll('.request-legend .legend-row > *')].map((c: any) => {
          const r = c.getBoundingClientRect();
          return { text: c.textContent, left: r.left, right: r.right };
        }),
      );
      assert.ok(legend.length >= 5, 'the legend is there');
      for (const c of legend) assert.ok(c.left >= 0 && c.right <= width, `legend "${c.text}" at ${c.left}–${c.right}`);
      if (width === 520) await screenshot(page, `fit-${theme}-overview`);
      for (const tab of TABS) {
        await page.locator(`vscode-panel-tab#tab-${tab}`).click();
        await page.waitForFunction(
          (id: string) => document.getElementById(id)?.getAttribute('aria-selected') === 'true',
          `tab-${tab}`,
        );
        const grids = await gridsOf(page);
        assert.ok(grids.length > 0, `${tab}: a table`);
        for (const g of grids) {
          assert.equal(g.headers.length, 3, `${tab} ${g.title}: three first columns`);
          for (const c of g.headers)
            assert.ok(c.left >= 0 && c.right <= width, `${tab} ${g.title}: "${c.text}" at ${c.left}–${c.right}`);
          // A table that scrolls says so and names what is out of sight; one that fits says nothing.
          if (g.overflows) assert.match(g.hint, /Scroll sideways for \S/, `${tab} ${g.title}`);
          else assert.equal(g.hint, '', `${tab} ${g.title}`);
        }
        if (width === 520) await screenshot(page, `fit-${theme}-${tab}`);
      }
      assert.deepEqual(errors, []);
      assert.deepEqual((await hostRecord(page)).violations, []);
      await page.close();
    });
  }

  test("Functions list your code first, then the rest, each part by self time (not native 'writev' first)", async () => {
    const heap = loadReportFixture('heap-app');
    const { page } = await openReportPage(browser, server, {
      theme: 'light',
      onReady: [{ type: 'report', report: heap }],
      viewport: { width: 520, height: 900 },
    });
    await waitForReport(page, heap.id);
    await page.locator('vscode-panel-tab#tab-functions').click();
    const rows = await page.evaluate(() =>
      [...document.querySelectorAll('vscode-data-grid.functions vscode-data-grid-row[data-kind="function"]')].map(
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        (r: any) => ({ fn: r.dataset.fn, mine: /your code/.test(r.innerText) }),
      ),
    );
    const byReport = heap.functions.filter((f) => f.category !== 'idle' && (f.selfMs > 0 || f.totalMs > 0));
    assert.notEqual(byReport[0].category, 'user', 'in the report a function of another kind leads');
    const mine = byReport.filter((f) => f.category === 'user').map((f) => f.name);
    assert.ok(mine.length > 0);
    assert.deepEqual(
      rows.slice(0, mine.length).map((r) => r.fn),
      mine,
    );
    assert.ok(rows.slice(0, mine.length).every((r) => r.mine));
    assert.ok(rows.slice(mine.length).every((r) => !r.mine));
    await page.close();
  });

  test('at 520 px the Hot lines table scrolls, names its hidden columns, and keeps the line in view', async () => {
    const { page } = await open(browser, server, 'dark', 520);
    await page.locator('vscode-panel-tab#tab-lines').click();
    const grid = page.locator('vscode-data-grid.hot-lines').first();
    const [fit] = await gridsOf(page);
    assert.ok(fit.overflows, 'seven columns do not fit 520 px');
    assert.match(fit.hint, /Total ms/);
    await grid.evaluate((g: { scrollLeft: number; scrollWidth: number }) => (g.scrollLeft = g.scrollWidth));
    await page.waitForFunction(() => /Scroll back/.test(document.querySelector('.scroll-hint')?.textContent ?? ''));
    // Scrolled to the end, the line column still sits at the grid's left edge.
    const line = await page.evaluate(() => {
      const g = document.querySelector('vscode-data-grid.hot-lines');
      const cell = g.querySelector('vscode-data-grid-row[data-kind="line"] vscode-data-grid-cell[grid-column="1"]');
      return { cell: cell.getBoundingClientRect().left, grid: g.getBoundingClientRect().left };
    });
    assert.ok(Math.abs(line.cell - line.grid) <= 2, JSON.stringify(line));
    await page.close();
  });
});
