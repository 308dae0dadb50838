// What the Hotline e2e tests share: the extension packed as a .vsix, and a copy of the login
// example (with its node_modules) that a run may write into.
import { execFileSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT, cacheDir } from './harness.ts';
import type { Page } from 'playwright-core';
import * as dom from './vscode-dom.ts';

export const LOGIN_API = path.join(REPO_ROOT, 'examples/login-api');

/**
 * The extension packed as a .vsix in `outDir`. Packed once per state of its sources (a production
 * build and vsce: about 5 s) and kept in the e2e cache: a dozen test files pack the same thing.
 */
export function packExtension(outDir: string): string {
  const vsix = path.join(outDir, 'hotline.vsix');
  const cached = path.join(cacheDir(), 'vsix', `hotline-${packedSourcesHash()}.vsix`);
  if (!fs.existsSync(cached)) {
    fs.mkdirSync(path.dirname(cached), { recursive: true });
    // Packed beside, then renamed: a test file stopped mid-pack leaves no half .vsix behind.
    const partial = `${cached}.${process.pid}.partial`;
    execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts/package-vsix.mjs'), partial], {
      cwd: REPO_ROOT,
      stdio: 'pipe',
    });
    fs.renameSync(partial, cached);
  }
  fs.copyFileSync(cached, vsix);
  return vsix;
}

/** What package-vsix.mjs builds and packs from (the bundles take their dependencies from the lock). */
const PACKED_FROM = [
  'package.json',
  'package-lock.json',
  '.vscodeignore',
  'esbuild.mjs',
  'scripts/package-vsix.mjs',
  'docs/extension.md',
  'src',
  'webview',
  'media',
];

function packedSourcesHash(): string {
  const hash = crypto.createHash('sha256');
  const add = (rel: string): void => {
    const abs = path.join(REPO_ROOT, rel);
    if (!fs.existsSync(abs)) return;
    if (fs.statSync(abs).isDirectory()) {
      for (const name of fs.readdirSync(abs).sort()) add(path.join(rel, name));
      return;
    }
    hash.update(`${rel}\0`).update(fs.readFileSync(abs)).update('\0');
  };
  for (const rel of PACKED_FROM) add(rel);
  return hash.digest('hex').slice(0, 16);
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
