// The report webview's HTML document. Used by the extension host (no DOM here). The page holds no
// report data: it loads one nonce'd script, which posts `ready` and receives the report by message.
//
// CSP: nothing but the script with this page's nonce runs; styles come from the nonce'd <style>
// below or from the extension (cspSource). The toolkit needs no 'unsafe-inline': its components
// style themselves with constructable stylesheets (adoptedStyleSheets) and set their design tokens
// through the CSSOM, which CSP's style-src does not govern. The one <style> element it makes is
// FAST's probe for :focus-visible (canUseFocusVisible in @microsoft/fast-web-utilities): it takes
// its nonce from <meta property="csp-nonce">. Without that meta the probe is blocked (a CSP
// violation) and the components fall back to :focus rings.
import { REPORT_CSS } from './styles.ts';

export interface ReportHtmlOptions {
  /** webview.cspSource */
  cspSource: string;
  /** A fresh random value per page load (base64). */
  nonce: string;
  /** URI of dist/webview/report.js (webview.asWebviewUri). */
  script: string;
  /** URI of an extra stylesheet, if any. */
  style?: string;
  title: string;
}

export function reportCsp(o: Pick<ReportHtmlOptions, 'cspSource' | 'nonce'>): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${o.nonce}'`,
    `style-src ${o.cspSource} 'nonce-${o.nonce}'`,
    `font-src ${o.cspSource}`,
    `img-src ${o.cspSource} data:`,
  ].join('; ');
}

export function reportHtml(o: ReportHtmlOptions): string {
  if (!/^[A-Za-z0-9+/=_-]{16,}$/.test(o.nonce))
    throw new Error('reportHtml: the nonce must be at least 16 base64 characters');
  const nonce = attr(o.nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${attr(reportCsp(o))}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta property="csp-nonce" content="${nonce}">
<title>${text(o.title)}</title>
<style nonce="${nonce}">${REPORT_CSS}</style>
${o.style ? `<link rel="stylesheet" href="${attr(o.style)}" nonce="${nonce}">\n` : ''}</head>
<body>
<main id="app"><p class="loading">Loading the report\u2026</p></main>
<script nonce="${nonce}" src="${attr(o.script)}"></script>
</body>
</html>
`;
}

function text(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function attr(s: string): string {
  return text(s).replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
