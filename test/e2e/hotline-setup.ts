// What the Hotline e2e tests share: the extension packed as a .vsix, and a copy of the login
// example (with its node_modules) that a run may write into.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './harness.ts';
import type { Page } from 'playwright-core';
import * as dom from './vscode-dom.ts';

export const LOGIN_API = path.join(REPO_ROOT, 'examples/login-api');

export function packExtension(outDir: string): string {
  const vsix = path.join(outDir, 'hotline.vsix');
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts/package-vsix.mjs'), vsix], {
    cwd: REPO_ROOT,
    stdio: 'pipe',
  });
  return vsix;
}

export function loginApiCopy(dir: string): string {
  if (!fs.existsSync(path.join(LOGIN_API, 'node_modules', 'express'))) {
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--prefix', LOGIN_API], { stdio: 'pipe' });
  }
  const ws = path.join(dir, 'login-api');
  fs.cpSync(LOGIN_API, ws, { recursive: true, filter: (src) => !src.includes(`${path.sep}.hotline`) });
  return ws;
}

/** User settings that make "Profile Under Load" run the login example without asking, briefly. */
export const LOGIN_SETTINGS = {
  'hotline.entry': 'server.js',
  'hotline.url': '/login',
  'hotline.method': 'POST',
  'hotline.headers': { 'content-type': 'application/json' },
  'hotline.body': JSON.stringify({ email: 'alice@example.com', password: 'correct horse battery staple' }),
  'hotline.connections': 20,
  'hotline.duration': 4,
  'hotline.warmup': 1,
};

/**
 * The verify loop's first step in the login example: Profile Under Load from the palette, the
 * report on its pbkdf2Sync line, that run set as the baseline. Returns its id.
 */
export async function profileAsBaseline(page: Page, runsDir: string): Promise<string> {
  await dom.runCommand(page, 'Hotline: Profile Under Load');
  const report = await dom.webviewFrame(page, { title: 'Hotline Report', timeout: 120_000 });
  await report.getByText('server.js:35').first().waitFor({ state: 'visible', timeout: 120_000 });
  const [baseId] = fs.readdirSync(runsDir);
  await dom.dismissNotifications(page);
  // The run's id is in the row's description (its label leads with req/s and the hot line).
  await dom.runCommandAndPick(page, 'Hotline: Set as Baseline', baseId);
  await dom.waitForNotification(page, new RegExp(`run ${baseId} is the baseline`), 15_000);
  return baseId;
}

/** Waits until `count` runs in `runsDir` have their report.json on disk. */
export async function runsOnDisk(runsDir: string, count: number): Promise<void> {
  await dom.waitUntil(
    `${count} runs on disk`,
    async () =>
      fs.readdirSync(runsDir).filter((d) => fs.existsSync(path.join(runsDir, d, 'report.json'))).length === count,
    120_000,
  );
}
