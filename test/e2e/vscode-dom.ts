// Every VS Code DOM selector and UI gesture the e2e suite uses lives in this file.
// VS Code's DOM is not a public API: when a VS Code/code-server update breaks a test, fix it here.
// Checked against VS Code 1.139 (code-server 4.139.1).
//
// Everything waits through Playwright's auto-waiting locators (or polls a condition); nothing
// sleeps for a fixed time.
import type { FrameLocator, Locator, Page } from 'playwright-core';

export const SEL = {
  workbench: '.monaco-workbench',
  activityBar: '.part.activitybar',
  sideBar: '.part.sidebar',
  sideBarTitle: '.part.sidebar .composite.title .title-label',
  statusBar: '.part.statusbar',
  explorerRows: '.part.sidebar .explorer-folders-view .monaco-list-row',
  quickInput: '.quick-input-widget',
  quickInputBox: '.quick-input-widget input',
  quickInputRow: '.quick-input-widget .quick-input-list .monaco-list-row',
  rowLabel: '.label-name',
  rowDescription: '.label-description',
  tab: '.tabs-container .tab',
  activeGroup: '.editor-group-container.active',
  activeEditorLines: '.editor-group-container.active .editor-instance .monaco-editor .view-lines',
  editorLines: '.editor-instance .monaco-editor .view-lines',
  codeLens: '.monaco-editor .codelens-decoration',
  codeLensItem: '.monaco-editor .codelens-decoration > a, .monaco-editor .codelens-decoration > span',
  activeCodeLensItem:
    '.editor-group-container.active .editor-instance .monaco-editor .codelens-decoration > a, .editor-group-container.active .editor-instance .monaco-editor .codelens-decoration > span',
  /** The gutter's line numbers of the active editor (each at the height of its line). */
  activeLineNumbers:
    '.editor-group-container.active .editor-instance .monaco-editor .margin-view-overlays .line-numbers',
  webviewOuter: 'iframe.webview.ready',
  webviewInner: 'iframe#active-frame',
  toast: '.notifications-toasts .notification-toast',
  toastMessage: '.notification-list-item-message',
  viewPane: '.part.sidebar .pane',
  paneHeader: '.pane-header',
  paneRow: '.pane-body .monaco-list-row',
  editorGroup: '.editor-group-container',
  actionWidget: '.action-widget',
  actionWidgetRow: '.action-widget .monaco-list-row.action',
  hover: '.monaco-hover:not(.hidden)',
  problemsRows: '.markers-panel .monaco-list-row',
  /** The Refactor Preview panel (VS Code's bulk edit pane). */
  refactorPreview: '.bulk-edit-panel, .refactor-preview',
} as const;

// Browser globals, used only inside page.evaluate() callbacks (the project compiles without the
// DOM lib; these declarations are local to this module).
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the page's document, untyped without the DOM lib
declare const document: any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an element of the page, as above
declare function getComputedStyle(el: any): { visibility: string; display: string };

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const exactly = (s: string) => new RegExp(`^\\s*${escapeRe(s)}\\s*$`);

