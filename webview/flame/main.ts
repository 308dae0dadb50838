// Glue between the Hotline extension and speedscope's own built app, which has no embedding API.
// Runs before speedscope's bundle (see html.ts), posts `ready` once speedscope is mounted, and hands
// each `profile` message to speedscope as a dropped file, then posts `loaded` or `error`.
//
// Why a synthetic file drop: it is speedscope's main, documented way in ("drag and drop a profile
// file onto this window"), it works whether speedscope shows its landing page or another profile,
// it takes the bytes as a File (no 100+ MB string, no size limit of its own) with the name shown in
// its toolbar, and it needs nothing from the CSP. The alternatives fail in a webview:
// - `#localProfilePath=` (what speedscope's CLI uses): speedscope only defines
//   `window.speedscope.loadFileFromBase64` after injecting `<script src="file:///…">`, which the
//   CSP blocks (a violation on every load), and only once per page.
// - `#profileURL=`: speedscope refuses it unless the page is http(s) (a webview is
//   vscode-webview:), and it needs connect-src for a blob: URL.
// - paste / the landing page's file input: a giant string, or gone once a profile is shown.
// It relies on speedscope's drop handler sitting on its root element, which the tests exercise.
// Its outcome is read from what speedscope does (checked by test/webview/flame.test.ts):
// on success it sets document.title to "<name> - speedscope" and then drops its loading bar; an
// unrecognized or empty profile gets alert(), which a VS Code webview silently blocks, so alert is
// replaced here; a parser exception shows its "Something went wrong" view.
import type { FromFlameView, ToFlameView } from '../../src/protocol.ts';

declare function acquireVsCodeApi(): { postMessage(message: FromFlameView): void };

const vscode = acquireVsCodeApi();
const post = (message: FromFlameView): void => vscode.postMessage(message);

/** Validates a message from the extension; anything else is undefined (and dropped). */
function parseToFlameView(v: unknown): ToFlameView | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const m = v as Record<string, unknown>;
  if (m.type !== 'profile' || typeof m.name !== 'string') return undefined;
  if (typeof m.url === 'string') return { type: 'profile', name: m.name, url: m.url };
  if (typeof m.base64 === 'string') return { type: 'profile', name: m.name, base64: m.base64 };
  return undefined;
}

// ---- before speedscope's bundle runs: its colour scheme and first view ----------------------------
// VS Code marks the theme on <body> before any script runs. speedscope reads its scheme from this
// localStorage key when it starts (its 🎨 button writes the same key); `#view=` is its hash
// parameter for the view to open each profile in: Left Heavy, the readable one for a server.
const theme = document.body.classList;
const light = theme.contains('vscode-light') || theme.contains('vscode-high-contrast-light');
if (light || theme.contains('vscode-dark') || theme.contains('vscode-high-contrast')) {
  localStorage.setItem('speedscope-color-scheme', light ? 'LIGHT' : 'DARK');
}
try {
  history.replaceState(history.state, '', '#view=left-heavy');
} catch (e) {
  console.warn('Hotline: speedscope will open profiles in its Time Order view:', e);
}

let alertMessage: string | undefined;
window.alert = (message?: unknown): void => {
  alertMessage = String(message);
};

// ---- speedscope's DOM (src/views/application.tsx): root > [GL canvas div, toolbar, content] -----
const glCanvas = (): HTMLCanvasElement | null => document.querySelector('canvas');
const content = (): Element | undefined => glCanvas()?.parentElement?.parentElement?.children[2];
const showsLoadingBar = (c: Element): boolean =>
  c.childElementCount === 1 && c.firstElementChild?.childElementCount === 0;
const showsError = (c: Element): boolean => (c.textContent ?? '').includes('Something went wrong');

