// A stand-in for VS Code around the flame graph page: the page is flameHtml(...) as the extension
// builds it, served the way a webview serves it (the document on one origin, every asset from
// another one, `cspSource`, with CORS, like vscode-resource), with VS Code's theme class and default
// styles added to it, and a test double for the host behind acquireVsCodeApi(). Drives Debian's
// chromium with playwright-core; every request that is not for 127.0.0.1 is blocked and recorded.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { flameHtml } from '../../webview/flame/html.ts';
import { CHROMIUM, assertChromium } from '../helpers/chromium.ts';
import type { FromFlameView, ToFlameView } from '../../src/protocol.ts';

export const ROOT = path.resolve(__dirname, '..', '..');
export const DIST = path.join(ROOT, 'dist');
export const ARTIFACTS = path.join(ROOT, 'test', 'e2e', 'artifacts');
export const LOGIN_PROFILE = path.join(ROOT, 'test', 'fixtures', 'login-api', 'profile.cpuprofile');

const MIME: Record<string, string> = {
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.html': 'text/html',
  '.map': 'application/json',
};

function listen(handler: http.RequestListener): Promise<{ server: http.Server; origin: string }> {
  const server = http.createServer(handler);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    );
  });
}

function closeServer({ server }: { server: http.Server }): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** VS Code's theme kinds, as the class it puts on <body>. */
export type ThemeKind = 'vscode-dark' | 'vscode-light';

// What VS Code adds to every webview document before its scripts run (abridged from its
// webview/browser/pre/index.html): CSS variables of the theme on <html>, default styles at the top
// of <head> (before the page's CSP meta, so the CSP does not apply to them) and the theme on <body>.
function asVsCodeServes(html: string, theme: ThemeKind): string {
  const vars =
    theme === 'vscode-dark'
      ? '--vscode-editor-background:#1e1e1e;--vscode-editor-foreground:#d4d4d4;--vscode-font-size:13px;--vscode-font-family:system-ui'
      : '--vscode-editor-background:#ffffff;--vscode-editor-foreground:#000000;--vscode-font-size:13px;--vscode-font-family:system-ui';
  const defaults = `<style id="_defaultStyles">html{${vars}}body{background-color:transparent;color:var(--vscode-editor-foreground);font-family:var(--vscode-font-family);font-size:var(--vscode-font-size);margin:0;padding:0 20px}a{color:#3794ff}</style>`;
  assert.match(html, /<head>\n/);
  assert.match(html, /<body>\n/);
  return html
    .replace('<head>\n', `<head>\n${defaults}\n`)
    .replace('<body>\n', `<body class="${theme}" data-vscode-theme-kind="${theme}" data-vscode-theme-name="test">\n`);
}

/**
 * Runs in the page before any of its scripts: the host's test double behind acquireVsCodeApi()
 * (callable once, as in VS Code), a listener that records CSP violations, and the helpers the
 * tests read speedscope's DOM with (by the text a person sees). Plain JavaScript in a string: a
 * function here would be transpiled by tsx with helpers the page does not have.
 */