/** Polls `fn` until it returns a value other than undefined/false, or throws after `timeout` ms. */
export async function waitUntil<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeout = 30_000,
  interval = 100,
): Promise<T> {
  const deadline = Date.now() + timeout;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v as T;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeout} ms waiting for ${what}${last ? `: ${last}` : ''}`);
    await new Promise((r) => setTimeout(r, interval));
  }
}

/**
 * How long each attempt of a retried gesture waits for its result: 3 s, then twice as long each
 * time, so that on a slow machine an attempt gets long enough instead of being cut short forever.
 */
function growingWaits(first = 3000): () => number {
  let next = first;
  return () => {
    const wait = next;
    next *= 2;
    return wait;
  };
}

// ------------------------------------------------------------------------------------------
// Workbench

/** Waits for the workbench: the main parts and the explorer of the opened folder. */
export async function waitForWorkbench(page: Page, timeout = 90_000): Promise<void> {
  await page.locator(SEL.workbench).waitFor({ state: 'visible', timeout });
  await page.locator(SEL.activityBar).waitFor({ state: 'visible', timeout });
  await page.locator(SEL.statusBar).waitFor({ state: 'visible', timeout });
}

/** Moves keyboard focus back to the workbench (out of a webview iframe or an input). */
export async function focusWorkbench(page: Page): Promise<void> {
  if (await page.locator(SEL.quickInput).isVisible()) await page.keyboard.press('Escape');
  await page.evaluate(() => {
    const active = document.activeElement;
    if (active && active.tagName === 'IFRAME') active.blur();
  });
}

// ------------------------------------------------------------------------------------------
// Quick input: command palette and quick open

async function openQuickInput(page: Page, key: string, text: string): Promise<void> {
  await focusWorkbench(page);
  await page.keyboard.press(key);
  const box = page.locator(SEL.quickInputBox);
  await box.waitFor({ state: 'visible' });
  await box.fill(text);
}

async function closeQuickInput(page: Page): Promise<void> {
  if (await page.locator(SEL.quickInput).isVisible()) {
    await page.keyboard.press('Escape');
    await page.locator(SEL.quickInput).waitFor({ state: 'hidden' });
  }
}

/**
 * Accepts `row`: Enter when it is the focused row, else a click on it. Done when the row is gone:
 * the quick input closed, or (a step of a multi-step question) the next step reused the widget,
 * which then never hides.
 */
async function acceptRow(page: Page, row: Locator): Promise<void> {
  if (((await row.getAttribute('class')) ?? '').split(/\s+/).includes('focused')) await page.keyboard.press('Enter');
  else await row.click();
  await row.waitFor({ state: 'hidden' });
}

/** Accepts `row` once it is shown within `wait` ms; else closes the quick input and says false. */
async function acceptOnceShown(page: Page, row: Locator, wait: number): Promise<boolean> {
  try {
    await row.waitFor({ state: 'visible', timeout: wait });
  } catch {
    await closeQuickInput(page);
    return false;
  }
  await acceptRow(page, row);
  return true;
}

/**
 * Runs a command by its palette title ("Category: Title", e.g. "Smoke: Hello"): F1, `>title`,
 * then the row whose label is exactly that title. Commands contributed by an extension appear in
 * the palette only once the extension host has registered them, and an open palette never
 * refreshes, so the palette is reopened until the row shows up (or `timeout`).
 */
export async function runCommand(page: Page, title: string, opts: { timeout?: number } = {}): Promise<void> {
  const timeout = opts.timeout ?? 60_000;
  const attemptWait = growingWaits();
  await waitUntil(
    `command "${title}" in the palette`,
    async () => {
      await openQuickInput(page, 'F1', `>${title}`);
      const row = page
        .locator(SEL.quickInputRow)
        .filter({ has: page.locator(SEL.rowLabel, { hasText: exactly(title) }) })
        .first();
      return acceptOnceShown(page, row, attemptWait());
    },
    timeout,
    0,
  );
}

/**
 * Runs a command that is safe to run twice (a view or editor command) until `done` says its
 * effect shows. The palette closes when a webview that finishes loading takes the focus, and a
 * palette closed that way before its Enter looks the same as one that ran the command: the effect
 * is what tells them apart. Each retry is printed in the test's output.
 */
export async function runCommandUntil(
  page: Page,
  title: string,
  done: (wait: number) => Promise<boolean>,
  timeout = 60_000,
): Promise<void> {
  const attemptWait = growingWaits();
  let attempts = 0;
  await waitUntil(
    `command "${title}" to take effect`,
    async () => {
      if (attempts++ > 0) console.log(`# "${title}" showed no effect: run once more`);
      await runCommand(page, title, { timeout });
      return done(attemptWait());
    },
    timeout,
    0,
  );
}

/** Whether `locator` reaches `state` within `wait` ms. */
async function shows(locator: Locator, wait: number, state: 'visible' | 'detached' = 'visible'): Promise<boolean> {
  return locator.waitFor({ state, timeout: wait }).then(
    () => true,
    () => false,
  );
}

/**
 * Runs a palette command that opens a quick pick, then picks the first row whose text anywhere
 * (label, description or detail) has `text`. A quick pick without ignoreFocusOut closes when
 * something else takes the focus (a report webview that finishes loading, a toast), leaving its
 * rows hidden in the DOM; the command is then run again until its row is shown (or `timeout`).
 */
export async function runCommandAndPick(
  page: Page,
  title: string,
  text: string | RegExp,
  timeout = 60_000,
): Promise<void> {
  const attemptWait = growingWaits();
  await waitUntil(
    `"${title}" offering a row with ${String(text)}`,
    async () => {
      await runCommand(page, title);
      return acceptOnceShown(page, page.locator(SEL.quickInputRow).filter({ hasText: text }).first(), attemptWait());
    },
    timeout,
    0,
  );
}

