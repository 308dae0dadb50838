// Shared by test/webview/report*.test.ts: the report page served from 127.0.0.1, a test double of
// the VS Code webview host, and VS Code's Dark Modern and Light Modern theme variables. The reports
// the page shows are recorded runs (test/helpers/recorded.ts). Nothing sleeps: waits are on page state.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { reportHtml } from '../../webview/report/html.ts';
import { CHROMIUM, assertChromium } from '../helpers/chromium.ts';

// Callbacks passed to page.evaluate / addInitScript run in the page; the tests compile without
// the DOM lib (it would change Node's globals for the whole project), so these two are untyped.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const window: any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const document: any;

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const LOGIN_API = path.join(REPO_ROOT, 'examples', 'login-api');
export const REPORT_JS = path.join(REPO_ROOT, 'dist', 'webview', 'report.js');
export const ARTIFACTS = path.join(REPO_ROOT, 'test', 'e2e', 'artifacts');

// ---- the bundle --------------------------------------------------------------------------------

/** The bundle must exist and be newer than every source of the page (else: `node esbuild.mjs`). */
export function assertBundleFresh(): void {
  assert.ok(fs.existsSync(REPORT_JS), `${REPORT_JS} is missing: run \`node esbuild.mjs\` first`);
  const built = fs.statSync(REPORT_JS).mtimeMs;
  const dir = path.join(REPO_ROOT, 'webview', 'report');
  for (const f of fs.readdirSync(dir)) {
    assert.ok(
      fs.statSync(path.join(dir, f)).mtimeMs <= built,
      `dist/webview/report.js is older than webview/report/${f}: run \`node esbuild.mjs\``,
    );
  }
}

// ---- the page, served from 127.0.0.1 -----------------------------------------------------------

export interface PageServer {
  origin: string;
  close(): Promise<void>;
}

