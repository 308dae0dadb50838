// Renders media/icon.svg to media/icon.png (128×128: the marketplace takes no SVG icon) with
// Debian's Chromium through playwright-core, both already used by the webview tests.
// `node scripts/make-icon.mjs`; the PNG is committed, so only a changed icon needs this.
import { chromium } from 'playwright-core';
import { readFileSync } from 'node:fs';

const svg = readFileSync('media/icon.svg', 'utf8');
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const page = await browser.newPage({ viewport: { width: 128, height: 128 }, deviceScaleFactor: 1 });
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
  await page.locator('svg').screenshot({ path: 'media/icon.png', omitBackground: true });
} finally {
  await browser.close();
}
