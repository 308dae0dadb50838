// What the Hotline e2e tests share: the extension packed as a .vsix, and a copy of the login
// example (with its node_modules) that a run may write into.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './harness.ts';

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
