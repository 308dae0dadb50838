// Figure 6, footprint: the bundles the extension ships (dist/, without speedscope's own assets
// and without source maps), the .vsix (`npm run package`), and activation time as VS Code
// measures it (read by editor-latency.ts from Developer: Show Running Extensions).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { packExtension } from '../test/e2e/hotline-setup.ts';
import { REPO, round, type Figure } from './common.ts';

function jsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'speedscope' ? [] : jsFiles(p);
    return e.name.endsWith('.js') ? [p] : [];
  });
}

export function benchFootprint(dir: string, activation: { ms?: number; text?: string }): Figure[] {
  const dist = path.join(REPO, 'dist');
  const files = jsFiles(dist).map((f) => ({ file: path.relative(REPO, f), kB: round(fs.statSync(f).size / 1024, 1) }));
  const bundleKB = files.reduce((a, f) => a + f.kB, 0);
  const vsixFile = path.join(dir, 'hotline.vsix');
  if (!fs.existsSync(vsixFile)) packExtension(dir);
  const vsixKB = fs.statSync(vsixFile).size / 1024;
  return [
    { id: 'bundle-size', name: 'Extension bundles (dist/*.js, no speedscope, no maps)', median: round(bundleKB / 1024, 2), unit: 'MiB', target: 'info (no target)', pass: null, samples: files },
    { id: 'vsix-size', name: '.vsix size (npm run package)', median: round(vsixKB / 1024, 2), unit: 'MiB', target: 'info (no target)', pass: null },
    {
      id: 'activation',
      name: 'Activation time (VS Code: Show Running Extensions)',
      median: activation.ms ?? null,
      unit: 'ms',
      target: 'info (no target)',
      pass: null,
      note: activation.text ? `VS Code shows "${activation.text}" (code loading + activate() until its promise settles)` : 'not read (the editor figure did not run or failed)',
    },
  ];
}
