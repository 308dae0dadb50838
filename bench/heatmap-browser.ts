// The heat map bench's browser half: the real report page (dist/webview/report.js) in Chromium,
// given the synthetic 60 s × 1 kHz timeline. Times what a person waits for, in the page:
//   - render: the report message in → page drawn (validation of 60 000 samples, heat map grid,
//     canvas, every tab), with a forced layout; and the part of it the Timeline tab adds;
//   - range change: a drag step to a random cell (mousemove) → selection drawn, lines re-ranked,
//     the grid rebuilt, with a forced layout.
import * as fs from 'node:fs';
import type { TimelineV1 } from '../src/core/analysis/time/timeline.ts';
import type { ReportV1 } from '../src/core/report/schema.ts';
import { REPORT_JS, launchChromium, openReportPage, servePage } from '../test/webview/report-helpers.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const window: any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const document: any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const MessageEvent: any;

export interface BrowserFigures {
  renderMs: number;
  /** renderMs less the same report's render without a timeline. */
  timelineTabMs: number;
  rangeChangeMs: number[];
}

/** Undefined (with the reason) when the bundle or Chromium is missing. */
export async function browserFigures(
  report: ReportV1,
  timeline: TimelineV1,
  ranges: number,
): Promise<BrowserFigures | string> {
  if (!fs.existsSync(REPORT_JS)) return `${REPORT_JS} is missing (npm run build)`;
  if (!fs.existsSync('/usr/bin/chromium')) return 'no /usr/bin/chromium';
  const server = await servePage();
  const browser = await launchChromium();
  try {
    // An empty report first: the page is ready; then the big one, timed inside the page.
    const warm = { ...report, id: 'warm-up', functions: [], lines: [] };
    const { page } = await openReportPage(browser, server, {
      theme: 'dark',
      onReady: [{ type: 'report', report: warm }],
    });
    await page.waitForFunction(() => document.body.dataset.reportId === 'warm-up');
    const render = (msg: unknown): Promise<number> =>
      page.evaluate((m) => {
        const t = performance.now();
        window.dispatchEvent(new MessageEvent('message', { data: m }));
        void document.body.offsetHeight; // layout included
        return performance.now() - t;
      }, msg);
    // The same report without, then with the timeline: the difference is the Timeline tab's cost.
    const withoutMs = await render({ type: 'report', report: { ...report, id: 'no-timeline' } });
    const renderMs = await render({ type: 'report', report, timeline });
    if ((await page.evaluate(() => document.body.dataset.reportId)) !== report.id)
      throw new Error('the page did not show the benchmark report');
    await page.locator('vscode-panel-tab#tab-timeline').click();
    await page.locator('canvas.heatmap-canvas').waitFor();
    const rangeChangeMs = (await page.evaluate(dragSteps(ranges))) as number[];
    return { renderMs, timelineTabMs: renderMs - withoutMs, rangeChangeMs };
  } finally {
    await browser.close();
    await server.close();
  }
}

/**
 * `n` drag steps between random cells, each timed from the mousemove to a forced layout. A
 * string, not a function: tsx compiles with keepNames, whose `__name(...)` does not exist in the page.
 */
function dragSteps(n: number): string {
  return `(() => {
  const canvas = document.querySelector('canvas.heatmap-canvas');
  const box = canvas.getBoundingClientRect();
  const cols = Number(canvas.dataset.columns), rows = Number(canvas.dataset.rows);
  const w = Number(canvas.dataset.cellWidth), h = Number(canvas.dataset.cellHeight);
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const at = (c, r) => ({ clientX: box.left + 48 + c * w + w / 2, clientY: box.top + 6 + r * h + h / 2, bubbles: true, button: 0 });
  const times = [];
  for (let i = 0; i < ${n}; i++) {
    canvas.dispatchEvent(new MouseEvent('mousedown', at(Math.floor(rnd() * cols), Math.floor(rnd() * rows))));
    const t = performance.now();
    canvas.dispatchEvent(new MouseEvent('mousemove', at(Math.floor(rnd() * cols), Math.floor(rnd() * rows))));
    void document.body.offsetHeight;
    times.push(performance.now() - t);
    window.dispatchEvent(new MouseEvent('mouseup', { bubbles: true }));
  }
  return times;
})()`;
}
