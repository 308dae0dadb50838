// The flame graph webview: flameHtml(...) + webview/flame/main.ts + speedscope's own built app, in
// Debian's chromium, behind a test double of the VS Code host (flame-harness.ts). Needs the build:
//   node esbuild.mjs && node --import tsx --test test/webview/flame.test.ts
// HOTLINE_FLAME_BIG=1 also loads a 100 MB profile and a 20 MB worst case.
// Screenshots: test/e2e/artifacts/flame-*.png.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { SPEEDSCOPE_FILES, flameCsp, flameHtml } from '../../webview/flame/html.ts';
import { DIST, FlameHarness, LOGIN_PROFILE, bigCpuProfile, profileMessage, type FlamePage } from './flame-harness.ts';

let harness: FlameHarness;
before(async () => {
  harness = await FlameHarness.start();
});
after(async () => {
  await harness?.stop();
});

const LOGIN = (): ReturnType<typeof profileMessage> =>
  profileMessage('login-api.cpuprofile', fs.readFileSync(LOGIN_PROFILE));

type View = 'Time Order' | 'Left Heavy' | 'Sandwich';
type Tabs = { labels: string[]; active: string };
type Rows = string[][];

/** Nothing but what the CSP is expected to block: speedscope's protobufjs probing for `require` with eval (html.ts). */
async function assertCleanRun(p: FlamePage): Promise<void> {
  const violations = await p.violations();
  const bundle = `${harness.assetOrigin}/speedscope/${SPEEDSCOPE_FILES.script}`;
  const probes = violations.filter((v) => v.directive === 'script-src' && v.blocked === 'eval' && v.source === bundle);
  assert.deepEqual(
    violations.filter((v) => !probes.includes(v)),
    [],
    'CSP violations',
  );
  assert.ok(probes.length <= 2, `speedscope's eval probes: ${probes.length}`);
  assert.deepEqual(p.pageErrors, [], 'uncaught errors in the page');
  assert.deepEqual(p.consoleErrors, [], 'console errors in the page');
  assert.deepEqual(harness.offHost, [], 'requests that left 127.0.0.1');
}

/** Clicks one of speedscope's view tabs, as a person does, and waits until it is the active one. */
async function switchTo(p: FlamePage, view: View): Promise<void> {
  await p.page
    .locator('div')
    .filter({ hasText: new RegExp(`^\\W*${view}$`) })
    .click();
  await p.until<Tabs>('tabs', (t) => t.active === view, `the ${view} tab`);
}

/** "2.89s (96%)" → 2890 */
const durationMs = (cell: string): number => {
  const m = /^([\d.]+)(ns|µs|us|ms|s|min)/.exec(cell);
  if (!m) return NaN;
  return Number(m[1]) * ({ ns: 1e-6, µs: 1e-3, us: 1e-3, ms: 1, s: 1000, min: 60_000 } as Record<string, number>)[m[2]];
};
const sortedBy = (rows: Rows, column: number): boolean =>
  rows.length > 5 && rows.slice(1, 10).every((r, i) => durationMs(r[column]) <= durationMs(rows[i][column]));

/** The sandwich table sorted by total time (a click on its header), once it has rows. */
async function sandwichByTotal(p: FlamePage): Promise<string[]> {
  await p.until<Rows>('sandwichRows', (r) => r.length > 5, 'sandwich rows');
  await p.page.getByText('Total', { exact: true }).click();
  const rows = await p.until<Rows>('sandwichRows', (r) => sortedBy(r, 0) && !sortedBy(r, 1), 'rows by total time');
  return rows.map((r) => r[r.length - 1]);
}

