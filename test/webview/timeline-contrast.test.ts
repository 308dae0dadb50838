// The Timeline's stall marks stand out from their cells by at least 3:1 (WCAG's ratio for
// graphics) in Light, Dark Modern and both High Contrast themes. Fed the recorded run of the stall
// app (test/fixtures/runs/stall-timeline); the colours are read from the page: the bar's and the
// cell's pixels as the canvas drew them, and the hot orange from <body>'s computed style. A 2 px
// pale bar on the orange cells of Dark High Contrast was the defect.
// Run after `node esbuild.mjs`: node --import tsx --test test/webview/timeline-contrast.test.ts
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { ReportV1 } from '../../src/core/report/schema.ts';
import { TIMELINE_FILE, heatMap, type TimelineV1 } from '../../src/core/analysis/time/timeline.ts';
import { contrastRatio, parseColor, type Rgb } from '../../webview/report/contrast.ts';
import {
  assertBundleFresh,
  launchChromium,
  openCheckedReport,
  screenshot,
  servePage,
  type PageServer,
  type ThemeName,
} from './report-helpers.ts';
import { recordedRun, removeRecordedRuns } from '../helpers/recorded.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const document: any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const getComputedStyle: (el: any) => { getPropertyValue(name: string): string };

/** The canvas pixel at (x, y) in CSS px of the canvas, as [r, g, b]. */
function pixel(page: Page, x: number, y: number): Promise<Rgb> {
  return page.evaluate(
    ([px, py]) => {
      const canvas = document.querySelector('canvas.heatmap-canvas');
      const dpr = canvas.width / canvas.getBoundingClientRect().width;
      const d = canvas.getContext('2d').getImageData(Math.floor(px * dpr), Math.floor(py * dpr), 1, 1).data;
      return [d[0], d[1], d[2]] as const;
    },
    [x, y],
  ) as Promise<Rgb>;
}

describe('timeline: stall marks stand out from their cells', { timeout: 300_000 }, () => {
  let browser: Browser;
  let server: PageServer;
  let report: ReportV1;
  let timeline: TimelineV1;

  before(async () => {
    assertBundleFresh();
    const dir = recordedRun('stall-timeline');
    report = JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8')) as ReportV1;
    timeline = JSON.parse(fs.readFileSync(path.join(dir, TIMELINE_FILE), 'utf8')) as TimelineV1;
    server = await servePage();
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    removeRecordedRuns();
  });

  for (const theme of ['light', 'dark', 'hc-dark', 'hc-light'] as ThemeName[]) {
    test(`${theme}: every stall's bar is at least 3:1 against its busiest cell and the hot orange`, async () => {
      const stalls = report.stalls ?? [];
      assert.ok(stalls.length >= 2, 'the recorded run has stalls');
      const { page, check } = await openCheckedReport(browser, server, {
        theme,
        onReady: [{ type: 'report', report, timeline }],
        id: report.id,
      });
      await page.locator('vscode-panel-tab#tab-timeline').click();
      const canvas = page.locator('canvas.heatmap-canvas');
      await canvas.waitFor();
      const cellW = Number(await canvas.getAttribute('data-cell-width'));
      const rows = Number(await canvas.getAttribute('data-rows'));
      const rowMs = 1000 / rows;
      assert.equal(rows, heatMap(timeline, rows).rows);
      assert.ok(cellW >= 10, `cells wide enough to sample beside the bar: ${cellW} px`);
      const hot = parseColor(
        (await page.evaluate(() => getComputedStyle(document.body).getPropertyValue('--hl-hot'))) as string,
      );
      assert.ok(hot, 'the page defines its hot orange');
      const empty = await pixel(page, 48 + cellW / 2, 6 + rows * 6 - 3); // for the message only
      for (const s of stalls) {
        const col = Math.floor(s.startMs / 1000);
        const first = Math.ceil((s.startMs - col * 1000) / rowMs);
        const last = Math.min(rows, Math.floor((s.startMs + s.durationMs - col * 1000) / rowMs)) - 1;
        if (last < first) continue; // a stall that starts in a second's last cell: its bar is in the next column
        // The stall's busiest cell in its first column: the colour farthest from the empty grid's.
        let best = { row: first, rgb: await pixel(page, 48 + col * cellW + cellW / 2, 6 + first * 6 + 3) };
        for (let r = first + 1; r <= last; r++) {
          const rgb = await pixel(page, 48 + col * cellW + cellW / 2, 6 + r * 6 + 3);
          const far = (c: Rgb): number => Math.hypot(c[0] - empty[0], c[1] - empty[1], c[2] - empty[2]);
          if (far(rgb) > far(best.rgb)) best = { row: r, rgb };
        }
        const bar = await pixel(page, 48 + col * cellW + 2.5, 6 + best.row * 6 + 3);
        const onCell = contrastRatio(bar, best.rgb);
        const onHot = contrastRatio(bar, hot);
        const what = `stall at ${s.startMs} ms: bar ${bar} on cell ${best.rgb} (hot ${hot}, grid ${empty})`;
        assert.ok(onCell >= 3, `${what}: ${onCell.toFixed(2)}:1 against its cell`);
        assert.ok(onHot >= 3, `${what}: ${onHot.toFixed(2)}:1 against the hot orange`);
      }
      await screenshot(page, `timeline-contrast-${theme}`);
      await check();
    });
  }
});
