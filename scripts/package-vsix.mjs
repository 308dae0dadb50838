// `npm run package`: build, then pack hotline.vsix with @vscode/vsce (installed by
// scripts/e2e-setup.sh into the e2e cache; vsce packs offline). Everything the extension needs is
// bundled in dist/, so the package carries no node_modules (see .vscodeignore).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const cache = process.env.HOTLINE_E2E_CACHE || join(homedir(), '.cache', 'hotline-e2e');
const envFile = join(cache, 'env.json');
if (!existsSync(envFile)) execFileSync('bash', ['scripts/e2e-setup.sh'], { stdio: 'inherit' });
const { vsce } = JSON.parse(readFileSync(envFile, 'utf8'));
execFileSync(process.execPath, ['esbuild.mjs', '--production'], { stdio: 'inherit' });
const out = process.argv[2] || 'hotline.vsix';
// The repository README has screenshots by relative path; the extension's page has its own text.
execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--readme-path', 'docs/extension.md', '-o', out], { stdio: 'inherit' });
process.stdout.write(`${out}: ${(statSync(out).size / 1024).toFixed(0)} KiB\n`);