test('flameHtml: strict CSP, a nonce on every script, every URL from the host, speedscope files that exist', () => {
  const o = {
    cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
    nonce: 'n0nce0123456789ABCDEFabcdef',
    speedscopeBase: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/speedscope',
    glueScript: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview/flame.js',
    title: 'Flame <graph> & "run"',
  };
  const html = flameHtml(o);
  const csp =
    "default-src 'none'; script-src 'nonce-n0nce0123456789ABCDEFabcdef' 'wasm-unsafe-eval'; " +
    "style-src https://file+.vscode-resource.vscode-cdn.net 'nonce-n0nce0123456789ABCDEFabcdef'; " +
    "font-src https://file+.vscode-resource.vscode-cdn.net; connect-src https://file+.vscode-resource.vscode-cdn.net; base-uri 'none'; form-action 'none'";
  assert.equal(flameCsp(o.cspSource, o.nonce), csp);
  assert.ok(
    html.includes(`<meta http-equiv="Content-Security-Policy" content="${csp.replaceAll("'", '&#39;')}">`),
    'CSP meta tag',
  );
  const cspAt = html.indexOf('Content-Security-Policy');
  assert.ok(
    cspAt < html.indexOf('<link') && cspAt < html.indexOf('<style') && cspAt < html.indexOf('<script'),
    'the CSP comes first',
  );
  assert.ok(html.includes('<title>Flame &lt;graph&gt; &amp; &quot;run&quot;</title>'));

  const scripts = [...html.matchAll(/<script\b([^>]*)>([^<]*)<\/script>/g)];
  assert.deepEqual(
    scripts.map((s) => s[1]),
    [
      ` nonce="${o.nonce}" src="${o.glueScript}"`,
      ` nonce="${o.nonce}" src="${o.speedscopeBase}/${SPEEDSCOPE_FILES.script}"`,
    ],
    'the glue, then speedscope, both with the nonce',
  );
  assert.ok(
    scripts.every((s) => s[2] === ''),
    'no inline script',
  );
  assert.match(
    html,
    /<script[^>]*speedscope-[^>]*><\/script>\n<\/body>/,
    "speedscope's bundle is the last element of <body>",
  );
  const styles = [...html.matchAll(/<style\b([^>]*)>/g)];
  assert.ok(
    styles.length > 0 && styles.every((s) => s[1].includes(`nonce="${o.nonce}"`)),
    'every <style> has the nonce',
  );
  assert.ok(html.includes(`<style nonce="${o.nonce}" data-aphrodite></style>`), "aphrodite's style element, provided");
  const urls = [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]);
  assert.ok(
    urls.length === 3 && urls.every((u) => u.startsWith(`${o.cspSource}/ext/dist/`)),
    `URLs: ${urls.join(' ')}`,
  );
  assert.ok(
    flameHtml({ ...o, speedscopeBase: `${o.speedscopeBase}/` }).includes(
      `"${o.speedscopeBase}/${SPEEDSCOPE_FILES.stylesheet}"`,
    ),
    'base with a trailing slash',
  );
  assert.throws(() => flameHtml({ ...o, nonce: '"><script>alert(1)</script>' }), /nonce/);

  // The hashed names are speedscope@1.25.0's: an upgrade must update SPEEDSCOPE_FILES (and recheck the CSP).
  const index = fs.readFileSync(path.join(DIST, 'speedscope', 'index.html'), 'utf8');
  for (const f of Object.values(SPEEDSCOPE_FILES)) {
    assert.ok(fs.existsSync(path.join(DIST, 'speedscope', f)), `dist/speedscope/${f}`);
    assert.ok(index.includes(`"${f}"`), `speedscope's index.html uses ${f}`);
  }
});

