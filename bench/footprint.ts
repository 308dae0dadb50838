// Figure 6, footprint: the bundles the extension ships (dist/ as the .vsix carries it: without
// the CLI, speedscope's own assets or source maps), the .vsix (`npm run package`), and activation time as VS Code
// measures it (read by editor-latency.ts from Developer: Show Running Extensions).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { packExtension } from '../test/e2e/hotline-setup.ts';
import { REPO, round, type Figure } from './common.ts';

/** The bundles the .vsix carries (.vscodeignore): not the CLI's, not speedscope's, no maps. */
function shippedBundles(dist: string): string[] {
  const web = path.join(dist, 'webview');
  const webFiles = fs.existsSync(web)
    ? fs
        .readdirSync(web)
        .filter((f) => f.endsWith('.js'))
        .map((f) => path.join(web, f))
    : [];
  return [
    ...['extension.js', 'server.js', 'load-runner.js', 'flame-merge-worker.js']
      .map((f) => path.join(dist, f))
      .filter((f) => fs.existsSync(f)),
    ...webFiles,
  ];
}

export function benchFootprint(dir: string, activation: { ms?: number; text?: string }): Figure[] {
  const dist = path.join(REPO, 'dist');
  const files = shippedBundles(dist).map((f) => ({
    file: path.relative(REPO, f),
    kB: round(fs.statSync(f).size / 1024, 1),
  }));
  const bundleKB = files.reduce((a, f) => a + f.kB, 0);
  const vsixFile = path.join(dir, 'hotline.vsix');
  if (!fs.existsSync(vsixFile)) packExtension(dir);
  const vsixKB = fs.statSync(vsixFile).size / 1024;
  return [
    {
      id: 'bundle-size',
      name: 'Extension bundles (shipped dist/*.js, no speedscope)',
      median: round(bundleKB / 1024, 2),
      unit: 'MiB',
      target: 'info (no target)',
      pass: null,
      samples: files,
    },
    {
      id: 'vsix-size',
      name: '.vsix size (npm run package)',
      median: round(vsixKB / 1024, 2),
      unit: 'MiB',
      target: 'info (no target)',
      pass: null,
    },
    {
      id: 'activation',
      name: 'Activation time (VS Code: Show Running Extensions)',
      median: activation.ms ?? null,
      unit: 'ms',
      target: 'info (no target)',
      pass: null,
      note: activation.text
        ? `VS Code shows "${activation.text}" (code loading + activate() until its promise settles)`
        : 'not read (the editor figure did not run or failed)',
    },
  ];
}
