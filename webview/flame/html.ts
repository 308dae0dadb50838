// The flame graph page: speedscope's own built app (dist/speedscope/, copied from the speedscope
// package by esbuild.mjs) plus our glue (dist/webview/flame.js). Built by the extension host; every
// URL is passed in (asWebviewUri), nothing is fetched from anywhere else.
//
// What speedscope 1.25.0's bundle needs under a strict CSP, found by running it (test/webview/flame.test.ts):
// - scripts: only its bundle and our glue, both with the nonce.
// - 'wasm-unsafe-eval': it compiles a WebAssembly C++/Rust demangler while it starts and again
//   while loading any profile with a function named `_Z…`/`__Z…`/`_R…`; without it that load never
//   finishes. This allows WebAssembly compilation only, not eval() or new Function().
// - styles: its stylesheet (cspSource), plus aphrodite's runtime rules. Aphrodite reuses an
//   existing `<style data-aphrodite>` and adds rules with CSSOM insertRule, which the CSP does not
//   govern; so the element is provided here with the nonce instead of allowing 'unsafe-inline'.
// - fonts: Source Code Pro from its stylesheet (cspSource).
// - connect-src cspSource: the glue fetches the profile itself from a webview resource URL (the
//   host's own files only). No img-src, worker-src: a Chrome .cpuprofile needs no image or worker.
// Known and harmless: its bundled protobufjs probes for Node's `require` with eval() inside
// try/catch, twice at start-up; the CSP blocks it and reports two `script-src` 'eval' violations.

/** speedscope's hashed file names in node_modules/speedscope/dist/release (speedscope@1.25.0). */
export const SPEEDSCOPE_FILES = {
  script: 'speedscope-Y2522XSH.js',
  stylesheet: 'speedscope-GHPHNKXC.css',
} as const;

export interface FlameHtmlOptions {
  /** webview.cspSource: where the extension's own files are served from. */
  cspSource: string;
  /** Fresh for every page load, from crypto. */
  nonce: string;
  /** URI of dist/speedscope/ (with or without the trailing slash). */
  speedscopeBase: string;
  /** URI of dist/webview/flame.js. */
  glueScript: string;
  title: string;
}

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/** The Content-Security-Policy of the flame graph page. */
export function flameCsp(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}' 'wasm-unsafe-eval'`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `connect-src ${cspSource}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export function flameHtml(o: FlameHtmlOptions): string {
  if (!/^[A-Za-z0-9+/=_-]{16,}$/.test(o.nonce))
    throw new Error('flameHtml: the nonce must be at least 16 base64/hex characters');
  const base = o.speedscopeBase.endsWith('/') ? o.speedscopeBase : `${o.speedscopeBase}/`;
  const attr = escapeHtml;
  const nonce = attr(o.nonce);
  // speedscope paints its whole window with its own theme (a WebGL canvas behind its views), and the
  // glue picks speedscope's dark or light scheme to match VS Code's theme, so its text always sits
  // on its own background. This style only undoes VS Code's default webview styles (body padding,
  // transparent background) that would shift speedscope's 100vw × 100vh layout or show through it.
  //
  // Order matters: the glue runs first (it must set speedscope's colour scheme and view before the
  // bundle reads them), and speedscope's bundle must be the last element of <body> when it runs,
  // because it renders itself in place of document.body.lastElementChild.
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(flameCsp(o.cspSource, o.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(o.title)}</title>
<link rel="stylesheet" href="${attr(base + SPEEDSCOPE_FILES.stylesheet)}">
<style nonce="${nonce}">
html, body { margin: 0; padding: 0; width: 100%; height: 100%; overflow: hidden; }
body { background: var(--vscode-editor-background, #ffffff); }
body.vscode-dark, body.vscode-high-contrast:not(.vscode-high-contrast-light) { background: var(--vscode-editor-background, #060606); }
/* speedscope's toolbar (parts marked by the glue): no emoji (boxes without an emoji font), the
   light themes' own colours instead of its black bar, and no overlap in a narrow panel. Aphrodite
   marks all its rules !important: ours win by specificity (two classes and more). */
.hl-toolbar .hl-emoji { display: none !important; }
body.vscode-light .hl-toolbar, body.vscode-high-contrast-light .hl-toolbar {
  background: var(--vscode-editorWidget-background, #f3f3f3) !important; color: var(--vscode-foreground, #333333) !important;
  border-bottom: 1px solid var(--vscode-widget-border, #d4d4d4);
}
body.vscode-light .hl-tab, body.vscode-high-contrast-light .hl-tab { background: transparent !important; color: var(--vscode-foreground, #333333) !important; }
body.vscode-light .hl-tab.hl-active, body.vscode-high-contrast-light .hl-tab.hl-active {
  background: var(--vscode-button-background, #005fb8) !important; color: var(--vscode-button-foreground, #ffffff) !important;
}
/* The profile's name is a bare text node between the tabs: in a narrow panel it is made
   transparent (the tabs keep their colour), and below that the Import/Export side goes. */
@media (max-width: 760px) {
  body .hl-toolbar.hl-toolbar { color: transparent !important; }
  body .hl-toolbar .hl-tab { color: var(--vscode-foreground, #cccccc) !important; }
}
@media (max-width: 470px) { body .hl-toolbar .hl-toolbar-right { display: none !important; } }
</style>
<style nonce="${nonce}" data-aphrodite></style>
</head>
<body>
<script nonce="${nonce}" src="${attr(o.glueScript)}"></script>
<script nonce="${nonce}" src="${attr(base + SPEEDSCOPE_FILES.script)}"></script>
</body>
</html>
`;
}