test('a real V8 profile: ready → loaded, Left Heavy first, the hot path by name, every view works', async () => {
  const p = await harness.open('vscode-dark');
  assert.deepEqual(await p.messages(1), [{ type: 'ready' }], 'the page says ready before the host sends anything');

  const { reply } = await p.load(LOGIN());
  assert.deepEqual(reply, { type: 'loaded' });
  assert.ok((await p.call<string>('text')).includes('login-api.cpuprofile'), 'the profile name is in the toolbar');
  assert.deepEqual(await p.call<Tabs>('tabs'), {
    labels: ['Time Order', 'Left Heavy', 'Sandwich'],
    active: 'Left Heavy',
  });
  assert.ok(
    await p.page.evaluate(() =>
      (globalThis as unknown as { document: { fonts: { check(f: string): boolean } } }).document.fonts.check(
        '12px "Source Code Pro"',
      ),
    ),
    "speedscope's font loaded",
  );

  // The flame graph is drawn on a canvas. speedscope's own search (Ctrl+F) finds the frame in it
  // and Enter selects it, which opens the detail panel (DOM) under the graph: name and file.
  await p.search('pbkdf2Sync', /pbkdf2Sync[\s\S]*node:internal\/crypto\/pbkdf2/);
  await p.screenshot('dark-left-heavy-pbkdf2Sync');
  await p.page.keyboard.press('Escape');

  await switchTo(p, 'Sandwich');
  const names = await sandwichByTotal(p);
  for (const n of ['checkPassword', 'pbkdf2Sync', 'handleRequest']) {
    assert.ok(
      names.slice(0, 30).includes(n),
      `${n} near the top of the sandwich by total time: ${names.slice(0, 30).join(', ')}`,
    );
  }
  // Selecting checkPassword shows its callers and callees as flame graphs (two more canvases).
  const canvases = (): Promise<number> => p.page.locator('canvas').count();
  const before = await canvases();
  await p.page.getByText('checkPassword', { exact: true }).click();
  await p.until<string>('text', (t) => /Callers|Callees/i.test(t), 'the callers and callees of checkPassword');
  assert.ok((await canvases()) >= before + 2, 'callers and callees drawn');
  await p.screenshot('dark-sandwich-checkPassword');

  await switchTo(p, 'Time Order');
  assert.equal((await p.call<Rows>('sandwichRows')).length, 0, 'the table is gone');
  await p.screenshot('dark-time-order');
  await switchTo(p, 'Left Heavy');
  // The keyboard shortcuts work too (3 = Sandwich, 2 = Left Heavy).
  await p.page.keyboard.press('3');
  await p.until<Tabs>('tabs', (t) => t.active === 'Sandwich', 'Sandwich by key 3');
  await p.page.keyboard.press('2');
  await p.until<Tabs>('tabs', (t) => t.active === 'Left Heavy', 'Left Heavy by key 2');
  await assertCleanRun(p);
  await p.page.context().close();
});

for (const theme of ['vscode-dark', 'vscode-light'] as const) {
  const name = theme === 'vscode-dark' ? 'dark' : 'light';
  test(`${theme}: speedscope in its ${name} colours, its text readable`, async () => {
    const p = await harness.open(theme);
    await p.messages(1);
    assert.deepEqual((await p.load(LOGIN())).reply, { type: 'loaded' });
    const scheme = theme === 'vscode-dark' ? 'Dark' : 'Light';
    assert.ok(
      await p.page.getByText(scheme, { exact: true }).isVisible(),
      `speedscope's colour scheme button says ${scheme}`,
    );
    await p.screenshot(`${name}-left-heavy`);
    for (const text of ['Time Order', 'Sandwich', 'login-api.cpuprofile', 'Import', scheme]) {
      const ratio = await p.call<number>('contrastOf', text);
      assert.ok(ratio >= 4.5, `toolbar "${text}": contrast ${ratio.toFixed(1)}`);
    }
    // The active tab is white-ish on speedscope's blue: 3.3:1 (dark), 3.9:1 (light). Not the 4.5
    // of body text, but above the 3:1 for UI components, and it is speedscope's own design.
    const active = await p.call<number>('contrastOf', 'Left Heavy');
    assert.ok(active >= 3, `active tab: contrast ${active.toFixed(1)}`);
    await switchTo(p, 'Sandwich');
    await sandwichByTotal(p);
    for (const text of ['checkPassword', 'pbkdf2Sync']) {
      const ratio = await p.call<number>('contrastOf', text);
      assert.ok(ratio >= 4.5, `sandwich row "${text}": contrast ${ratio.toFixed(1)}`);
    }
    await p.screenshot(`${name}-sandwich`);
    await assertCleanRun(p);
    await p.page.context().close();
  });
}