function base64ToParts(base64: string): Uint8Array<ArrayBuffer>[] {
  const fromBase64 = (Uint8Array as unknown as { fromBase64?: (s: string) => Uint8Array<ArrayBuffer> }).fromBase64;
  if (fromBase64) return [fromBase64(base64)]; // Chromium 140+ (newer than VS Code's Electron may be)
  const CHUNK = 4 << 20; // a multiple of 4 characters, so each chunk decodes on its own
  const parts: Uint8Array<ArrayBuffer>[] = [];
  for (let i = 0; i < base64.length; i += CHUNK) {
    const bin = atob(base64.slice(i, i + CHUNK)); // throws on anything that is not base64
    const bytes = new Uint8Array(bin.length);
    for (let k = 0; k < bin.length; k++) bytes[k] = bin.charCodeAt(k);
    parts.push(bytes);
  }
  return parts;
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * The profile as a File. From a URL (a webview resource the host allowed): fetched as a Blob,
 * which the browser keeps off the JS heap, with no copy through postMessage and no base64
 * (a 100 MB profile was 133 MB of base64 through two message hops, then decoded here).
 */
async function profileFile(m: ToFlameView): Promise<File | FromFlameView> {
  const name = m.name || 'profile.cpuprofile';
  if ('url' in m) {
    try {
      const response = await fetch(m.url);
      if (!response.ok) return { type: 'error', message: `Could not read the profile (HTTP ${response.status})` };
      return new File([await response.blob()], name, { type: 'application/json' });
    } catch (e) {
      return { type: 'error', message: `Could not read the profile: ${errorText(e)}` };
    }
  }
  try {
    return new File(base64ToParts(m.base64), name, { type: 'application/json' });
  } catch (e) {
    return { type: 'error', message: `The profile is not valid base64: ${errorText(e)}` };
  }
}

async function load(m: ToFlameView): Promise<FromFlameView> {
  const read = await profileFile(m);
  if (!(read instanceof File)) return read;
  const file = read;
  const target = glCanvas();
  if (!target) return { type: 'error', message: 'speedscope did not start' };

  let rejection: string | undefined;
  const onRejection = (e: PromiseRejectionEvent): void => {
    rejection = errorText(e.reason);
  };
  window.addEventListener('unhandledrejection', onRejection);
  alertMessage = undefined;
  document.title = ''; // speedscope sets "<name> - speedscope" only once this file has parsed
  const data = new DataTransfer();
  data.items.add(file);
  target.dispatchEvent(new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer: data }));

  // speedscope imports on this thread: while it works, this loop's timer fires late. Only the time
  // it leaves the thread idle counts towards giving up, so a slow import of a huge profile is never
  // cut short, and one that silently stopped is reported.
  let idle = 0;
  let last = Date.now();
  try {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      idle += Math.min(Date.now() - last, 100);
      last = Date.now();
      const c = content();
      if (alertMessage !== undefined) return { type: 'error', message: `speedscope: ${alertMessage}` };
      if (rejection !== undefined) return { type: 'error', message: `speedscope failed: ${rejection}` };
      if (c && showsError(c))
        return { type: 'error', message: `speedscope could not read "${file.name}" (its console says why)` };
      if (c && document.title.endsWith(' - speedscope') && !showsLoadingBar(c)) return { type: 'loaded' };
      if (idle > 30_000) return { type: 'error', message: `speedscope stopped before showing "${file.name}"` };
    }
  } finally {
    window.removeEventListener('unhandledrejection', onRejection);
  }
}

// One load at a time; a profile that arrives meanwhile replaces any other still waiting.
let waiting: ToFlameView | undefined;
let busy = false;
async function pump(): Promise<void> {
  if (busy) return;
  busy = true;
  while (waiting) {
    const next = waiting;
    waiting = undefined;
    post(await load(next));
  }
  busy = false;
}

window.addEventListener('message', (event: MessageEvent) => {
  const m = parseToFlameView(event.data);
  if (!m) return;
  waiting = m;
  void pump();
});

// ---- speedscope's toolbar, made to fit VS Code ------------------------------------------------
// Its toolbar is black in its light scheme too, its three parts overlap in a narrow panel, and
// its tabs start with emoji that render as boxes where no emoji font is installed. Its styles
// have generated class names, so the parts are found by place and marked with our classes
// (styled in html.ts); a MutationObserver marks what it re-renders.
const PICTOGRAPH = /\p{Extended_Pictographic}/u;

function mark(el: Element, cls: string): void {
  if (!el.classList.contains(cls)) el.classList.add(cls);
}

function markToolbar(): void {
  const bar = glCanvas()?.parentElement?.parentElement?.children[1];
  if (!bar) return;
  mark(bar, 'hl-toolbar');
  const parts = [...bar.children] as HTMLElement[];
  for (const part of parts) {
    const style = getComputedStyle(part);
    const side = style.position !== 'absolute' ? 'center' : style.left === '0px' ? 'left' : 'right';
    mark(part, `hl-toolbar-${side}`);
    if (side === 'center') continue;
    const tabs = [...part.children];
    for (const tab of tabs) mark(tab, 'hl-tab');
    // The active view's tab is the one styled unlike the others.
    if (side === 'left' && tabs.length > 2) {
      for (const tab of tabs) {
        const alike = tabs.filter((t) => t.className === tab.className).length;
        if (alike === 1) mark(tab, 'hl-active');
        else if (tab.classList.contains('hl-active')) tab.classList.remove('hl-active');
      }
    }
  }
  for (const span of bar.querySelectorAll('span'))
    if (PICTOGRAPH.test(span.textContent ?? '') && span.childElementCount === 0) mark(span, 'hl-emoji');
}

// speedscope's bundle runs right after this script and mounts synchronously; its canvas is ready
// for a drop after its first re-render, which a timer after DOMContentLoaded waits for.
document.addEventListener('DOMContentLoaded', () =>
  setTimeout(() => {
    const bar = glCanvas()?.parentElement?.parentElement?.children[1];
    if (bar) {
      markToolbar();
      new MutationObserver(markToolbar).observe(bar, {
        subtree: true,
        childList: true,
        attributes: true,
        attributeFilter: ['class'],
      });
    }
    post(glCanvas() ? { type: 'ready' } : { type: 'error', message: 'speedscope did not start' });
  }, 0),
);