/** In a quick pick an extension opened (showQuickPick), accepts the row whose label matches. */
export async function pickQuickItem(page: Page, label: string | RegExp, timeout = 30_000): Promise<void> {
  const row = page
    .locator(SEL.quickInputRow)
    .filter({ has: page.locator(SEL.rowLabel, { hasText: label }) })
    .first();
  await row.waitFor({ state: 'visible', timeout });
  await acceptRow(page, row);
}

/**
 * Opens a workspace file with Ctrl+P quick open and waits until it is the active editor.
 * `relPath` is relative to the workspace folder ("src/app.js"); `textEditor: false` for files
 * that open in a custom editor.
 */
export async function openFile(
  page: Page,
  relPath: string,
  opts: { timeout?: number; textEditor?: boolean } = {},
): Promise<void> {
  const timeout = opts.timeout ?? 60_000;
  const parts = relPath.split(/[\\/]/).filter(Boolean);
  const base = parts[parts.length - 1]!;
  const dir = parts.slice(0, -1).join('/');
  const attemptWait = growingWaits();
  const opened = tabByTitle(page, base, `${SEL.activeGroup} ${SEL.tab}.active`);
  await waitUntil(
    `"${relPath}" opened from quick open`,
    async () => {
      await openQuickInput(page, 'Control+P', relPath);
      let row = page.locator(SEL.quickInputRow).filter({ has: page.locator(SEL.rowLabel, { hasText: exactly(base) }) });
      if (dir) row = row.filter({ has: page.locator(SEL.rowDescription, { hasText: dir }) });
      const wait = attemptWait();
      if (!(await acceptOnceShown(page, row.first(), wait))) return false;
      // Quick open also closes when a webview takes the focus, before its Enter opened anything.
      if (await shows(opened, wait)) return true;
      console.log(`# "${relPath}" was not the active editor ${wait} ms after its quick open: opened once more`);
      return false;
    },
    timeout,
    0,
  );
  // A custom editor (a webview) has no text lines to wait for.
  if (opts.textEditor !== false) await page.locator(SEL.activeEditorLines).waitFor({ state: 'visible', timeout });
}

// ------------------------------------------------------------------------------------------
// Editors

export function activeTab(page: Page): Locator {
  return page.locator(`${SEL.activeGroup} ${SEL.tab}.active`);
}

/**
 * The editor tab titled `title` ("a.js", "Smoke Webview"). A tab's accessible name (aria-label)
 * is its title, followed by ", ..." for states such as modified.
 */
export function tabByTitle(page: Page, title: string, scope: string = SEL.tab): Locator {
  return page
    .locator(scope)
    .and(page.getByRole('tab', { name: new RegExp(`^${escapeRe(title)}(,|$)`) }))
    .first();
}

/** Title of the active editor tab ("app.js", "Smoke Webview"). */
export async function activeEditorTitle(page: Page): Promise<string> {
  return ((await activeTab(page).getAttribute('aria-label')) ?? '').split(',')[0]!.trim();
}

/** Editor tabs (all groups), by title. */
export async function editorTabTitles(page: Page): Promise<string[]> {
  return page
    .locator(SEL.tab)
    .evaluateAll((tabs) => tabs.map((t) => (t.getAttribute('aria-label') ?? '').split(',')[0]!.trim()));
}

/** Activates the editor tab whose title is `title`. */
export async function activateTab(page: Page, title: string): Promise<void> {
  await tabByTitle(page, title).click();
  await tabByTitle(page, title, `${SEL.tab}.active`).waitFor();
}

/**
 * Text of the active text editor as rendered (only the lines in view: Monaco renders the
 * viewport). Lines are ordered by their position, non-breaking spaces turned into spaces.
 */
export async function editorText(page: Page): Promise<string> {
  const lines = page.locator(SEL.activeEditorLines);
  await lines.waitFor({ state: 'visible' });
  return lines.evaluate((el) =>
    [...el.querySelectorAll('.view-line')]
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an element of the page, as above
      .map((l: any) => ({ top: parseFloat(l.style.top || '0'), text: (l.textContent ?? '').replace(/\u00a0/g, ' ') }))
      .sort((a, b) => a.top - b.top)
      .map((l) => l.text)
      .join('\n'),
  );
}

/** Waits until the active editor's rendered text matches `re`; returns the text. */
export async function waitForEditorText(page: Page, re: RegExp, timeout = 30_000): Promise<string> {
  return waitUntil(
    `editor text ${re}`,
    async () => {
      const t = await editorText(page);
      return re.test(t) ? t : undefined;
    },
    timeout,
  );
}

/** Closes every editor (View: Close All Editors via the palette). */
export async function closeAllEditors(page: Page): Promise<void> {
  await runCommandUntil(page, 'View: Close All Editors', (wait) =>
    shows(page.locator(SEL.tab).first(), wait, 'detached'),
  );
}

