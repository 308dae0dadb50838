// `npm run package`: build, then pack hotline.vsix with @vscode/vsce (a devDependency; it packs
// offline). Everything the extension needs is bundled in dist/, so the package carries no
// node_modules (see .vscodeignore).
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';

const vsce = createRequire(import.meta.url).resolve('@vscode/vsce/vsce');
execFileSync(process.execPath, ['esbuild.mjs', '--production'], { stdio: 'inherit' });
const out = process.argv[2] || 'hotline.vsix';
// The repository README has screenshots by relative path; the extension's page has its own text.
execFileSync(
  process.execPath,
  [
    vsce,
    'package',
    '--no-dependencies',
    '--allow-missing-repository',
    '--skip-license',
    '--readme-path',
    'docs/extension.md',
    '-o',
    out,
  ],
  { stdio: 'inherit' },
);
process.stdout.write(`${out}: ${(statSync(out).size / 1024).toFixed(0)} KiB\n`);
