// The report webview in a real browser (Debian's chromium through playwright-core), fed recorded
// real runs of examples/login-api (test/fixtures/runs, scripts/record-fixtures.mjs): the pbkdf2Sync
// run, and the HASH_MODE=async run as the pair for the baseline. A test double of the VS Code host
// records what the page posts.
// Run after `node esbuild.mjs`: node --import tsx --test test/webview/report.test.ts
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { ReportV1 } from '../../src/core/report/schema.ts';
import {
  LOGIN_API,
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
import { recordedReport, recordedRun } from '../helpers/recorded.ts';
import { readRunSources } from '../../src/core/store/store.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const window: any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const document: any;

const SERVER_JS = path.join(LOGIN_API, 'server.js');
const XSS = '<img src=x onerror=alert(1)>';

describe('report webview', { timeout: 240_000 }, () => {
  let browser: Browser;
  let server: PageServer;
  let sync: ReportV1;
  let async: ReportV1;

  before(async () => {
    assertChromium();
    assertBundleFresh();
    sync = recordedReport('login-sync');
    async = recordedReport('login-async');
    server = await servePage();
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Opens the page with these messages answering `ready`; `check()` asserts it stayed clean. */
  const open = (theme: ThemeName, onReady: unknown[], id?: string) =>
    openCheckedReport(browser, server, { theme, onReady, id });

  const text = (page: Page, selector: string): Promise<string> => page.locator(selector).first().innerText();

  test('the real sync run: figures, hot line, hint, clicks (dark theme)', async () => {
    assert.equal(sync.lines[0].file, SERVER_JS, 'the run itself has server.js on top');
    const { page, check } = await open('dark', [{ type: 'report', report: sync }], sync.id);

    const posted = (await hostRecord(page)).posted;
    assert.deepEqual(posted[0], { type: 'ready' }, "'ready' is the first message");
    assert.equal(posted.filter((m) => m.type === 'ready').length, 1);

    // Overview: the load figures of the unprofiled window, the hot line and the hint at a glance.
    const reqs = await text(page, '[data-stat="req/s"] .stat-value');
    assert.equal(
      reqs,
      sync.load!.requests.perSecond >= 100
        ? sync.load!.requests.perSecond.toFixed(0)
        : sync.load!.requests.perSecond.toFixed(1),
    );
    assert.match(await text(page, '[data-stat="p99"]'), /p99\s+\S+\s*ms/);
    assert.match(
      await text(page, '[data-field="profiled"]'),
      /profiled window: .* req\/s, p99 \S+ m?s \(against profiler off: (CPU\/request .*, )?req\/s [+\u2212]?\d+(\.\d)?%.*\)/,
    );
    const top = await text(page, '[data-field="top-line"]');
    assert.match(top, /server\.js:35/);
    assert.match(top, /checkPassword/);
    assert.match(await text(page, '[data-field="top-hint"]'), /crypto\.pbkdf2Sync/);
    assert.match(await text(page, '.legend-row[data-category="native"]'), /native\s+\d+%/);
    await screenshot(page, 'overview-dark');

    // Hot lines: server.js:35 in checkPassword first; a click opens it.
    await page.locator('vscode-panel-tab#tab-lines').click();
    const first = page.locator('vscode-data-grid.hot-lines vscode-data-grid-row[data-kind="line"]').first();
    const row = await first.innerText();
    assert.match(row, /server\.js:35/);
    assert.match(row, /checkPassword/);
    // A real run has stack captures: the calling line is measured, so not marked inferred.
    assert.match(row, /pbkdf2Sync/);
    assert.doesNotMatch(row, /inferred/, 'the measured call site is not marked inferred');
    await screenshot(page, 'hotlines-dark');
    await first.click();
    assert.deepEqual((await hostRecord(page)).posted.at(-1), { type: 'openSource', file: SERVER_JS, line: 35 });
    // …and from the keyboard: Enter on a cell of the row.
    await page
      .locator('vscode-data-grid.hot-lines vscode-data-grid-row[data-kind="line"]')
      .nth(1)
      .locator('vscode-data-grid-cell')
      .first()
      .focus();
    await page.keyboard.press('Enter');
    assert.deepEqual((await hostRecord(page)).posted.at(-1), {
      type: 'openSource',
      file: SERVER_JS,
      line: sync.lines.filter((l) => l.ownMs > 0 || l.totalMs > 0)[1].line,
    });

    // Functions: a native frame is not clickable, a file on disk is.
    await page.locator('vscode-panel-tab#tab-functions').click();
    const nativeRow = page
      .locator('vscode-data-grid.functions vscode-data-grid-row[data-kind="function"][data-file=""]')
      .first();
    const before = (await hostRecord(page)).posted.length;
    await nativeRow.click();
    assert.equal((await hostRecord(page)).posted.length, before, 'native code has no file to open');
    await screenshot(page, 'functions-dark');

    // Hints: message and fix; the location opens the file.
    await page.locator('vscode-panel-tab#tab-hints').click();
    const hint = await text(page, '.hint');
    assert.match(hint, /crypto\.pbkdf2Sync/);
    assert.match(hint, /Fix: use crypto\.pbkdf2/);
    // VS Code's host script handles link clicks on the frame's window (scrolling to the top for
    // href="#"): the page's own links must not let the click get there.
    await page.evaluate(() => {
      window.__windowClicks = 0;
      window.addEventListener('click', () => window.__windowClicks++);
    });
    await page.locator('.hint vscode-link').first().click();
    assert.deepEqual((await hostRecord(page)).posted.at(-1), { type: 'openSource', file: SERVER_JS, line: 35 });
    assert.equal(await page.evaluate(() => window.__windowClicks), 0, 'the link click stops before window');
    await screenshot(page, 'hints-dark');

    await page.locator('#open-flame').click();
    assert.deepEqual((await hostRecord(page)).posted.at(-1), { type: 'openFlameGraph' });
    await check();
  });

  test('a share carries its 95% interval: "±" beside the hot line and the function', async () => {
    const withPm: ReportV1 = {
      ...sync,
      lines: sync.lines.map((l, i) => (i === 0 ? { ...l, ownPctPm: 1.9 } : l)),
      functions: sync.functions.map((f) => ({ ...f, selfPctPm: 0.7 })),
    };
    const { page, check } = await open('dark', [{ type: 'report', report: withPm }], withPm.id);
    await page.locator('vscode-panel-tab#tab-lines').click();
    const lines = page.locator('vscode-data-grid.hot-lines vscode-data-grid-row[data-kind="line"]');
    assert.match(await lines.first().innerText(), /±1\.9/);
    // A row without an interval (a report of an older version) shows none.
    assert.doesNotMatch(await lines.nth(1).innerText(), /±/);
    await page.locator('vscode-panel-tab#tab-functions').click();
    const fn = page.locator('vscode-data-grid.functions vscode-data-grid-row[data-kind="function"]').first();
    assert.match(await fn.innerText(), /±0\.7/);
    await check();
  });

  test('the same run in the light theme', async () => {
    // The top line's callee as V8 names a package's CommonJS export: the card says which package.
    const named: ReportV1 = structuredClone(sync);
    const top = named.lines.find((l) => l.thread === undefined && l.ownMs > 0)!;
    const jwt = path.join(LOGIN_API, 'node_modules', 'jsonwebtoken', 'sign.js');
    top.callees = [{ name: 'module.exports', file: jwt, line: 60, totalMs: top.ownMs }];
    const { page, check } = await open('light', [{ type: 'report', report: named }], named.id);
    assert.match(await text(page, '[data-field="top-line"]'), /server\.js:35/);
    assert.match(await text(page, '[data-field="top-line"]'), /calls module\.exports \(jsonwebtoken\)/);
    await screenshot(page, 'overview-light');
    await page.locator('vscode-panel-tab#tab-lines').click();
    await screenshot(page, 'hotlines-light');
    await check();
  });

  for (const theme of ['dark', 'light'] as const) {
    test(`the async run against the sync baseline: deltas and the cheaper line (${theme})`, async () => {
      const { page, check } = await open(theme, [{ type: 'report', report: async, baseline: sync }], async.id);
      const reqs = page.locator('[data-stat="req/s"] .delta');
      assert.match(await reqs.innerText(), /^[↑↓] [+−]\d+(\.\d)?%\s+was \d/);
      const faster = async.load!.requests.perSecond > sync.load!.requests.perSecond;
      assert.equal(await reqs.getAttribute('data-delta'), faster ? 'better' : 'worse');
      assert.equal(await page.locator('[data-stat="p99"] .delta').count(), 1);
      assert.equal(await page.locator('[data-stat="delay p99"] .delta').count(), 1);
      assert.equal(await page.locator('[data-stat="errors"] .delta').count(), 1);
      await screenshot(page, `baseline-${theme}`);
      await page.locator('vscode-panel-tab#tab-compare').click();
      const cheaper = await page
        .locator('vscode-data-grid.compare vscode-data-grid-row[data-kind="compare-line"]')
        .first()
        .innerText();
      assert.match(cheaper, /cheaper/i);
      assert.match(cheaper, /server\.js:35/);
      assert.match(cheaper, /checkPassword/);
      await screenshot(page, `compare-${theme}`);
      await check();
    });
  }

  test('a fix that moved the work (pbkdf2Sync into a setImmediate callback): rows say where, none is cheaper', async () => {
    const base = recordedReport('noop-base');
    const fix = recordedReport('noop-fix');
    const { page, check } = await open('dark', [{ type: 'report', report: fix, baseline: base }], fix.id);
    await page.locator('vscode-panel-tab#tab-compare').click();
    const row = (line: number) =>
      page
        .locator(`vscode-data-grid.compare vscode-data-grid-row[data-kind="compare-line"][data-line="${line}"]`)
        .first();
    const left = await row(35).innerText();
    assert.match(left, /moved to setImmediate callback server\.js:115/i);
    assert.doesNotMatch(left, /cheaper/i);
    const landed = await row(115).innerText();
    assert.match(landed, /moved from checkPassword server\.js:35/i);
    assert.equal((await page.locator('vscode-data-grid.compare [data-moved]').count()) >= 4, true);
    // A card with no value per sub-window (p90, max) has no test: its change shows, in no colour.
    await page.locator('vscode-panel-tab#tab-overview').click();
    for (const k of ['p90', 'max'])
      assert.equal(await page.locator(`[data-stat="${k}"] .delta`).getAttribute('data-delta'), 'not judged', k);
    await page.locator('vscode-panel-tab#tab-compare').click();
    await screenshot(page, 'compare-moved-dark');
    await check();
  });

  test('a rewritten line says so, with the code before and after; no two rows read one place', async () => {
    const [base, fix] = [recordedReport('tsx-base'), recordedReport('tsx-fix')];
    const texts = readRunSources(recordedRun('tsx-base'), recordedRun('tsx-fix'));
    const changedSources = { base: {} as Record<string, string>, current: {} as Record<string, string>, same: [] };
    for (const [file, text] of texts.current)
      if (texts.base.get(file) !== text)
        [changedSources.base[file], changedSources.current[file]] = [texts.base.get(file)!, text];
    const { page, check } = await open(
      'light',
      [{ type: 'report', report: fix, baseline: base, changedSources }],
      fix.id,
    );
    await page.locator('vscode-panel-tab#tab-compare').click();
    const rows = page.locator('vscode-data-grid.compare vscode-data-grid-row[data-kind="compare-line"]');
    const places = await rows.evaluateAll((els) => els.map((e) => `${e.dataset.file}:${e.dataset.line}`));
    assert.equal(new Set(places).size, places.length, places.join(' '));
    const rewritten = page.locator('vscode-data-grid.compare [data-code-change="rewritten"]').first();
    assert.match(await rewritten.innerText(), /^rewritten/);
    assert.match(
      (await rewritten.getAttribute('title')) ?? '',
      /^was \(in orders\.map callback\): for \(const p of orders\)/,
    );
    await screenshot(page, 'compare-rewritten-light');
    await check();
  });

  test('focus (report.focus and the focus message) scrolls to and highlights the row', async () => {
    const focus = { file: SERVER_JS, line: 35, functionName: 'checkPassword' };
    const { page, check } = await open('dark', [{ type: 'report', report: sync, focus }], sync.id);
    assert.equal(await page.locator('vscode-panels').getAttribute('activeid'), 'tab-lines');
    const focused = page.locator('vscode-data-grid-row.focused');
    assert.equal(await focused.count(), 1);
    assert.match(await focused.innerText(), /server\.js:35[\s\S]*checkPassword/);

    // A lens on the function's declaration: no hot line there, so the function's row.
    const fn = sync.functions.find((f) => f.name === 'checkPassword' && f.file === SERVER_JS)!;
    await page.evaluate((m) => window.postMessage(m, '*'), {
      type: 'focus',
      file: SERVER_JS,
      line: fn.line,
      functionName: 'checkPassword',
    });
    await page.waitForFunction((want) => document.body.dataset.focused === want, `function:${fn.line}`);
    assert.equal(await page.locator('vscode-panels').getAttribute('activeid'), 'tab-functions');
    assert.match(await page.locator('vscode-data-grid-row.focused').innerText(), /checkPassword/);
    assert.ok(await page.locator('vscode-data-grid-row.focused').isVisible());
    await screenshot(page, 'focus-dark');

    // A line without samples: said so, nothing highlighted.
    await page.evaluate((m) => window.postMessage(m, '*'), { type: 'focus', file: SERVER_JS, line: 1 });
    await page.locator('#focus-status .callout').waitFor();
    assert.equal(await text(page, '#focus-status'), 'server.js:1 has no samples in this run.');
    assert.equal(await page.locator('.focused').count(), 0);
    await check();
  });

  test('the warnings a run can carry: partial, timeouts, a blocked loop, a limited load generator, notes', async () => {
    // The real run, with the figures a bad run has (these are hard to provoke in 2 s on demand).
    const bad: ReportV1 = structuredClone(sync);
    bad.id = 'bad-run';
    bad.partial = { reason: 'the app exited with code 1 during the profiled window' };
    bad.notes = ['server.js: no source map found', 'a second note'];
    bad.load!.timeouts = 7;
    bad.load!.errors = 9;
    bad.load!.non2xx = 3;
    bad.load!.statusCodes = { 200: 40, 500: 3 };
    bad.load!.loadLimited = true;
    bad.load!.loadCpu = 0.97;
    bad.eventLoop!.blockedThroughout = true;
    const { page, check } = await open('dark', [{ type: 'report', report: bad }], 'bad-run');
    assert.match(await text(page, '[data-field="partial"]'), /Partial run: the app exited with code 1/);
    assert.match(await text(page, '.partial-badge'), /PARTIAL/);
    assert.match(
      await text(page, '[data-field="lower-bounds"]'),
      /7 timed-out requests are counted at the 10 s timeout: the percentiles are lower bounds/,
    );
    assert.match(await text(page, '[data-field="timeouts"]'), /7 requests timed out/);
    assert.match(await text(page, '[data-field="socket-errors"]'), /2 connection errors/);
    assert.match(await text(page, '[data-field="non2xx"]'), /3 of \d+ responses were not 2xx/);
    assert.match(
      await text(page, '[data-field="load-limited"]'),
      /load generator was the limit \(it used 97% of a core\)/,
    );
    assert.match(await text(page, '[data-field="blocked"]'), /Blocked for the whole window: no 10 ms timer ran in/);
    assert.match(await text(page, '[data-stat="p99"] .stat-value'), /^≥ /, 'a lower bound says so');
    assert.match(await text(page, '[data-stat="delay max"] .stat-value'), /^≥ /);
    assert.equal(await page.locator('details.notes').getAttribute('open'), null, 'notes start collapsed');
    assert.match(await text(page, 'details.notes summary'), /Notes \(2\)/);
    assert.equal(await page.locator('details.notes li').first().isVisible(), false);
    await screenshot(page, 'warnings-dark');
    await check();
  });

  test('names from the app are text: a function called <img onerror> creates no element', async () => {
    const evil: ReportV1 = structuredClone(sync);
    evil.id = 'evil';
    evil.lines[0].function = XSS;
    evil.lines[0].callees = [{ name: XSS, file: `${LOGIN_API}/${XSS}.js`, line: 1, totalMs: 1, inferred: true }];
    evil.lines[1].file = `${LOGIN_API}/${XSS}.js`;
    evil.functions[0].name = XSS;
    evil.hints[0].message = `\`${XSS}\` ${XSS}`;
    evil.hints[0].fix = XSS;
    evil.notes = [XSS];
    evil.partial = { reason: XSS };
    const { page, check } = await open('dark', [{ type: 'report', report: evil }], 'evil');
    await page.locator('vscode-panel-tab#tab-lines').click();
    assert.match(
      await text(page, 'vscode-data-grid.hot-lines vscode-data-grid-row[data-kind="line"]'),
      /<img src=x onerror=alert\(1\)>/,
    );
    assert.match(await text(page, '[data-field="partial"]'), /<img src=x onerror=alert\(1\)>/);
    const images = await page.evaluate(() => document.querySelectorAll('img').length);
    assert.equal(images, 0, 'no element made from a report string');
    await check(); // no dialog, no request to /x, no CSP or Trusted Types violation
  });

  test('the Trusted Types guard of these tests is real: a string in innerHTML throws', async () => {
    const { page, check } = await open('dark', [{ type: 'report', report: sync }], sync.id);
    const probe = await page.evaluate(() => {
      try {
        document.createElement('div').innerHTML = '<b>tt-probe</b>';
        return 'allowed';
      } catch (e) {
        return (e as Error).name;
      }
    });
    assert.equal(probe, 'TypeError');
    const rec = await hostRecord(page);
    assert.equal(
      rec.violations.filter((v) => v.directive === 'require-trusted-types-for').length,
      1,
      'reported as a violation too',
    );
    await check({ expected: /tt-probe|requires 'TrustedHTML'/ });
  });

  test('messages that are not a ToReportView are dropped', async () => {
    const { page, check } = await open('dark', [{ type: 'report', report: sync }], sync.id);
    const bad = [
      { type: 'report', report: { ...sync, version: 2 } },
      { type: 'report', report: { ...sync, lines: [{ file: SERVER_JS, line: 'x' }] } },
      { type: 'report', report: sync, baseline: { id: 'nope' } },
      { type: 'focus', file: SERVER_JS, line: 0 },
      { type: 'openSource', file: SERVER_JS, line: 1 },
      { type: 'eval', code: 'alert(1)' },
      'report',
      null,
    ];
    for (const m of bad) await page.evaluate((msg) => window.postMessage(msg, '*'), m);
    await page.waitForFunction((n) => document.body.dataset.dropped === String(n), bad.length);
    assert.equal(await page.evaluate(() => document.body.dataset.reportId), sync.id, 'still the valid report');
    assert.equal(await page.locator('vscode-panels').count(), 1);
    const posted = (await hostRecord(page)).posted;
    assert.deepEqual(posted, [{ type: 'ready' }], 'nothing posted back');
    await check();
  });
});