/** Serves the report page at / (a fresh nonce per load) and the bundle at /report.js. */
export async function servePage(): Promise<PageServer> {
  let origin = '';
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/') {
      const nonce = randomBytes(18).toString('base64');
      const html = reportHtml({ cspSource: origin, nonce, script: `${origin}/report.js`, title: 'Hotline report' });
      // Test only: Trusted Types make any string reaching an HTML sink (innerHTML, …) throw. The
      // toolkit's own template policy is "fast-html"; the page itself may not create one.
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': "require-trusted-types-for 'script'; trusted-types fast-html",
      });
      res.end(html);
    } else if (url.pathname === '/report.js' || url.pathname === '/report.js.map') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      fs.createReadStream(REPORT_JS + (url.pathname.endsWith('.map') ? '.map' : '')).pipe(res);
    } else if (url.pathname === '/favicon.ico') {
      res.writeHead(204).end(); // the browser asks on its own; not the page
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Debian's chromium; a missing or broken one throws one line saying what to install. */
export function launchChromium(): Promise<Browser> {
  assertChromium();
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

// ---- VS Code's themes (the variables a webview gets) --------------------------------------------

const COMMON = {
  '--vscode-font-family': 'system-ui, "Ubuntu", "Droid Sans", sans-serif',
  '--vscode-font-size': '13px',
  '--vscode-font-weight': 'normal',
  '--vscode-editor-font-family': '"Droid Sans Mono", "monospace", monospace',
  '--vscode-editor-font-size': '14px',
};

/** Dark Modern (dark_modern.json over dark_plus/dark_vs and the colour registry's defaults). */
const DARK_MODERN: Record<string, string> = {
  ...COMMON,
  '--vscode-foreground': '#cccccc',
  '--vscode-descriptionForeground': '#9d9d9d',
  '--vscode-errorForeground': '#f85149',
  '--vscode-editor-background': '#1f1f1f',
  '--vscode-editor-foreground': '#cccccc',
  '--vscode-editorWidget-background': '#202020',
  '--vscode-widget-border': '#313131',
  '--vscode-panel-border': '#2b2b2b',
  '--vscode-panel-background': '#181818',
  '--vscode-focusBorder': '#0078d4',
  '--vscode-textLink-foreground': '#4daafc',
  '--vscode-textLink-activeForeground': '#4daafc',
  '--vscode-textCodeBlock-background': '#2b2b2b',
  '--vscode-textPreformat-foreground': '#d0d0d0',
  '--vscode-textBlockQuote-background': '#2b2b2b',
  '--vscode-textBlockQuote-border': '#616161',
  '--vscode-button-background': '#0078d4',
  '--vscode-button-foreground': '#ffffff',
  '--vscode-button-hoverBackground': '#026ec1',
  '--vscode-button-border': '#ffffff1a',
  '--vscode-button-secondaryBackground': '#00000000',
  '--vscode-button-secondaryForeground': '#cccccc',
  '--vscode-button-secondaryHoverBackground': '#2b2b2b',
  '--vscode-badge-background': '#616161',
  '--vscode-badge-foreground': '#f8f8f8',
  '--vscode-list-hoverBackground': '#2a2d2e',
  '--vscode-list-activeSelectionBackground': '#04395e',
  '--vscode-list-activeSelectionForeground': '#ffffff',
  '--vscode-list-inactiveSelectionBackground': '#37373d',
  '--vscode-panelTitle-activeBorder': '#0078d4',
  '--vscode-panelTitle-activeForeground': '#cccccc',
  '--vscode-panelTitle-inactiveForeground': '#9d9d9d',
  '--vscode-settings-dropdownListBorder': '#454545',
  '--vscode-scrollbarSlider-background': '#79797966',
  '--vscode-editorWarning-foreground': '#cca700',
  '--vscode-inputValidation-warningBackground': '#352a05',
  '--vscode-inputValidation-errorBackground': '#5a1d1d',
  '--vscode-charts-foreground': '#cccccc',
  '--vscode-charts-lines': '#cccccc80',
  '--vscode-charts-red': '#f14c4c',
  '--vscode-charts-blue': '#3794ff',
  '--vscode-charts-yellow': '#cca700',
  '--vscode-charts-orange': '#d18616',
  '--vscode-charts-green': '#89d185',
  '--vscode-charts-purple': '#b180d7',
};

/** Light Modern (light_modern.json over light_plus/light_vs and the colour registry's defaults). */
const LIGHT_MODERN: Record<string, string> = {
  ...COMMON,
  '--vscode-foreground': '#3b3b3b',
  '--vscode-descriptionForeground': '#3b3b3b',
  '--vscode-errorForeground': '#f85149',
  '--vscode-editor-background': '#ffffff',
  '--vscode-editor-foreground': '#3b3b3b',
  '--vscode-editorWidget-background': '#f8f8f8',
  '--vscode-widget-border': '#e5e5e5',
  '--vscode-panel-border': '#e5e5e5',
  '--vscode-panel-background': '#f8f8f8',
  '--vscode-focusBorder': '#005fb8',
  '--vscode-textLink-foreground': '#005fb8',
  '--vscode-textLink-activeForeground': '#005fb8',
  '--vscode-textCodeBlock-background': '#f8f8f8',
  '--vscode-textPreformat-foreground': '#3b3b3b',
  '--vscode-textBlockQuote-background': '#f8f8f8',
  '--vscode-textBlockQuote-border': '#e5e5e5',
  '--vscode-button-background': '#005fb8',
  '--vscode-button-foreground': '#ffffff',
  '--vscode-button-hoverBackground': '#0258a8',
  '--vscode-button-border': '#0000001a',
  '--vscode-button-secondaryBackground': '#e5e5e5',
  '--vscode-button-secondaryForeground': '#3b3b3b',
  '--vscode-button-secondaryHoverBackground': '#cccccc',
  '--vscode-badge-background': '#cccccc',
  '--vscode-badge-foreground': '#3b3b3b',
  '--vscode-list-hoverBackground': '#f2f2f2',
  '--vscode-list-activeSelectionBackground': '#e8e8e8',
  '--vscode-list-activeSelectionForeground': '#000000',
  '--vscode-list-inactiveSelectionBackground': '#e4e6f1',
  '--vscode-panelTitle-activeBorder': '#005fb8',
  '--vscode-panelTitle-activeForeground': '#3b3b3b',
  '--vscode-panelTitle-inactiveForeground': '#3b3b3b',
  '--vscode-settings-dropdownListBorder': '#c8c8c8',
  '--vscode-scrollbarSlider-background': '#64646466',
  '--vscode-editorWarning-foreground': '#bf8803',
  '--vscode-inputValidation-warningBackground': '#f6f5d2',
  '--vscode-inputValidation-errorBackground': '#f2dede',
  '--vscode-charts-foreground': '#3b3b3b',
  '--vscode-charts-lines': '#3b3b3b80',
  '--vscode-charts-red': '#e51400',
  '--vscode-charts-blue': '#1a85ff',
  '--vscode-charts-yellow': '#bf8803',
  '--vscode-charts-orange': '#d18616',
  '--vscode-charts-green': '#388a34',
  '--vscode-charts-purple': '#652d90',
};

/**
 * Dark High Contrast (hc_black.json and the colour registry's hcDark defaults): black, white
 * text, cyan contrast borders, orange active borders; no chart colour of its own but the registry's.
 */
const DARK_HIGH_CONTRAST: Record<string, string> = {
  ...COMMON,
  '--vscode-foreground': '#ffffff',
  '--vscode-descriptionForeground': '#ffffffb3',
  '--vscode-errorForeground': '#f48771',
  '--vscode-editor-background': '#000000',
  '--vscode-editor-foreground': '#ffffff',
  '--vscode-editorWidget-background': '#0c141f',
  '--vscode-widget-border': '#6fc3df',
  '--vscode-panel-border': '#6fc3df',
  '--vscode-panel-background': '#000000',
  '--vscode-contrastBorder': '#6fc3df',
  '--vscode-contrastActiveBorder': '#f38518',
  '--vscode-focusBorder': '#f38518',
  '--vscode-textLink-foreground': '#21a6ff',
  '--vscode-textLink-activeForeground': '#21a6ff',
  '--vscode-textCodeBlock-background': '#000000',
  '--vscode-textPreformat-foreground': '#ffd700',
  '--vscode-textBlockQuote-background': '#000000',
  '--vscode-textBlockQuote-border': '#ffffff',
  '--vscode-button-background': '#000000',
  '--vscode-button-foreground': '#ffffff',
  '--vscode-button-border': '#6fc3df',
  '--vscode-button-secondaryForeground': '#ffffff',
  '--vscode-badge-background': '#000000',
  '--vscode-badge-foreground': '#ffffff',
  '--vscode-list-activeSelectionBackground': '#000000',
  '--vscode-list-inactiveSelectionBackground': '#000000',
  '--vscode-panelTitle-activeBorder': '#6fc3df',
  '--vscode-panelTitle-activeForeground': '#ffffff',
  '--vscode-panelTitle-inactiveForeground': '#ffffff',
  '--vscode-scrollbarSlider-background': '#6fc3df99',
  '--vscode-editorError-foreground': '#f48771',
  '--vscode-editorWarning-foreground': '#ffd370',
  '--vscode-inputValidation-warningBackground': '#000000',
  '--vscode-inputValidation-errorBackground': '#000000',
  '--vscode-charts-foreground': '#ffffff',
  '--vscode-charts-lines': '#ffffff80',
  '--vscode-charts-red': '#f48771',
  '--vscode-charts-blue': '#3794ff',
  '--vscode-charts-yellow': '#ffd370',
  '--vscode-charts-orange': '#ab5a00',
  '--vscode-charts-green': '#89d185',
  '--vscode-charts-purple': '#b180d7',
};

/** Light High Contrast (hc_light.json and the colour registry's hcLight defaults). */
const LIGHT_HIGH_CONTRAST: Record<string, string> = {
  ...COMMON,
  '--vscode-foreground': '#292929',
  '--vscode-descriptionForeground': '#292929b3',
  '--vscode-errorForeground': '#b5200d',
  '--vscode-editor-background': '#ffffff',
  '--vscode-editor-foreground': '#292929',
  '--vscode-editorWidget-background': '#ffffff',
  '--vscode-widget-border': '#0f4a85',
  '--vscode-panel-border': '#0f4a85',
  '--vscode-panel-background': '#ffffff',
  '--vscode-contrastBorder': '#0f4a85',
  '--vscode-contrastActiveBorder': '#006bbd',
  '--vscode-focusBorder': '#006bbd',
  '--vscode-textLink-foreground': '#0f4a85',
  '--vscode-textLink-activeForeground': '#0f4a85',
  '--vscode-textCodeBlock-background': '#ffffff',
  '--vscode-textPreformat-foreground': '#292929',
  '--vscode-textBlockQuote-background': '#ffffff',
  '--vscode-textBlockQuote-border': '#292929',
  '--vscode-button-background': '#0f4a85',
  '--vscode-button-foreground': '#ffffff',
  '--vscode-button-border': '#0f4a85',
  '--vscode-button-secondaryForeground': '#292929',
  '--vscode-badge-background': '#0f4a85',
  '--vscode-badge-foreground': '#ffffff',
  '--vscode-list-activeSelectionBackground': '#ffffff',
  '--vscode-list-inactiveSelectionBackground': '#ffffff',
  '--vscode-panelTitle-activeBorder': '#b5200d',
  '--vscode-panelTitle-activeForeground': '#292929',
  '--vscode-panelTitle-inactiveForeground': '#292929',
  '--vscode-scrollbarSlider-background': '#0f4a8566',
  '--vscode-editorError-foreground': '#b5200d',
  '--vscode-editorWarning-foreground': '#895503',
  '--vscode-inputValidation-warningBackground': '#ffffff',
  '--vscode-inputValidation-errorBackground': '#ffffff',
  '--vscode-charts-foreground': '#292929',
  '--vscode-charts-lines': '#29292980',
  '--vscode-charts-red': '#b5200d',
  '--vscode-charts-blue': '#0f4a85',
  '--vscode-charts-yellow': '#895503',
  '--vscode-charts-orange': '#ab5a00',
  '--vscode-charts-green': '#374e06',
  '--vscode-charts-purple': '#652d90',
};

export type ThemeName = 'dark' | 'light' | 'hc-dark' | 'hc-light';
export const THEMES: Record<ThemeName, { kind: string; vars: Record<string, string> }> = {
  dark: { kind: 'vscode-dark', vars: DARK_MODERN },
  light: { kind: 'vscode-light', vars: LIGHT_MODERN },
  // VS Code gives a High Contrast theme both classes: the kind and "vscode-high-contrast".
  'hc-dark': { kind: 'vscode-high-contrast', vars: DARK_HIGH_CONTRAST },
  'hc-light': { kind: 'vscode-high-contrast vscode-high-contrast-light', vars: LIGHT_HIGH_CONTRAST },
};

// ---- the VS Code host, as a test double inside the page -----------------------------------------

export interface HostRecord {
  posted: Array<{ type?: string; [k: string]: unknown }>;
  violations: Array<{ directive: string; blocked: string; sample: string; at: string }>;
}

/**
 * Opens the page with a fake `acquireVsCodeApi` (installed before any page script): it records
 * every message the page posts and answers `ready` with `onReady` (as ReportPanel does), and it
 * applies a theme the way VS Code does (variables on <html>, the kind as a class on <body>).
 * Requests to anything but 127.0.0.1 are aborted and listed in `offHost`.
 */
export async function openReportPage(
  browser: Browser,
  server: PageServer,
  o: { theme: ThemeName; onReady: unknown[]; viewport?: { width: number; height: number } },
): Promise<{ page: Page; offHost: string[]; dialogs: string[]; errors: string[] }> {
  const page = await browser.newPage({ viewport: o.viewport ?? { width: 1180, height: 900 } });
  const offHost: string[] = [];
  const dialogs: string[] = [];
  const errors: string[] = [];
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1') return route.continue();
    offHost.push(url.href);
    return route.abort();
  });
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  const theme = THEMES[o.theme];
  await page.addInitScript(fakeHost({ onReady: o.onReady, vars: theme.vars, kind: theme.kind }));
  await page.goto(`${server.origin}/`);
  return { page, offHost, dialogs, errors };
}

