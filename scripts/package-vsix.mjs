// `node scripts/package-vsix.mjs [OUT]` (part of `npm run package`): build, then pack hotline.vsix
// with @vscode/vsce (a devDependency; it packs offline). Everything the extension needs is
// bundled in dist/, so the package carries no node_modules (see .vscodeignore).
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';

const vsce = createRequire(import.meta.url).resolve('@vscode/vsce/vsce');
execFileSync(process.execPath, ['esbuild.mjs', '--production'], { stdio: 'inherit' });
const out = process.argv[2] || 'hotline.vsix';
// The marketplace page is docs/extension.md (the repository README is for the CLI and the
// checkout): its links and screenshots are relative to docs/, and vsce joins relative links to
// the base URLs, which it would otherwise take at the repository's root.
const repository = JSON.parse(readFileSync('package.json', 'utf8')).repository.url.replace(/\.git$/, '');
execFileSync(
  process.execPath,
  [
    vsce,
    'package',
    '--no-dependencies',
    '--readme-path',
    'docs/extension.md',
    '--baseContentUrl',
    `${repository}/blob/HEAD/docs`,
    '--baseImagesUrl',
    `${repository}/raw/HEAD/docs`,
    '-o',
    out,
  ],
  { stdio: 'inherit' },
);
process.stdout.write(`${out}: ${(statSync(out).size / 1024).toFixed(0)} KiB\n`);