// ------------------------------------------------------------------------------------------
// CodeLens

/** Every CodeLens item (one per command; several lenses on a line are separate items). */
export function codeLenses(page: Page): Locator {
  return page.locator(SEL.codeLensItem);
}

/** Texts of the CodeLens items currently rendered, top to bottom. */
export async function codeLensTexts(page: Page): Promise<string[]> {
  return (await codeLenses(page).allTextContents()).map((s) => s.replace(/\u00a0/g, ' ').trim());
}

/** Waits for a CodeLens item whose text matches (`string`: exact text; RegExp: a match). */
export async function waitForCodeLens(page: Page, text: string | RegExp, timeout = 30_000): Promise<Locator> {
  const lens = codeLenses(page)
    .filter({ hasText: typeof text === 'string' ? exactly(text) : text })
    .first();
  await lens.waitFor({ state: 'visible', timeout });
  return lens;
}

/**
 * Where the active editor's CodeLens items stand, read off the screen: a lens is a view zone right
 * above its line, so its line is the first one whose top is at or below the lens's bottom; the
 * number is the gutter's at that height. Only lines and lenses rendered now (scroll first).
 */
export async function codeLensLines(page: Page): Promise<Array<{ lens: string; line: number; text: string }>> {
  // One snapshot of the page (Monaco re-renders lenses and lines: nth() locators would shift). No
  // named helpers inside: tsx would wrap them in its __name(), which the page does not have.
  return page.evaluate(
    (sel) =>
      [...document.querySelectorAll(sel.lenses)]
        .map((lens) => {
          const bottom = lens.getBoundingClientRect().bottom;
          const below = [...document.querySelectorAll(sel.lines)]
            .map((l) => ({ y: l.getBoundingClientRect().top, text: String(l.textContent ?? '') }))
            .filter((l) => l.y >= bottom - 2)
            .sort((a, b) => a.y - b.y)[0];
          const number = below
            ? [...document.querySelectorAll(sel.numbers)].find(
                (n) => Math.abs(n.getBoundingClientRect().top - below.y) < 3,
              )
            : undefined;
          return {
            lens: String(lens.textContent ?? '')
              .replace(/\u00a0/g, ' ')
              .trim(),
            line: number ? Number(String(number.textContent).trim()) : NaN,
            text: below ? below.text.replace(/\u00a0/g, ' ') : '',
          };
        })
        .filter((x) => x.text !== ''),
    { lenses: SEL.activeCodeLensItem, lines: `${SEL.activeEditorLines} .view-line`, numbers: SEL.activeLineNumbers },
  );
}

/** Clicks the CodeLens item whose text matches (which runs its command). */
/**
 * Clicks a CodeLens. With `until` (what the click should bring about, given a timeout in ms), a
 * click that did nothing is tried again: Monaco re-renders its lenses when the provider answers
 * again, and a click that lands on a lens being replaced is lost (a CI run lost one so).
 */
export async function clickCodeLens(
  page: Page,
  text: string | RegExp,
  opts: { timeout?: number; until?: (timeoutMs: number) => Promise<unknown> } = {},
): Promise<void> {
  const timeout = opts.timeout ?? 30_000;
  const tries = opts.until ? 3 : 1;
  for (let i = 1; ; i++) {
    const lens = await waitForCodeLens(page, text, timeout);
    await lens.click();
    if (!opts.until) return;
    try {
      await opts.until(i < tries ? 10_000 : timeout);
      return;
    } catch (err) {
      if (i >= tries) throw err;
    }
  }
}

/**
 * In the visible tab of a Hotline report: how many tables, and the header cells of their first
 * three columns that are not wholly inside the webview's width (issue 38: the columns a user needs
 * first are always in view).
 */
export async function reportTablesInView(
  report: FrameLocator,
  opts: { tableExpected: boolean },
): Promise<{ grids: number; width: number; outside: string[] }> {
  // The tab's view drawn: its table, or (a tab that may have nothing to list) its words.
  const view = report.locator('vscode-panel-view:not([hidden])').first();
  await (opts.tableExpected ? view.locator('vscode-data-grid').first() : view).waitFor({
    state: 'visible',
    timeout: 15_000,
  });
  return report.locator('body').evaluate((body) => {
    const width = body.ownerDocument.defaultView?.innerWidth ?? 0;
    const all = [...body.querySelectorAll('vscode-panel-view:not([hidden]) vscode-data-grid')];
    const outside = all.flatMap((g) =>
      [...g.querySelectorAll('vscode-data-grid-cell[cell-type="columnheader"]')]
        .filter((c) => Number(c.getAttribute('grid-column')) <= 3)
        .filter((c) => {
          const r = c.getBoundingClientRect();
          return r.left < -1 || r.right > width + 1;
        })
        .map((c) => `${g.getAttribute('aria-label') ?? '?'}: ${c.textContent ?? ''}`),
    );
    return { grids: all.length, width, outside };
  });
}