const IN_PAGE = `(() => {
  const record = { posted: [], violations: [], sentAt: 0 };
  window.__flame = record;
  document.addEventListener('securitypolicyviolation', (e) => {
    record.violations.push({ directive: e.effectiveDirective, blocked: e.blockedURI, source: e.sourceFile, sample: e.sample });
  });
  let acquired = false;
  window.acquireVsCodeApi = () => {
    if (acquired) throw new Error('An instance of the VS Code API has already been acquired');
    acquired = true;
    return Object.freeze({
      postMessage: (message) => {
        const copy = JSON.parse(JSON.stringify(message)); // the real postMessage clones too
        record.posted.push({ message: copy, at: performance.now() });
        window.__toHost(copy);
      },
      getState: () => undefined,
      setState: () => undefined,
    });
  };

  const VIEWS = ['Time Order', 'Left Heavy', 'Sandwich'];
  const ownText = (e) => [...e.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('');
  window.__flameTest = {
    /** speedscope's view tabs, and the active one: the tab whose class no other tab has. */
    tabs() {
      const tabs = [...document.querySelectorAll('div')].filter((d) => VIEWS.includes(ownText(d)));
      const active = tabs.filter((t) => tabs.every((o) => o === t || o.className !== t.className));
      return { labels: tabs.map(ownText), active: active.length === 1 ? ownText(active[0]) : '' };
    },
    /** The rows of the sandwich table, as [total, self, symbol name]. */
    sandwichRows() {
      return [...document.querySelectorAll('table tr')].filter((tr) => tr.querySelector('td')).map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));
    },
    text() {
      return document.body.innerText;
    },
    /** WCAG contrast of the element whose own text is exactly this, against the first opaque background behind it. */
    contrastOf(text) {
      const el = [...document.querySelectorAll('body *')].find((e) => ownText(e) === text);
      if (!el) throw new Error('no element shows ' + text);
      const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
      const lum = (c) => {
        const [r, g, b] = c.slice(0, 3).map((v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4));
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
      };
      let bg;
      for (let e = el; e && !bg; e = e.parentElement) {
        const c = rgb(getComputedStyle(e).backgroundColor);
        if (c.length === 3 || (c.length === 4 && c[3] > 0.9)) bg = c;
      }
      if (!bg) throw new Error('no opaque background behind ' + text);
      const [hi, lo] = [lum(rgb(getComputedStyle(el).color)), lum(bg)].sort((x, y) => y - x);
      return (hi + 0.05) / (lo + 0.05);
    },
  };
})();`;

export interface Violation {
  directive: string;
  blocked: string;
  source: string;
  sample: string;
}

export class FlamePage {
  /** Every message the page posted, in order, as the host received it. */
  readonly received: unknown[] = [];
  readonly consoleErrors: string[] = [];
  readonly pageErrors: string[] = [];
  private waiters: Array<{ count: number; resolve: () => void }> = [];

  constructor(
    readonly page: Page,
    readonly harness: FlameHarness,
  ) {}

  onMessage(m: unknown): void {
    this.received.push(m);
    this.waiters = this.waiters.filter((w) => (this.received.length >= w.count ? (w.resolve(), false) : true));
  }

