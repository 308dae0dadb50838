// The report's Timeline tab in a real browser, fed a recorded real run of test/apps/stall (300 ms
// stall once a second; test/fixtures/runs/stall-timeline, scripts/record-fixtures.mjs): the heat
// map draws the stall's band in the theme's colour, dragging across it re-ranks the hot lines (the stall line first), the open-range button posts
// the dragged range, the keyboard selects too, and a damaged timeline costs only the tab.
// Run after `node esbuild.mjs`: node --import tsx --test test/webview/timeline.test.ts
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { ReportV1 } from '../../src/core/report/schema.ts';
import { TIMELINE_FILE, heatMap, type TimelineV1 } from '../../src/core/analysis/time/timeline.ts';
import {
  REPO_ROOT,
  assertBundleFresh,
  hostRecord,
  launchChromium,
  openCheckedReport,
  screenshot,
  servePage,
  type PageServer,
  type ThemeName,
} from './report-helpers.ts';
import { assertChromium } from '../helpers/chromium.ts';
import { recordedRun, removeRecordedRuns } from '../helpers/recorded.ts';
import { awayFromStalls, stallsOfRun, type Stall } from '../helpers/stalls.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const document: any;

const STALL_APP = path.join(REPO_ROOT, 'test', 'apps', 'stall');
const SERVER_JS = path.join(STALL_APP, 'server.js');
const STALL_LINE =
  fs
    .readFileSync(SERVER_JS, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes('// STALL LINE')) + 1;

/** The recorded run of the stall app: its report.json, timeline.json and the stalls it ran. */
function recordedStallRun(): { report: ReportV1; timeline: TimelineV1; stalls: Stall[]; allStalls: Stall[] } {
  const runDir = recordedRun('stall-timeline');
  const read = <T>(file: string): T => JSON.parse(fs.readFileSync(path.join(runDir, file), 'utf8')) as T;
  return {
    report: read<ReportV1>('report.json'),
    timeline: read<TimelineV1>(TIMELINE_FILE),
    stalls: stallsOfRun(runDir),
    allStalls: stallsOfRun(runDir, { overlapping: true }),
  };
}

/** A heat-map cell (20 ms) by its index from the profile's start: its column (second) and row. */
const cellAt = (cell: number): { col: number; row: number } => ({ col: Math.floor(cell / 50), row: cell % 50 });

/**
 * The cells wholly inside the first stall the app ran after the first second (it may cross into
 * the next second), and the longest run of cells of one whole second away from every stall
 * (`allStalls`: also one cut by the profile's end).
 */
function stallCells(
  stalls: Stall[],
  allStalls: Stall[],
  endMs: number,
): { first: number; length: number; quiet: { first: number; length: number } } {
  const stall = stalls.find(([start]) => start >= 1000);
  if (!stall) throw new Error(`no stall after the first second: ${JSON.stringify(stalls)}`);
  const first = Math.ceil(stall[0] / 20);
  let quiet = { first: 0, length: 0 };
  for (let col = 1; (col + 1) * 1000 <= endMs; col++) {
    for (let row = 0; row < 50; row++) {
      let n = 0;
      while (
        row + n < 50 &&
        awayFromStalls(allStalls, col * 1000 + (row + n) * 20, col * 1000 + (row + n + 1) * 20, 40)
      )
        n++;
      if (n > quiet.length) quiet = { first: col * 50 + row, length: n };
    }
  }
  return { first, length: Math.floor(stall[1] / 20) - first, quiet };
}