test("speedscope's toolbar: light in the light theme, no emoji glyphs, no overlap in a narrow panel", async () => {
  type Bar = {
    background: string;
    visibleEmoji: string[];
    boxes: Array<{ part: string; left: number; right: number; visible: boolean }>;
  };
  // A string, not a function: tsx would put its __name helper into a function the page runs.
  const read = (p: FlamePage): Promise<Bar> =>
    p.page.evaluate(`(() => {
    const bar = document.querySelector('.hl-toolbar');
    const visible = (el) => { const s = getComputedStyle(el); const r = el.getBoundingClientRect(); return s.display !== 'none' && s.visibility !== 'hidden' && r.width > 0; };
    const emoji = [...bar.querySelectorAll('span')].filter((s) => /\\p{Extended_Pictographic}/u.test(s.textContent || '') && visible(s)).map((s) => s.textContent);
    const boxes = [...bar.children].map((c) => ({ part: (c.className.match(/hl-toolbar-\\w+/) || ['?'])[0], left: c.getBoundingClientRect().left, right: c.getBoundingClientRect().left + Math.min(c.scrollWidth, c.getBoundingClientRect().width), visible: visible(c) }));
    // The profile's name: a bare text node, visible unless its colour is transparent.
    const title = [...bar.childNodes].find((n) => n.nodeType === 3 && n.textContent.trim());
    if (title) { const range = document.createRange(); range.selectNodeContents(title); const r = range.getBoundingClientRect(); boxes.push({ part: 'title', left: r.left, right: r.right, visible: !/rgba\\(.*, 0\\)|transparent/.test(getComputedStyle(bar).color) }); }
    return { background: getComputedStyle(bar).backgroundColor, visibleEmoji: emoji, boxes };
  })()`);
  const light = await harness.open('vscode-light');
  await light.messages(1);
  assert.deepEqual((await light.load(LOGIN())).reply, { type: 'loaded' });
  const wide = await read(light);
  const [r, g, b] = (wide.background.match(/\d+/g) ?? []).map(Number);
  assert.ok(r > 200 && g > 200 && b > 200, `the toolbar is light in the light theme (${wide.background})`);
  assert.deepEqual(wide.visibleEmoji, [], 'no emoji glyph is shown');
  await light.screenshot('light-toolbar');
  await light.page.context().close();
  for (const width of [700, 440]) {
    const narrow = await harness.open('vscode-dark', { viewport: { width, height: 600 } });
    await narrow.messages(1);
    assert.deepEqual((await narrow.load(LOGIN())).reply, { type: 'loaded' });
    const shown = (await read(narrow)).boxes.filter((x) => x.visible).sort((x, y) => x.left - y.left);
    for (let i = 1; i < shown.length; i++)
      assert.ok(
        shown[i].left >= shown[i - 1].right - 1,
        `${width}px: ${shown[i - 1].part} and ${shown[i].part} overlap: ${JSON.stringify(shown)}`,
      );
    await narrow.screenshot(`narrow-${width}-toolbar`);
    await narrow.page.context().close();
  }
});

test('a malformed profile gives an error; the page stays usable and loads the next one (no Uint8Array.fromBase64)', async () => {
  const p = await harness.open('vscode-dark', { oldChromium: true });
  assert.equal(
    await p.page.evaluate(() => typeof (Uint8Array as unknown as { fromBase64?: unknown }).fromBase64),
    'undefined',
  );
  await p.messages(1);
  const bad = await p.load(profileMessage('broken.cpuprofile', '{not json'));
  assert.equal(bad.reply.type, 'error');
  assert.match((bad.reply as { message: string }).message, /Unrecognized format/);
  assert.ok((await p.call<string>('text')).includes('Import'), "speedscope's toolbar is still there");

  // JSON that speedscope takes for a Chrome profile but cannot import: its "Something went wrong" view.
  const broken = await p.load(profileMessage('nodes.cpuprofile', '{"nodes":null,"samples":[],"timeDeltas":[]}'));
  assert.equal(broken.reply.type, 'error');
  assert.match((broken.reply as { message: string }).message, /could not read "nodes\.cpuprofile"/);
  await p.screenshot('error');

  const notBase64 = await p.load({ type: 'profile', name: 'x.cpuprofile', base64: 'not base64!' });
  assert.equal(notBase64.reply.type, 'error');
  assert.match((notBase64.reply as { message: string }).message, /base64/);

  assert.deepEqual((await p.load(LOGIN())).reply, { type: 'loaded' });
  assert.equal((await p.call<Tabs>('tabs')).active, 'Left Heavy');
  assert.deepEqual(
    p.received.map((m) => (m as { type: string }).type),
    ['ready', 'error', 'error', 'error', 'loaded'],
  );
  await p.screenshot('loaded-after-errors');
  await assertCleanRun(p);
  await p.page.context().close();
});