/**
 * The host double's source. A string, not a function: tsx compiles the tests with esbuild's
 * keepNames, whose `__name(...)` calls would not exist in the page.
 */
function fakeHost(args: { onReady: unknown[]; vars: Record<string, string>; kind: string }): string {
  return `(() => {
  const { onReady, vars, kind } = ${JSON.stringify(args)};
  const record = { posted: [], violations: [] };
  window.__host = record;
  document.addEventListener('securitypolicyviolation', (e) => {
    record.violations.push({ directive: e.violatedDirective, blocked: e.blockedURI, sample: e.sample, at: e.sourceFile + ':' + e.lineNumber + ':' + e.columnNumber });
  });
  let acquired = false;
  let state;
  window.acquireVsCodeApi = () => {
    if (acquired) throw new Error('An instance of the VS Code API has already been acquired');
    acquired = true;
    return {
      postMessage: (msg) => {
        record.posted.push(JSON.parse(JSON.stringify(msg)));
        if (msg && msg.type === 'ready') for (const m of onReady) window.postMessage(m, '*');
      },
      getState: () => state,
      setState: (s) => (state = s),
    };
  };
  document.addEventListener('DOMContentLoaded', () => {
    for (const [k, v] of Object.entries(vars)) document.documentElement.style.setProperty(k, v);
    document.body.classList.add(...kind.split(' '));
    document.body.dataset.vscodeThemeKind = kind.split(' ').pop();
  });
})();`;
}