  /** Resolves once the page has posted `count` messages in all; fails after `timeoutMs`. */
  messages(count: number, timeoutMs = 60_000): Promise<unknown[]> {
    if (this.received.length >= count) return Promise.resolve(this.received.slice(0, count));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`the page posted ${JSON.stringify(this.received)}, not ${count} messages, in ${timeoutMs} ms`),
          ),
        timeoutMs,
      );
      this.waiters.push({ count, resolve: () => (clearTimeout(timer), resolve(this.received.slice(0, count))) });
    });
  }

  /**
   * Posts a message to the page the way the extension does (webview.postMessage). A big `base64`
   * goes over to the page in pieces first: one DevTools message of 100+ MB kills the page.
   */
  async send(message: ToFlameView | unknown): Promise<void> {
    type W = {
      __flame: { sentAt: number; staged: string[] };
      performance: { now(): number };
      postMessage(m: unknown, o: string): void;
    };
    const base64 = base64Of(message) ?? '';
    const big = base64.length > 8e6;
    if (big) {
      await this.page.evaluate(() => {
        (globalThis as unknown as W).__flame.staged = [];
      });
      for (let i = 0; i < base64.length; i += 8e6) {
        await this.page.evaluate(
          (piece) => (globalThis as unknown as W).__flame.staged.push(piece),
          base64.slice(i, i + 8e6),
        );
      }
    }
    await this.page.evaluate(
      ([m, staged]) => {
        const w = globalThis as unknown as W;
        const full = staged ? { ...(m as object), base64: w.__flame.staged.join('') } : m;
        w.__flame.staged = [];
        w.__flame.sentAt = w.performance.now();
        w.postMessage(full, '*');
      },
      [big ? { ...(message as object), base64: '' } : message, big] as const,
    );
  }

  /**
   * The host's answer to `message`: the next message the page posts. Also the ms it took in the
   * page. The wait grows by 10 s per MB of base64; a big profile by URL needs its own `timeoutMs`.
   */
  async load(message: ToFlameView | unknown, timeoutMs?: number): Promise<{ reply: FromFlameView; ms: number }> {
    const before = this.received.length;
    await this.send(message);
    const size = base64Of(message)?.length ?? 0;
    const [reply] = (await this.messages(before + 1, timeoutMs ?? 60_000 + size / 100)).slice(
      before,
    ) as FromFlameView[];
    const ms = await this.page.evaluate(() => {
      const f = (globalThis as unknown as { __flame: { posted: Array<{ at: number }>; sentAt: number } }).__flame;
      return f.posted[f.posted.length - 1].at - f.sentAt;
    });
    return { reply, ms };
  }

  /** Calls one of the in-page helpers (IN_PAGE's __flameTest). */
  call<T>(helper: string, ...args: unknown[]): Promise<T> {
    return this.page.evaluate(
      ([h, a]) =>
        (globalThis as unknown as Record<string, Record<string, (...x: unknown[]) => T>>).__flameTest[h as string](
          ...(a as unknown[]),
        ),
      [helper, args] as const,
    );
  }

  /** Waits until `test` holds for what the in-page helper returns (polled in node: no page code). */
  async until<T>(helper: string, test: (v: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const v = await this.call<T>(helper);
      if (test(v)) return v;
      if (Date.now() > end)
        throw new Error(`timed out waiting for ${what}; last ${helper}(): ${JSON.stringify(v).slice(0, 500)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * speedscope's own search finds `frame` and selects it: Ctrl+F, the box focused, the name filled,
   * Enter (again while the panel is not there: a busy page may take the key before the matches),
   * until the detail panel under the graph matches `detail`.
   */
  async search(frame: string, detail: RegExp, timeoutMs = 30_000): Promise<void> {
    await this.page.keyboard.press('Control+f');
    const box = this.page.locator('input:focus');
    await box.waitFor({ timeout: timeoutMs });
    await box.fill(frame);
    const end = Date.now() + timeoutMs;
    for (;;) {
      await this.page.keyboard.press('Enter');
      const text = await this.until<string>('text', (t) => detail.test(t), `the detail panel of ${frame}`, 2_000).catch(
        () => undefined,
      );
      if (text !== undefined) return;
      if (Date.now() > end) {
        const value = await box.inputValue().catch(() => '(no search box)');
        const last = await this.call<string>('text');
        throw new Error(
          `timed out waiting for the detail panel of ${frame} (search box: ${JSON.stringify(value)}); last text(): ${JSON.stringify(last).slice(0, 500)}`,
        );
      }
    }
  }

  violations(): Promise<Violation[]> {
    return this.page.evaluate(
      () => (globalThis as unknown as { __flame: { violations: Violation[] } }).__flame.violations,
    );
  }

  async screenshot(name: string): Promise<string> {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const file = path.join(ARTIFACTS, `flame-${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }
}

/** The base64 of a profile message (the inline form), if it is one. */
function base64Of(m: unknown): string | undefined {
  const b = typeof m === 'object' && m !== null ? (m as { base64?: unknown }).base64 : undefined;
  return typeof b === 'string' ? b : undefined;
}

export function profileMessage(name: string, content: string | Buffer): ToFlameView {
  return { type: 'profile', name, base64: Buffer.from(content).toString('base64') };
}

export class FlameHarness {
  readonly offHost: string[] = [];
  readonly requests: string[] = [];
  private pages = new Map<string, string>();
  private served = new Map<string, Buffer>();
  private constructor(
    private browser: Browser,
    private assets: { server: http.Server; origin: string },
    private documents: { server: http.Server; origin: string },
  ) {}

  get assetOrigin(): string {
    return this.assets.origin;
  }

  /** Serves `bytes` from the asset origin (as VS Code serves a webview resource); returns its URL. */
  serve(name: string, bytes: string | Buffer): string {
    const pathname = `/served/${randomBytes(6).toString('hex')}/${encodeURIComponent(name)}`;
    this.served.set(pathname, Buffer.from(bytes));
    return `${this.assets.origin}${pathname}`;
  }

  static async start(): Promise<FlameHarness> {
    assertChromium();
    for (const f of ['webview/flame.js', 'speedscope/index.html']) {
      assert.ok(fs.existsSync(path.join(DIST, f)), `dist/${f} is missing: run \`node esbuild.mjs\` first`);
    }
    const built = fs.statSync(path.join(DIST, 'webview', 'flame.js')).mtimeMs;
    assert.ok(
      fs.statSync(path.join(ROOT, 'webview', 'flame', 'main.ts')).mtimeMs <= built,
      'dist/webview/flame.js is older than webview/flame/main.ts: run `node esbuild.mjs`',
    );
    let harness: FlameHarness | undefined;
    const opened: Array<{ server: http.Server }> = [];
    try {
      const assets = await listen((req, res) => {
        const url = new URL(req.url ?? '/', 'http://x');
        const served = harness?.served.get(url.pathname);
        if (served) {
          // A file of the host, as VS Code serves a webview resource (asWebviewUri).
          res.writeHead(200, {
            'content-type': 'application/octet-stream',
            'access-control-allow-origin': '*',
            'cache-control': 'no-cache',
          });
          res.end(served);
          return;
        }
        const file = path.join(DIST, decodeURIComponent(url.pathname));
        if (!file.startsWith(DIST + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, {
          'content-type': MIME[path.extname(file)] ?? 'application/octet-stream',
          'access-control-allow-origin': '*',
          'cache-control': 'no-cache',
        });
        fs.createReadStream(file).pipe(res);
      });
      opened.push(assets);
      const documents = await listen((req, res) => {
        const html = harness?.pages.get(req.url ?? '');
        if (html === undefined) {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        res.end(html);
      });
      opened.push(documents);
      const browser = await chromium.launch({
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
      harness = new FlameHarness(browser, assets, documents);
      return harness;
    } catch (e) {
      // Nobody else holds the servers yet: left open, they would keep the test process alive.
      await Promise.all(opened.map(closeServer));
      throw e;
    }
  }

  /** A fresh page (own context: own localStorage) showing flameHtml(...) in the given VS Code theme. */
  async open(
    theme: ThemeKind,
    o: { viewport?: { width: number; height: number }; oldChromium?: boolean } = {},
  ): Promise<FlamePage> {
    const viewport = o.viewport ?? { width: 1280, height: 800 };
    const id = `/flame-${randomBytes(6).toString('hex')}.html`;
    const nonce = randomBytes(24).toString('base64');
    const html = flameHtml({
      cspSource: this.assets.origin,
      nonce,
      speedscopeBase: `${this.assets.origin}/speedscope`,
      glueScript: `${this.assets.origin}/webview/flame.js`,
      title: 'Flame graph — test',
    });
    this.pages.set(id, asVsCodeServes(html, theme));
    const context: BrowserContext = await this.browser.newContext({ viewport, serviceWorkers: 'block' });
    await context.route('**/*', (route) => {
      const url = route.request().url();
      this.requests.push(url);
      if (new URL(url).hostname === '127.0.0.1') return route.continue();
      this.offHost.push(url);
      return route.abort('blockedbyclient');
    });
    const page = await context.newPage();
    const flame = new FlamePage(page, this);
    await page.exposeFunction('__toHost', (m: unknown) => flame.onMessage(m));
    await page.addInitScript({ content: IN_PAGE });
    // VS Code's Electron can be older than Chromium 140, which added Uint8Array.fromBase64.
    if (o.oldChromium) await page.addInitScript({ content: 'delete Uint8Array.fromBase64;' });
    page.on('console', (m) => {
      if (m.type() === 'error') flame.consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => flame.pageErrors.push(e.message));
    page.on('crash', () => flame.pageErrors.push('the page crashed'));
    await page.goto(this.documents.origin + id);
    return flame;
  }

  async stop(): Promise<void> {
    try {
      await this.browser.close();
    } finally {
      await Promise.all([this.assets, this.documents].map(closeServer));
    }
  }
}

/**
 * A V8-shaped .cpuprofile of about `targetBytes`, deterministic: a call tree over a few thousand
 * functions in a few hundred files, sampled every ~100 µs. Like a real program, consecutive samples
 * mostly share their stack (the same frame for a while, a call or return at the top, now and then
 * a jump elsewhere, idle time); with `churn` every sample is a random stack instead, the worst case
 * for speedscope's importer.
 */
export function bigCpuProfile(targetBytes: number, churn = false): string {
  let seed = 12345;
  const rand = (n: number): number => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return (seed >>> 8) % n;
  };
  const frame = (functionName: string, i: number): CallFrame => ({
    functionName,
    scriptId: String(10 + (i % 400)),
    url: `file:///srv/app/src/module${i % 400}.js`,
    lineNumber: (i * 7) % 900,
    columnNumber: (i * 13) % 80,
  });
  const functions = Array.from({ length: 4000 }, (_, i) =>
    frame(i % 50 === 0 ? '' : `handler${i}_${['parse', 'render', 'query', 'hash', 'validate'][i % 5]}`, i),
  );
  const native = (name: string): CallFrame => ({
    functionName: name,
    scriptId: '0',
    url: '',
    lineNumber: -1,
    columnNumber: -1,
  });
  type CallFrame = { functionName: string; scriptId: string; url: string; lineNumber: number; columnNumber: number };
  type N = { id: number; callFrame: CallFrame; hitCount: number; children: number[] };
  const nodes: N[] = [{ id: 1, callFrame: native('(root)'), hitCount: 0, children: [] }];
  for (const name of ['(program)', '(idle)', '(garbage collector)']) {
    nodes.push({ id: nodes.length + 1, callFrame: native(name), hitCount: 0, children: [] });
    nodes[0].children.push(nodes.length);
  }
  const nodeCount = Math.round(targetBytes / 365);
  const sampleCount = Math.round(targetBytes / 19);
  const childOf = new Map<string, number>();
  /** A child of `parent`: one of a few per parent, new while the tree is smaller than nodeCount. */
  const call = (parent: number, depth: number): number | undefined => {
    const fn = (depth * 97 + rand(depth < 4 ? 3 : 8) * 31 + parent) % functions.length;
    const key = `${parent}:${fn}`;
    let id = childOf.get(key);
    if (id === undefined) {
      const siblings = nodes[parent - 1].children;
      if (nodes.length >= nodeCount) return siblings.length > 0 ? siblings[rand(siblings.length)] : undefined;
      id = nodes.length + 1;
      nodes.push({ id, callFrame: functions[fn], hitCount: 0, children: [] });
      siblings.push(id);
      childOf.set(key, id);
    }
    return id;
  };
  const samples: number[] = new Array(sampleCount);
  const timeDeltas: number[] = new Array(sampleCount);
  let stack: number[] = [1];
  const push = (n: number): void => {
    for (let k = 0; k < n; k++) {
      const id = call(stack[stack.length - 1], stack.length);
      if (id === undefined) return;
      stack.push(id);
    }
  };
  for (let i = 0; i < sampleCount; i++) {
    const r = churn ? 90 : rand(100);
    if (r < 55 && stack.length > 1) {
      // still in the same function
    } else if (r < 85 && stack.length > 4) {
      stack.length -= Math.min(stack.length - 2, rand(3) + 1);
      push(rand(3) + 1);
    } else if (r < 96) {
      stack.length = 1;
      push(3 + rand(30));
    } else {
      stack = [1, 2 + rand(3)];
    }
    const id = stack[stack.length - 1];
    samples[i] = id;
    nodes[id - 1].hitCount++;
    timeDeltas[i] = 90 + rand(40);
  }
  const startTime = 1_000_000_000;
  const endTime = startTime + timeDeltas.reduce((a, b) => a + b, 0);
  return JSON.stringify({ nodes, startTime, endTime, samples, timeDeltas });
}