/** The themes every page is checked in: VS Code's default light and dark, and both High Contrast. */
export const FOUR_THEMES = [
  { name: 'Light Modern', kind: 'vs', file: 'light-modern' },
  { name: 'Dark Modern', kind: 'vs-dark', file: 'dark-modern' },
  { name: 'Dark High Contrast', kind: 'hc-black', file: 'hc-dark' },
  { name: 'Light High Contrast', kind: 'hc-light', file: 'hc-light' },
] as const;

// ------------------------------------------------------------------------------------------
// Webviews
//
// A webview is an `iframe.webview.ready` (VS Code's host page) holding `iframe#active-frame`
// (the extension's HTML). The outer iframes all live in one overlay layer, positioned over the
// editor or view they belong to, so a webview is picked by where it is on screen.

/**
 * The content frame of a webview.
 * - no `title`: the only visible webview (Playwright throws on use if several are visible).
 * - `title` of an editor tab (a WebviewPanel): activates that tab, returns the webview over the
 *   active editor.
 * - `title` of a view (a WebviewView in the side bar): expands that view, returns the webview
 *   over its body.
 */
export async function webviewFrame(page: Page, opts: { title?: string; timeout?: number } = {}): Promise<FrameLocator> {
  const timeout = opts.timeout ?? 30_000;
  const outer = page.locator(SEL.webviewOuter);
  if (!opts.title) {
    const visible = outer.filter({ visible: true });
    await visible.first().waitFor({ state: 'visible', timeout });
    return visible.contentFrame().locator(SEL.webviewInner).contentFrame();
  }
  const title = opts.title;
  let container: Locator;
  // The panel or view may still be opening: wait for either a tab or a view with that title.
  await tabByTitle(page, title).or(viewPane(page, title)).first().waitFor({ state: 'visible', timeout });
  if ((await tabByTitle(page, title).count()) > 0) {
    await activateTab(page, title);
    container = page.locator(`${SEL.activeGroup} .editor-container`);
  } else {
    const pane = viewPane(page, title);
    await expandView(page, title);
    container = pane.locator('.pane-body');
  }
  let index: number;
  try {
    index = await waitUntil(
      `webview "${title}"`,
      async () => {
        const box = await container.boundingBox();
        if (!box) return undefined;
        const i = await outer.evaluateAll((frames, b) => {
          return frames.findIndex((f) => {
            const r = f.getBoundingClientRect();
            const style = getComputedStyle(f.parentElement ?? f);
            if (r.width === 0 || r.height === 0 || style.visibility === 'hidden' || style.display === 'none')
              return false;
            const cx = r.x + r.width / 2;
            const cy = r.y + r.height / 2;
            return cx >= b.x && cx <= b.x + b.width && cy >= b.y && cy <= b.y + b.height;
          });
        }, box);
        return i >= 0 ? i : undefined;
      },
      timeout,
    );
  } catch (err) {
    // Say what was there: a webview that never became ready, or one that is not over the editor.
    (err as Error).message += `\n${await describeWebviews(page, container)}`;
    throw err;
  }
  return outer.nth(index).contentFrame().locator(SEL.webviewInner).contentFrame();
}

/**
 * Opens a workspace file that shows in a custom editor (a .cpuprofile, a .pb.gz) and returns its
 * webview's content frame. When no ready webview is over the editor after half the time (VS Code
 * opened it as text, or its webview host page never loaded: both VS Code's, not the extension's),
 * the editor is closed and the file opened once more, and the test's output says so.
 */
export async function openCustomEditor(page: Page, relPath: string, timeout = 60_000): Promise<FrameLocator> {
  const title = relPath.split(/[\\/]/).pop()!;
  await openFile(page, relPath, { textEditor: false, timeout });
  try {
    return await webviewFrame(page, { title, timeout: timeout / 2 });
  } catch (err) {
    console.log(`# ${(err as Error).message.replace(/\n/g, ' ')}: the editor closed and "${relPath}" opened once more`);
    await runCommand(page, 'View: Close Editor');
    await openFile(page, relPath, { textEditor: false, timeout });
    return webviewFrame(page, { title, timeout: timeout / 2 });
  }
}