test('messages that are not ToFlameView are ignored; a new profile replaces the shown one', async () => {
  const p = await harness.open('vscode-dark');
  await p.messages(1);
  const junk = [
    null,
    'profile',
    42,
    [],
    { type: 'profile' },
    { type: 'profile', name: 'a', base64: 7 },
    { type: 'profile', name: 1, base64: '' },
    { type: 'loaded' },
    { type: 'ready' },
    { type: 'other' },
  ];
  for (const m of junk) await p.send(m);
  // Messages are handled in order, so an answer to the junk would come before this one's.
  assert.deepEqual((await p.load(LOGIN())).reply, { type: 'loaded' });
  assert.deepEqual(p.received, [{ type: 'ready' }, { type: 'loaded' }]);

  // A new run's profile replaces the one shown.
  const next = profileMessage('second-run.cpuprofile', fs.readFileSync(LOGIN_PROFILE));
  assert.deepEqual((await p.load(next)).reply, { type: 'loaded' });
  const text = await p.call<string>('text');
  assert.ok(
    text.includes('second-run.cpuprofile') && !text.includes('login-api.cpuprofile'),
    'the toolbar names the new profile',
  );
  await assertCleanRun(p);
  await p.page.context().close();
});

async function loadBig(mb: number, churn: boolean, t: { diagnostic: (s: string) => void }): Promise<void> {
  const json = bigCpuProfile(mb * 1e6, churn);
  const p = await harness.open('vscode-dark');
  await p.messages(1);
  // As the extension sends it: a URL the page fetches (the base64 form is covered by the tests above).
  const name = `big-${mb}mb.cpuprofile`;
  const { reply, ms } = await p.load({ type: 'profile', name, url: harness.serve(name, json) }, 800_000);
  assert.deepEqual(reply, { type: 'loaded' });
  t.diagnostic(
    `${(json.length / 1e6).toFixed(1)} MB .cpuprofile${churn ? ' (every sample a new stack)' : ''}: shown ${(ms / 1000).toFixed(1)} s after postMessage of its URL`,
  );
  await p.screenshot(`${mb}mb${churn ? '-churn' : ''}`);
  await assertCleanRun(p);
  await p.page.context().close();
}

test('a profile by URL (as the extension sends it) loads; a URL that fails gives an error', async () => {
  const p = await harness.open('vscode-dark');
  await p.messages(1);
  const url = harness.serve('login-api.cpuprofile', fs.readFileSync(LOGIN_PROFILE));
  assert.deepEqual((await p.load({ type: 'profile', name: 'login-api.cpuprofile', url })).reply, { type: 'loaded' });
  assert.ok((await p.call<string>('text')).includes('login-api.cpuprofile'), 'the profile name is in the toolbar');
  await assertCleanRun(p);
  // (the browser logs the failed request itself: no clean-run check after this one)
  const missing = (
    await p.load({
      type: 'profile',
      name: 'gone.cpuprofile',
      url: `${harness.assetOrigin}/served/none/gone.cpuprofile`,
    })
  ).reply;
  assert.equal(missing.type, 'error');
  assert.match((missing as { message: string }).message, /^Could not read the profile/);
  await p.page.context().close();
});

// How long it takes is printed, not asserted (a busy machine would fail it); bench/editor-latency.ts measures it.
test('a ~20 MB profile is shown', { timeout: 180_000 }, async (t) => {
  await loadBig(20, false, t);
});

const BIG = !process.env.HOTLINE_FLAME_BIG && 'set HOTLINE_FLAME_BIG=1';

test(
  'a ~20 MB profile where every sample is a new stack (worst case for speedscope) is shown',
  { skip: BIG, timeout: 300_000 },
  async (t) => {
    await loadBig(20, true, t);
  },
);

test('a ~100 MB profile is shown, not frozen forever', { skip: BIG, timeout: 900_000 }, async (t) => {
  await loadBig(100, false, t);
});