export function hostRecord(page: Page): Promise<HostRecord> {
  return page.evaluate(() => window.__host as HostRecord);
}

/** Waits until the page shows the report with this id (set on <body> after a render). */
export async function waitForReport(page: Page, id: string): Promise<void> {
  await page.waitForFunction((want) => document.body.dataset.reportId === want, id);
}

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `report-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * Opens the page with these messages answering `ready` (and waits for report `id` when given);
 * `check()` asserts the page stayed clean — no CSP violation, request off 127.0.0.1, dialog or
 * page error other than `expected` — and closes it.
 */
export async function openCheckedReport(
  browser: Browser,
  server: PageServer,
  o: { theme: ThemeName; onReady: unknown[]; id?: string },
): Promise<{ page: Page; check(opts?: { expected?: RegExp }): Promise<void> }> {
  const opened = await openReportPage(browser, server, { theme: o.theme, onReady: o.onReady });
  if (o.id) await waitForReport(opened.page, o.id);
  return {
    page: opened.page,
    async check(opts: { expected?: RegExp } = {}) {
      const rec = await hostRecord(opened.page);
      const unexpected = (text: string): boolean => !opts.expected?.test(text);
      assert.deepEqual(
        rec.violations.filter((v) => unexpected(v.sample)),
        [],
        'no CSP violation',
      );
      assert.deepEqual(opened.offHost, [], 'no request off 127.0.0.1');
      assert.deepEqual(opened.dialogs, [], 'no dialog');
      assert.deepEqual(opened.errors.filter(unexpected), [], 'no error in the page');
      await opened.page.close();
    },
  };
}