/** Every webview host frame on the page, its state and place, and the box a webview was expected in. */
async function describeWebviews(page: Page, container: Locator): Promise<string> {
  const box = await container.boundingBox({ timeout: 1000 }).catch(() => null);
  const frames = await page
    .locator('iframe.webview')
    .evaluateAll((fs) =>
      fs.map((f) => {
        const r = f.getBoundingClientRect();
        const style = getComputedStyle(f.parentElement ?? f);
        return `${f.className} at ${Math.round(r.x)},${Math.round(r.y)} ${Math.round(r.width)}×${Math.round(r.height)} ${style.visibility}/${style.display}`;
      }),
    )
    .catch((e: unknown) => [`(could not read: ${String(e)})`]);
  const where = box
    ? `${Math.round(box.x)},${Math.round(box.y)} ${Math.round(box.width)}×${Math.round(box.height)}`
    : 'none';
  // A file opened before the extensions were registered shows in the text editor instead ("binary").
  const shown = ((await container.textContent({ timeout: 1000 }).catch(() => '')) ?? '').trim().slice(0, 160);
  return `expected over the box ${where} (it shows "${shown}"); webview frames: ${frames.length ? frames.join('; ') : 'none'}`;
}

// ------------------------------------------------------------------------------------------
// Notifications

export function notifications(page: Page): Locator {
  return page.locator(SEL.toast);
}

/** Messages of the notification toasts on screen. */
export async function notificationTexts(page: Page): Promise<string[]> {
  return (await page.locator(`${SEL.toast} ${SEL.toastMessage}`).allTextContents()).map((s) => s.trim());
}

/** Waits for a toast whose message matches `re`; returns its message. */
export async function waitForNotification(page: Page, re: RegExp, timeout = 30_000): Promise<string> {
  const msg = page.locator(`${SEL.toast} ${SEL.toastMessage}`).filter({ hasText: re }).first();
  await msg.waitFor({ state: 'visible', timeout });
  return ((await msg.textContent()) ?? '').trim();
}

/** Clicks the button `label` of the toast whose message matches `re`. */
export async function clickNotificationButton(page: Page, re: RegExp, label: string): Promise<void> {
  const toast = notifications(page)
    .filter({ has: page.locator(SEL.toastMessage, { hasText: re }) })
    .first();
  await toast.getByRole('button', { name: label, exact: true }).click();
}

/** Clears every notification and waits until no toast is left. */
export async function dismissNotifications(page: Page): Promise<void> {
  if ((await notifications(page).count()) === 0) return;
  await runCommand(page, 'Notifications: Clear All Notifications');
  await notifications(page).first().waitFor({ state: 'detached' });
}

// ------------------------------------------------------------------------------------------
// Activity bar, side bar and views

/** The activity bar entry of a view container, by its title ("Explorer", "Hotline"). */
export function activityBarItem(page: Page, title: string): Locator {
  return page
    .locator(`${SEL.activityBar} .action-item`)
    .filter({ has: page.locator(`a.action-label[aria-label^="${title.replace(/"/g, '\\"')}"]`) })
    .first();
}

/** Opens the view container `title` in the side bar (a click on an active one would close it). */
export async function openViewContainer(page: Page, title: string, timeout = 30_000): Promise<void> {
  const item = activityBarItem(page, title);
  await item.waitFor({ state: 'visible', timeout });
  const sideBarVisible = await page.locator(SEL.sideBar).isVisible();
  const checked = ((await item.getAttribute('class')) ?? '').split(/\s+/).includes('checked');
  if (!(checked && sideBarVisible)) await item.locator('a.action-label').click();
  await page
    .locator(SEL.sideBarTitle)
    .filter({ hasText: new RegExp(escapeRe(title), 'i') })
    .waitFor({ state: 'visible', timeout });
}

/** Title shown at the top of the side bar. */
export async function sideBarTitle(page: Page): Promise<string> {
  return ((await page.locator(SEL.sideBarTitle).textContent()) ?? '').trim();
}

/** A view (pane) of the side bar, by the title in its header. */
export function viewPane(page: Page, title: string): Locator {
  return page
    .locator(SEL.viewPane)
    .filter({
      has: page.locator(`${SEL.paneHeader} h3.title`, { hasText: new RegExp(`^\\s*${escapeRe(title)}\\s*$`, 'i') }),
    })
    .first();
}

