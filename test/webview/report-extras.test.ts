// The report page with what the engine records besides the main thread's CPU: worker threads,
// allocations (--heap), a run attached to a running app, and load from the user's own tool.
// Real reports captured once from the engine (test/webview/fixtures), in a real Chromium.
// Run after `node esbuild.mjs`: node --import tsx --test test/webview/report-extras.test.ts
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { compareReports } from '../../src/core/verdicts/compare.ts';
import { bytes } from '../../webview/report/format.ts';
import { loadReportFixture } from './report-fixtures.ts';
import {
  REPORT_JS,
  hostRecord,
  launchChromium,
  openCheckedReport,
  screenshot,
  servePage,
  type PageServer,
  type ThemeName,
} from './report-helpers.ts';
import * as fs from 'node:fs';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const document: any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const window: any;

const workers = loadReportFixture('workers-heap');
const workersBase = loadReportFixture('workers-base');
const heapApp = loadReportFixture('heap-app');
const attachWrk = loadReportFixture('attach-wrk');
const unparsed = loadReportFixture('external-unparsed');
const cluster = loadReportFixture('cluster-app');
const WORKER_FILE = path.join(path.dirname(workers.app.cwd), 'worker-app', 'hash-worker.js');

describe('report webview: threads, allocations, attach, external load', { timeout: 120_000 }, () => {
  let browser: Browser;
  let server: PageServer;

  before(async () => {
    assert.ok(fs.existsSync(REPORT_JS), `${REPORT_JS} is missing: run \`node esbuild.mjs\` first`);
    for (const f of fs.readdirSync(path.dirname(path.join(REPORT_JS, '..', '..', '..', 'webview', 'report', 'x')))) {
      const src = path.join(REPORT_JS, '..', '..', '..', 'webview', 'report', f);
      assert.ok(
        fs.statSync(src).mtimeMs <= fs.statSync(REPORT_JS).mtimeMs,
        `dist/webview/report.js is older than webview/report/${f}: run \`node esbuild.mjs\``,
      );
    }
    server = await servePage();
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const open = (theme: ThemeName, onReady: unknown[], id: string) =>
    openCheckedReport(browser, server, { theme, onReady, id });

  const text = (page: Page, selector: string): Promise<string> => page.locator(selector).first().innerText();
  const tab = (page: Page, id: string): Promise<void> => page.locator(`vscode-panel-tab#tab-${id}`).click();

  test('the fixtures are what they claim: worker lines after the main ones, heap, attach, external load', () => {
    const firstWorker = workers.lines.findIndex((l) => l.thread === 'worker');
    assert.ok(firstWorker > 0, 'worker lines are appended after the main thread lines');
    assert.ok(workers.lines.slice(firstWorker).every((l) => l.thread === 'worker'));
    assert.ok(workers.lines.slice(firstWorker).some((l) => l.file === WORKER_FILE));
    assert.ok((workers.threads?.length ?? 0) >= 3 && workers.workers && workers.heap);
    assert.ok(heapApp.heap && heapApp.heap.lines.length > 0 && (heapApp.threads ?? []).every((t) => t.id === 0));
    assert.match(attachWrk.settings.attach ?? '', /^pid:\d+$/);
    assert.ok(attachWrk.load?.external?.parsed && attachWrk.load.external.missing.includes('latency p90'));
    assert.equal(unparsed.load?.external?.parsed, false);
  });

  test("child processes: Processes section, the children's hottest line apart, their rows in a group of their own", async () => {
    const { page, check } = await open('light', [{ type: 'report', report: cluster }], cluster.id);
    // Processes: the primary first, then each child with its share of all processes and hottest line.
    const rows = page.locator('vscode-data-grid.processes vscode-data-grid-row[data-kind="process"]');
    assert.equal(await rows.count(), cluster.processes!.length);
    for (const [i, p] of cluster.processes!.entries()) {
      const row = await rows.nth(i).innerText();
      assert.ok(row.startsWith(`${p.pid} ${i === 0 ? 'primary' : 'cluster server.js'}`), row);
      assert.ok(row.includes(`${p.sharePct >= 10 ? Math.round(p.sharePct) : p.sharePct.toFixed(1)}%`), row);
      if (p.topLine) assert.ok(row.includes(`server.js:${p.topLine.line}`), row);
    }
    assert.match(await text(page, '[data-field="processes"] h2'), /Processes\s+2 child processes · \d+ ms CPU/);
    // Under the primary's hottest line, the children's own, with its share of their CPU.
    const childTop = cluster.lines.find((l) => l.thread === 'process' && l.ownMs > 0)!;
    assert.match(
      await text(page, '[data-field="process-top-line"]'),
      new RegExp(`In child processes: server\\.js:${childTop.line} in work, \\d+(\\.\\d)?% of child process CPU`),
    );
    await screenshot(page, 'processes-overview-light');
    // Hot lines: the children's rows in their own group, tagged, never among the primary's.
    await tab(page, 'lines');
    const childRows = page.locator(
      '[data-thread="process"] vscode-data-grid.hot-lines vscode-data-grid-row[data-kind="line"]',
    );
    const sampled = cluster.lines.filter((l) => l.thread === 'process' && (l.ownMs > 0 || l.totalMs > 0));
    assert.equal(await childRows.count(), sampled.length);
    assert.match(await childRows.first().innerText(), new RegExp(`server\\.js:${childTop.line}[^]*process`));
    assert.match(await text(page, '[data-thread="process"] h2'), /Child processes\s+% of child process CPU/);
    assert.equal(
      await page
        .locator('[data-thread="main"] vscode-data-grid-row[data-kind="line"][data-line="' + childTop.line + '"]')
        .count(),
      0,
      "the children's hot line is not among the primary's rows",
    );
    await check();
  });

  test('the comparison keeps which thread a line ran in (what the Cheaper / costlier tab tags)', () => {
    const cmp = compareReports(workersBase, workers);
    const all = [...cmp.lines, ...cmp.functions];
    assert.ok(
      all.some((x) => x.thread === 'worker'),
      'worker entries are tagged',
    );
    for (const x of all)
      assert.equal(x.thread === 'worker', x.file === WORKER_FILE, `${x.name} ${x.file}:${x.line} ${x.thread}`);
  });

  test("worker threads: Threads section, labelled worker lines, the hottest card is the main thread's (dark)", async () => {
    const { page, check } = await open('dark', [{ type: 'report', report: workers }], workers.id);

    // The hottest-line card: the main thread's top line, never the worker's (higher) share.
    const mainTop = workers.lines.find((l) => l.thread === undefined && l.ownMs > 0)!;
    const card = await text(page, '[data-field="top-line"]');
    assert.match(card, /main thread/);
    assert.match(card, new RegExp(`server\\.js:${mainTop.line}`));
    // …and under it, apart, the workers' own hottest line with its share of the workers' CPU.
    const workerTop = workers.lines.find((l) => l.thread === 'worker' && l.ownMs > 0)!;
    const cardMain = card.split('In worker threads:')[0];
    assert.doesNotMatch(cardMain, /hash-worker\.js/);
    assert.match(
      await text(page, '[data-field="worker-top-line"]'),
      new RegExp(`In worker threads: hash-worker\\.js:${workerTop.line} in slowHash, \\d+(\\.\\d)?% of worker CPU`),
    );

    // Threads: main first, then each worker with busy ms of its window and its hottest line.
    const threads = workers.threads!;
    const rows = page.locator('vscode-data-grid.threads vscode-data-grid-row[data-kind="thread"]');
    assert.equal(await rows.count(), threads.length);
    assert.equal(await rows.first().getAttribute('data-thread'), '0');
    assert.match(await rows.first().innerText(), /^main/);
    for (const [i, t] of threads.entries()) {
      const row = await rows.nth(i).innerText();
      if (t.id !== 0) assert.ok(row.includes(t.title), row);
      const busy = (t.nonIdleMs / t.durationMs) * 100;
      assert.ok(row.includes(busy >= 10 ? `${Math.round(busy)}%` : `${busy.toFixed(1)}%`), `busy share in ${row}`);
      if (t.topLine) assert.ok(row.includes(`${path.basename(t.topLine.file)}:${t.topLine.line}`), row);
    }
    assert.match(await text(page, '[data-field="threads"] h2'), /Threads\s+2 workers · \d+ ms worker CPU together/);
    await screenshot(page, 'threads-overview-dark');
    // A worker's row opens its hottest line.
    await rows.nth(1).click();
    assert.deepEqual((await hostRecord(page)).posted.at(-1), {
      type: 'openSource',
      file: threads[1].topLine!.file,
      line: threads[1].topLine!.line,
    });

    // Hot lines: a main group and a worker group; worker rows tagged, shares "of worker CPU".
    await tab(page, 'lines');
    const mainRows = page.locator(
      '[data-thread="main"] vscode-data-grid.hot-lines vscode-data-grid-row[data-kind="line"]',
    );
    const workerRows = page.locator(
      '[data-thread="worker"] vscode-data-grid.hot-lines vscode-data-grid-row[data-kind="line"]',
    );
    const sampled = (w: boolean): number =>
      workers.lines.filter((l) => (l.thread === 'worker') === w && (l.ownMs > 0 || l.totalMs > 0)).length;
    assert.equal(await mainRows.count(), sampled(false));
    assert.equal(await workerRows.count(), sampled(true));
    assert.equal(await page.locator('[data-thread="main"] .thread-tag').count(), 0, 'main rows carry no worker tag');
    assert.equal(
      await page.locator('[data-thread="worker"] vscode-data-grid-row[data-kind="line"] .thread-tag').count(),
      sampled(true),
    );
    assert.match(
      await text(page, '[data-thread="worker"] h2'),
      /Worker threads\s+% of worker CPU \(all workers together, \d+ ms\)/,
    );
    assert.match(
      await text(page, '[data-thread="worker"] vscode-data-grid-row[row-type="sticky-header"]'),
      /Own, worker CPU/,
    );
    const hot = workers.lines.find((l) => l.thread === 'worker')!;
    const firstWorker = await workerRows.first().innerText();
    assert.ok(
      firstWorker.includes(`hash-worker.js:${hot.line}`) &&
        firstWorker.includes(hot.ownPct >= 10 ? `${Math.round(hot.ownPct)}%` : hot.ownPct.toFixed(1)),
      firstWorker,
    );
    assert.equal(
      await page.locator('[data-thread="main"] vscode-data-grid-row[data-file$="hash-worker.js"]').count(),
      0,
      'no worker line among the main ones',
    );
    await screenshot(page, 'threads-hotlines-dark');
    await workerRows.first().click();
    assert.deepEqual((await hostRecord(page)).posted.at(-1), { type: 'openSource', file: hot.file, line: hot.line });

    // Functions: the workers' functions of your code apart, tagged.
    await tab(page, 'functions');
    const fnRows = page.locator(
      '[data-thread="worker"] vscode-data-grid.functions vscode-data-grid-row[data-kind="function"]',
    );
    assert.equal(
      await fnRows.count(),
      workers.functions.filter((f) => f.thread === 'worker' && (f.selfMs > 0 || f.totalMs > 0)).length,
    );
    assert.match(
      await page.locator('[data-thread="worker"] vscode-data-grid.functions').innerText(),
      /slowHash[\s\S]*worker/,
    );
    // The link above the main list scrolls the workers' group into view.
    const group = page.locator('[data-thread="worker"]').filter({ has: page.locator('vscode-data-grid.functions') });
    await page.locator('vscode-panel-view#view-functions [data-field="jump-workers"]').click();
    await page.waitForFunction(() => {
      const el = [...document.querySelectorAll('#view-functions [data-thread="worker"]')][0];
      const r = el?.getBoundingClientRect();
      return r !== undefined && r.top >= 0 && r.top < window.innerHeight;
    });
    assert.ok(await group.isVisible());
    await screenshot(page, 'threads-functions-dark');
    await check();
  });

  test('worker threads in the light theme, and a CodeLens focus on a worker line lands on its row', async () => {
    const hot = workers.lines.find((l) => l.thread === 'worker')!;
    const { page, check } = await open(
      'light',
      [{ type: 'report', report: workers, focus: { file: hot.file, line: hot.line } }],
      workers.id,
    );
    await page.waitForFunction((want) => document.body.dataset.focused === want, `line:${hot.line}`);
    assert.equal(await page.locator('vscode-data-grid-row.focused').getAttribute('data-thread'), 'worker');
    await screenshot(page, 'threads-hotlines-light');
    await tab(page, 'overview');
    await screenshot(page, 'threads-overview-light');
    await check();
  });

  test('allocations: the tab lists functions by bytes with % of all and per request; rows open the source (dark and light)', async () => {
    const heap = heapApp.heap!;
    for (const theme of ['dark', 'light'] as const) {
      const { page, check } = await open(theme, [{ type: 'report', report: heapApp }], heapApp.id);
      await tab(page, 'allocations');
      assert.match(
        await text(page, '.allocations [data-stat="allocated"]'),
        new RegExp(bytes(heap.totalBytes).replace('.', '\\.')),
      );
      assert.match(
        await text(page, '.allocations [data-stat="per request"]'),
        new RegExp(bytes(heap.bytesPerRequest!).replace('.', '\\.')),
      );
      assert.match(await text(page, '[data-field="heap-precision"]'), /names functions, not lines/);
      const rows = page.locator('vscode-data-grid.heap-lines vscode-data-grid-row[data-kind="heap-line"]');
      assert.equal(await rows.count(), heap.lines.length);
      const top = heap.lines[0];
      const row = await rows.first().innerText();
      assert.ok(
        row.includes(bytes(top.ownBytes)) &&
          row.includes(`server.js:${top.line}`) &&
          row.includes(top.ownPct >= 10 ? `${Math.round(top.ownPct)}%` : top.ownPct.toFixed(1)),
        row,
      );
      assert.ok(row.includes(bytes((top.ownBytes / heap.totalBytes) * heap.bytesPerRequest!)), `per request in ${row}`);
      await screenshot(page, `allocations-${theme}`);
      await rows.first().click();
      assert.deepEqual((await hostRecord(page)).posted.at(-1), { type: 'openSource', file: top.file, line: top.line });
      // No threads in this run: no Threads section, no thread groups.
      await tab(page, 'overview');
      assert.equal(await page.locator('[data-field="threads"]').count(), 0);
      assert.equal(await page.locator('.thread-group').count(), 0);
      await check();
    }
  });

  test('attached run with wrk as the load: the header says so, figures wrk did not print are "–" (light)', async () => {
    const { page, check } = await open('light', [{ type: 'report', report: attachWrk }], attachWrk.id);
    assert.equal(
      await text(page, '[data-field="attach"]'),
      `attached to pid ${attachWrk.app.pid}, not started by Hotline`,
    );
    assert.equal(await text(page, '[data-field="load-tool"]'), 'load by wrk');
    assert.equal(
      await page.locator('vscode-panel-tab#tab-allocations').count(),
      0,
      'no Allocations tab without --heap',
    );
    const ext = attachWrk.load!.external!;
    for (const k of ['p50', 'p90', 'p99', 'max'] as const) {
      const value = await text(page, `[data-stat="${k}"] .stat-value`);
      if (ext.missing.includes(`latency ${k}`)) assert.equal(value, '\u2013', `${k} is a dash`);
      else assert.match(value, /^\d+(\.\d)?\s*ms$/, `${k}: ${value}`);
    }
    const note = await text(page, '[data-field="external-load"]');
    assert.ok(note.includes(`Load by wrk: ${ext.command.join(' ')}`), note);
    assert.match(note, /Its output is in load\.log in the run folder; not in its output: latency p50/);
    assert.match(await text(page, '[data-field="profiled"]'), /p99 – /);
    await screenshot(page, 'attach-wrk-light');
    await check();
  });

  test('load output not parsed: no zero tiles, "Load figures not parsed (see load.log)" (dark)', async () => {
    const { page, check } = await open('dark', [{ type: 'report', report: unparsed }], unparsed.id);
    assert.equal(await text(page, '[data-field="not-parsed"]'), 'Load figures not parsed (see load.log).');
    assert.equal(await page.locator('[data-stat="req/s"]').count(), 0, 'no zero tiles');
    assert.match(
      await text(page, '[data-field="external-load"]'),
      /Load by your command: .*hammer\.cjs[\s\S]*its output format is unknown/,
    );
    assert.equal(await page.locator('[data-field="attach"]').count(), 0, 'not attached');
    await screenshot(page, 'external-unparsed-dark');
    await check();
  });

  test('baseline comparison: worker lines in Cheaper / costlier are tagged (dark)', async () => {
    const { page, check } = await open(
      'dark',
      [{ type: 'report', report: workers, baseline: workersBase }],
      workers.id,
    );
    await tab(page, 'compare');
    const workerRows = page.locator('vscode-data-grid.compare vscode-data-grid-row[data-thread="worker"]');
    assert.ok((await workerRows.count()) > 0, 'the worker lines changed (ROUNDS 100000 → 200000)');
    assert.equal(
      await page.locator('vscode-data-grid.compare vscode-data-grid-row[data-thread="worker"] .thread-tag').count(),
      await workerRows.count(),
    );
    assert.equal(
      await page.locator('vscode-data-grid.compare vscode-data-grid-row[data-thread="main"] .thread-tag').count(),
      0,
    );
    assert.match(
      await page
        .locator('vscode-data-grid.compare vscode-data-grid-row[data-kind="compare-line"][data-thread="worker"]')
        .first()
        .innerText(),
      // The line first (what fits beside the code), its function and thread under it, then the change.
      /hash-worker\.js[\s\S]*slowHash[\s\S]*worker[\s\S]*(cheaper|costlier|within noise)/i,
    );
    await screenshot(page, 'threads-compare-dark');
    await check();
  });

  test("against a baseline whose tool printed no such figure, a tile shows no change (the baseline's 0 is no figure)", async () => {
    // The same app and URL (fixed-port /scrypt): wrk's run against the run whose output was not parsed.
    const { page, check } = await open(
      'light',
      [{ type: 'report', report: attachWrk, baseline: unparsed }],
      attachWrk.id,
    );
    assert.equal(
      await page.locator('[data-stat="req/s"] .delta').count(),
      0,
      'no req/s change against a 0 that was never measured',
    );
    assert.equal(await page.locator('[data-stat="max"] .delta').count(), 0);
    assert.equal(await page.locator('[data-stat="errors"] .delta').count(), 0);
    await check();
    // And wrk's figures as the baseline: the missing percentiles get no change, max does.
    const ext = attachWrk.load!.external!;
    const other = { ...attachWrk, id: 'wrk-again' };
    const o2 = await open('light', [{ type: 'report', report: other, baseline: attachWrk }], other.id);
    for (const k of ['p50', 'p90', 'p99', 'max'] as const) {
      assert.equal(
        await o2.page.locator(`[data-stat="${k}"] .delta`).count(),
        ext.missing.includes(`latency ${k}`) ? 0 : 1,
        k,
      );
    }
    await o2.check();
  });

  test('a report whose threads or heap are damaged is dropped, not half drawn', async () => {
    const bad = { ...workers, id: 'damaged', threads: [{ id: 0, title: 'main' }] };
    const badHeap = { ...heapApp, id: 'damaged-heap', heap: { ...heapApp.heap, lines: [{ file: 1 }] } };
    const { page, check } = await open(
      'dark',
      [
        { type: 'report', report: bad },
        { type: 'report', report: badHeap },
        { type: 'report', report: attachWrk },
      ],
      attachWrk.id,
    );
    assert.equal(await page.evaluate(() => document.body.dataset.dropped), '2');
    await check();
  });
});