describe('report webview: Timeline tab', { timeout: 180_000 }, () => {
  let browser: Browser;
  let server: PageServer;
  let report: ReportV1;
  let timeline: TimelineV1;
  let stalls: Stall[];
  let allStalls: Stall[];

  before(async () => {
    assertChromium();
    assertBundleFresh();
    ({ report, timeline, stalls, allStalls } = recordedStallRun());
    server = await servePage();
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    removeRecordedRuns();
  });

  const open = (theme: ThemeName, message: unknown) =>
    openCheckedReport(browser, server, { theme, onReady: [message], id: report.id });

  /** The canvas pixel colour at a cell's centre, as [r, g, b]. */
  const pixel = (page: Page, col: number, row: number): Promise<number[]> =>
    page.evaluate(
      ([c, r]) => {
        const canvas = document.querySelector('canvas.heatmap-canvas');
        const w = Number(canvas.dataset.cellWidth);
        const h = Number(canvas.dataset.cellHeight);
        const dpr = canvas.width / canvas.getBoundingClientRect().width;
        const x = Math.floor((48 + c * w + w / 2 - 1) * dpr);
        const y = Math.floor((6 + r * h + h / 2) * dpr);
        return Array.from(canvas.getContext('2d').getImageData(x, y, 1, 1).data as number[]).slice(0, 3);
      },
      [col, row],
    );

  /** Page coordinates of a cell's centre. */
  async function cellPoint(page: Page, col: number, row: number): Promise<{ x: number; y: number }> {
    const box = (await page.locator('canvas.heatmap-canvas').boundingBox())!;
    const w = Number(await page.locator('canvas.heatmap-canvas').getAttribute('data-cell-width'));
    return { x: box.x + 48 + col * w + w / 2, y: box.y + 6 + row * 6 + 3 };
  }

  for (const theme of ['dark', 'light'] as const) {
    test(`the heat map shows the stall; dragging across it ranks the stall line first and opens the range (${theme})`, async () => {
      // A stall as the app ran it (test/integration/timeline.test.ts checks the whole heat map).
      const band = stallCells(stalls, allStalls, timeline.endUs / 1000);
      assert.ok(
        band.length >= 10 && band.quiet.length >= 10,
        `a stall of ${band.length} cells from cell ${band.first}, ${band.quiet.length} quiet cells: ${JSON.stringify(stalls)}`,
      );
      const cell = (i: number): Promise<number[]> => pixel(page, cellAt(i).col, cellAt(i).row);
      const point = (i: number): Promise<{ x: number; y: number }> => cellPoint(page, cellAt(i).col, cellAt(i).row);
      const { page, check } = await open(theme, { type: 'report', report, timeline });
      await page.locator('vscode-panel-tab#tab-timeline').click();
      const canvas = page.locator('canvas.heatmap-canvas');
      await canvas.waitFor();
      assert.equal(await canvas.getAttribute('data-columns'), String(heatMap(timeline, 50).columns));

      // The stall's busiest cell is painted in the page's hot orange, as strong as its share of the
      // busiest cell's samples; a quiet one is not. (A cell's strength is its non-idle samples. V8's
      // sampler bunches its ticks, so a 20 ms cell of a busy loop holds 17–23 of them: the stall's
      // busiest cell is among the busiest, not always the one.)
      const map = heatMap(timeline, 50);
      const stallCellsAll = stalls.flatMap(([s, e]) =>
        Array.from({ length: Math.max(0, Math.floor(e / 20) - Math.ceil(s / 20)) }, (_, i) => Math.ceil(s / 20) + i),
      );
      const busiest = stallCellsAll.reduce((a, b) => (map.nonIdle[b] > map.nonIdle[a] ? b : a));
      assert.ok(
        map.nonIdle[busiest] >= 0.6 * map.maxNonIdle,
        `a stall holds (nearly) the busiest cell: ${map.nonIdle[busiest]} of ${map.maxNonIdle} samples`,
      );
      const quietCells = Array.from({ length: band.quiet.length }, (_, i) => band.quiet.first + i);
      const idlest = quietCells.reduce((a, b) => (map.nonIdle[b] < map.nonIdle[a] ? b : a));
      const inStall = await cell(busiest);
      const quiet = await cell(idlest);
      const hot = (await page.evaluate(
        "getComputedStyle(document.body).getPropertyValue('--hl-hot').trim()",
      )) as string;
      const orange = [1, 3, 5].map((i) => parseInt(hot.slice(i, i + 2), 16));
      assert.equal(orange.length, 3, `--hl-hot is #rrggbb: ${hot}`);
      const dist = (a: number[], b: number[]): number => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
      // A cell is the orange laid over the empty grid with an opacity that grows with its busyness:
      // a point on the line from the grid colour to the orange, far along it for the stall.
      const gridHex = (await page.evaluate(
        "getComputedStyle(document.body).getPropertyValue('--vscode-editorWidget-background').trim()",
      )) as string;
      const grid = [1, 3, 5].map((i) => parseInt(gridHex.slice(i, i + 2), 16));
      const along = (p: number[]): { t: number; off: number } => {
        const d = orange.map((v, i) => v - grid[i]);
        const t = d.reduce((s, v, i) => s + v * (p[i] - grid[i]), 0) / d.reduce((s, v) => s + v * v, 0);
        return {
          t,
          off: dist(
            p,
            grid.map((g, i) => g + t * d[i]),
          ),
        };
      };
      const stall = along(inStall);
      assert.ok(
        stall.off < 25 && stall.t > 0.3,
        `a stall cell is orange: ${inStall} (${JSON.stringify(stall)}, ${hot} over ${gridHex})`,
      );
      const strength = 0.12 + 0.88 * (map.nonIdle[busiest] / map.maxNonIdle);
      assert.ok(
        Math.abs(stall.t - strength) < 0.12,
        `the stall cell's orange is as strong as its busyness: ${stall.t.toFixed(2)} for ${map.nonIdle[busiest]} of ${map.maxNonIdle} samples`,
      );
      assert.ok(along(quiet).t < stall.t - 0.2, `a quiet cell is not: ${quiet}`);

      // Drag from the stall's first cell to its last.
      const from = await point(band.first);
      const to = await point(band.first + band.length - 1);
      await page.mouse.move(from.x, from.y);
      await page.mouse.down();
      await page.mouse.move((from.x + to.x) / 2, (from.y + to.y) / 2, { steps: 4 });
      await page.mouse.move(to.x, to.y, { steps: 4 });
      await page.mouse.up();
      const startMs = band.first * 20;
      const endMs = startMs + band.length * 20;
      await page.waitForFunction((want) => document.body.dataset.rangeDone === want, `${startMs}-${endMs}`);
      const status = await page.locator('[data-field="range"]').innerText();
      assert.match(status, new RegExp(`${(startMs / 1000).toFixed(2)}\u2013${(endMs / 1000).toFixed(2)} s`));
      const first = page.locator('table.range-table tr[data-kind="range-line"]').first();
      assert.equal(
        await first.getAttribute('data-line'),
        String(STALL_LINE),
        `ranked: ${await page.locator('table.range-table').innerText()}`,
      );
      assert.match(await first.innerText(), /stallEverySecond/);
      await screenshot(page, `timeline-${theme}`);

      await page.locator('#open-range').click();
      assert.deepEqual((await hostRecord(page)).posted.at(-1), { type: 'openFlameRange', startMs, endMs });

      // A range between stalls does not rank the stall line first.
      const qa = await point(band.quiet.first);
      const qb = await point(band.quiet.first + band.quiet.length - 1);
      await page.mouse.move(qa.x, qa.y);
      await page.mouse.down();
      await page.mouse.move(qb.x, qb.y, { steps: 3 });
      await page.mouse.up();
      const quietFrom = band.quiet.first * 20;
      await page.waitForFunction(
        (want) => document.body.dataset.rangeDone === want,
        `${quietFrom}-${quietFrom + band.quiet.length * 20}`,
      );
      // Read once the range is done: a locator would wait its 30 s timeout for a row that may not come.
      const top = await page.evaluate(
        'document.querySelector(\'table.range-table tr[data-kind="range-line"]\')?.dataset.line ?? null',
      );
      assert.notEqual(top, String(STALL_LINE), 'between stalls another line (or none) leads');
      await check();
    });
  }

  test('the keyboard selects a range and Enter opens it', async () => {
    const { page, check } = await open('dark', { type: 'report', report, timeline });
    await page.locator('vscode-panel-tab#tab-timeline').click();
    const canvas = page.locator('canvas.heatmap-canvas');
    await canvas.focus();
    await page.keyboard.press('ArrowDown'); // first cell: 0–20 ms
    await page.keyboard.press('ArrowRight'); // second 1, 0–20 ms
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+ArrowDown');
    await page.waitForFunction(() => document.body.dataset.rangeDone === '1000-1060');
    await page.keyboard.press('Enter');
    assert.deepEqual((await hostRecord(page)).posted.at(-1), { type: 'openFlameRange', startMs: 1000, endMs: 1060 });
    await check();
  });

  test('a damaged timeline costs the tab, not the report; no timeline, no tab', async () => {
    const damaged = {
      ...timeline,
      sampleKind: Array.from(timeline.sampleKind, (k, i) => (i === 10 ? timeline.kinds.length + 5 : k)),
    };
    for (const message of [
      { type: 'report', report, timeline: damaged },
      { type: 'report', report },
    ]) {
      const { page, check } = await open('dark', message);
      assert.equal(await page.locator('vscode-panel-tab#tab-timeline').count(), 0);
      assert.equal(await page.locator('vscode-panel-tab#tab-lines').count(), 1);
      await check();
    }
  });
});