/** Expands the view `title` if it is collapsed. */
export async function expandView(page: Page, title: string): Promise<void> {
  const header = viewPane(page, title).locator(SEL.paneHeader);
  await header.waitFor({ state: 'visible' });
  if ((await header.getAttribute('aria-expanded')) === 'false') {
    await header.click();
    await viewPane(page, title).locator(`${SEL.paneHeader}[aria-expanded="true"]`).waitFor();
  }
}

/** Labels of the rows (tree items) in view `title`, top to bottom. */
export async function viewItems(page: Page, title: string): Promise<string[]> {
  const pane = viewPane(page, title);
  return (await pane.locator(`${SEL.paneRow} ${SEL.rowLabel}`).allTextContents()).map((s) => s.trim());
}

/** Waits for a row in view `title` whose label matches. */
export async function waitForViewItem(
  page: Page,
  title: string,
  label: string | RegExp,
  timeout = 30_000,
): Promise<Locator> {
  const row = viewPane(page, title)
    .locator(SEL.paneRow)
    .filter({ has: page.locator(SEL.rowLabel, { hasText: typeof label === 'string' ? exactly(label) : label }) })
    .first();
  await row.waitFor({ state: 'visible', timeout });
  return row;
}

// ------------------------------------------------------------------------------------------
// Editor groups, quick fixes, hovers, Problems, Refactor Preview, colour themes

/** The title of the active tab of each editor group, left to right (what is on screen). */
export async function activeTabPerGroup(page: Page): Promise<string[]> {
  return page
    .locator(SEL.editorGroup)
    .evaluateAll((groups) =>
      groups
        .map((g) =>
          ((g.querySelector('.tabs-container .tab.active')?.getAttribute('aria-label') ?? '') as string)
            .split(',')[0]!
            .trim(),
        )
        .filter(Boolean),
    );
}

/**
 * What is on screen, in one line, for a failed test whose screenshot may be gone: the focused
 * element, the quick input, each group's tabs (the active one starred), the side bar and panel
 * titles and the Problems rows.
 */
export async function describeWorkbench(page: Page): Promise<string> {
  return page
    .evaluate((sel) => {
      // No named functions in here: tsx's keepNames would wrap them in a helper the page lacks.
      const a = document.activeElement;
      const focus = a
        ? `${a.tagName.toLowerCase()}.${[...a.classList].join('.')} "${(a.getAttribute('aria-label') ?? '').slice(0, 60)}"`
        : 'none';
      const quick = document.querySelector(sel.quickInput);
      const quickShown = quick && getComputedStyle(quick).display !== 'none';
      const input = document.querySelector(sel.quickInputBox) as { value?: string } | null;
      const groups = [...document.querySelectorAll(sel.editorGroup)].map((g) => {
        const tabs = [...g.querySelectorAll(sel.tab)].map(
          (t) => `${t.classList.contains('active') ? '*' : ''}${(t.getAttribute('aria-label') ?? '').split(',')[0]}`,
        );
        return `${g.classList.contains('active') ? 'active ' : ''}[${tabs.join(', ')}]`;
      });
      return [
        `focus: ${focus}`,
        `quick input: ${quickShown ? `"${input?.value ?? ''}"` : 'closed'}`,
        `groups: ${groups.join(' ') || 'none'}`,
        ...[
          ['side bar', sel.sideBarTitle],
          ['panel', '.part.panel .composite.title .action-item.checked'],
        ].map(
          ([name, css]) =>
            `${name}: ${(document.querySelector(css)?.textContent ?? '').replace(/\s+/g, ' ').trim() || 'none'}`,
        ),
        `problems rows: ${document.querySelectorAll(sel.problemsRows).length}`,
      ].join(' · ');
    }, SEL)
    .catch((e: unknown) => `(the workbench could not be read: ${String(e)})`);
}

/** Puts the cursor on a 1-based line (and column) of the active editor (Go to Line). */
export async function goToLine(page: Page, line: number, column?: number): Promise<void> {
  await openQuickInput(page, 'Control+G', column === undefined ? `:${line}` : `:${line}:${column}`);
  await page.keyboard.press('Enter');
  await page.locator(SEL.quickInput).waitFor({ state: 'hidden' });
}

/** Opens the quick-fix menu at the cursor (Ctrl+.) and returns its entries' texts. */
export async function openQuickFixes(page: Page, timeout = 30_000): Promise<string[]> {
  await page.keyboard.press('Control+.');
  await page.locator(SEL.actionWidgetRow).first().waitFor({ state: 'visible', timeout });
  return (await page.locator(SEL.actionWidgetRow).allTextContents()).map((s) => s.replace(/\u00a0/g, ' ').trim());
}

/** Chooses the open quick-fix menu's entry whose text matches; `preview`: Ctrl+Enter (Refactor Preview) instead. */
export async function chooseQuickFix(page: Page, text: RegExp, opts: { preview?: boolean } = {}): Promise<void> {
  const row = page.locator(SEL.actionWidgetRow).filter({ hasText: text }).first();
  if (opts.preview) {
    await row.hover(); // the hovered entry is the focused one
    await waitUntil(
      `"${text}" focused in the quick-fix menu`,
      async () => text.test((await page.locator(`${SEL.actionWidgetRow}.focused`).first().textContent()) ?? ''),
      10_000,
    );
    await page.keyboard.press('Control+Enter');
  } else await row.click();
  await page.locator(SEL.actionWidgetRow).first().waitFor({ state: 'hidden' });
}

/**
 * Hovers the token `word` on the rendered line that contains `line`; returns the hover's text once
 * it matches `until` and has stopped changing (providers answer one by one; "Loading..." first).
 */
export async function hoverText(
  page: Page,
  line: string,
  word: string,
  until: RegExp,
  timeout = 30_000,
): Promise<string> {
  const row = page.locator(`${SEL.activeEditorLines} .view-line`).filter({ hasText: line }).first();
  await row
    .locator('span span')
    .filter({ hasText: exactly(word) })
    .first()
    .hover();
  const hover = page.locator(SEL.hover).first();
  await hover.waitFor({ state: 'visible', timeout });
  // The hover fills in as its providers answer: wait until it stops changing.
  let last = '';
  return waitUntil(
    'the hover to settle',
    async () => {
      const now = (await hover.textContent()) ?? '';
      const settled = until.test(now) && !/Loading\.\.\./.test(now) && now === last;
      last = now;
      return settled ? now.replace(/\u00a0/g, ' ') : undefined;
    },
    timeout,
    300,
  );
}

/** Texts of the Problems panel's rows (it is opened with Ctrl+Shift+M if needed). */
export async function problems(page: Page, timeout = 30_000): Promise<string[]> {
  const rows = page.locator(SEL.problemsRows).first();
  if (!(await rows.isVisible()))
    await runCommandUntil(page, 'View: Focus Problems (Errors, Warnings, Infos)', (wait) => shows(rows, wait), timeout);
  return (await page.locator(SEL.problemsRows).allTextContents()).map((s) => s.replace(/\u00a0/g, ' ').trim());
}

/** Waits for the Refactor Preview (a workspace edit that asks for confirmation) and applies it. */
export async function applyRefactorPreview(page: Page, timeout = 30_000): Promise<void> {
  // Found by its Apply button: the pane's own classes vary between builds.
  const apply = page.getByRole('button', { name: 'Apply', exact: true });
  await apply.waitFor({ state: 'visible', timeout });
  await apply.click();
  await apply.waitFor({ state: 'hidden', timeout });
}

/** The workbench's theme kind, from its class: vs, vs-dark, hc-black or hc-light. */
export async function themeKind(page: Page): Promise<string> {
  const cls = (await page.locator(SEL.workbench).getAttribute('class')) ?? '';
  return ['hc-light', 'hc-black', 'vs-dark', 'vs'].find((k) => cls.split(/\s+/).includes(k)) ?? '';
}

/** Switches the colour theme through "Preferences: Color Theme" and waits until it applies. */
export async function setColorTheme(
  page: Page,
  name: string,
  kind: 'vs' | 'vs-dark' | 'hc-black' | 'hc-light',
): Promise<void> {
  // The command opens a second quick pick in the same widget: runCommand() would wait for it to close.
  await openQuickInput(page, 'F1', '>Preferences: Color Theme');
  await page
    .locator(SEL.quickInputRow)
    .filter({ has: page.locator(SEL.rowLabel, { hasText: exactly('Preferences: Color Theme') }) })
    .first()
    .click();
  await waitUntil(
    'the colour theme picker',
    async () =>
      /Color Theme/i.test((await page.locator(SEL.quickInputBox).getAttribute('placeholder')) ?? '') ||
      ((await page.locator(SEL.quickInputBox).getAttribute('aria-label')) ?? '').includes('Color Theme'),
    15_000,
  );
  await page.locator(SEL.quickInputBox).fill(name);
  // Older builds prefix the built-in themes with "Default ".
  await pickQuickItem(page, new RegExp(`^\\s*(Default )?${escapeRe(name)}\\s*$`));
  await waitUntil(`theme ${name}`, async () => (await themeKind(page)) === kind, 30_000);
}
