// What the .vsix carries (`vsce ls`, with the options scripts/package-vsix.mjs packs with): the
// bundles the extension runs, speedscope's page, the files package.json names, and nothing else —
// no sources, tests, source maps, node_modules or the CLI. Reads dist/: after `npm run build`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
// @ts-expect-error esbuild.mjs is plain JavaScript without declarations
import { entries } from '../../esbuild.mjs';

const ROOT = path.resolve(__dirname, '../..');

interface Manifest {
  main: string;
  icon: string;
  contributes: {
    viewsContainers: Record<string, Array<{ icon: string }>>;
    views: Record<string, Array<{ icon?: string }>>;
    walkthroughs: Array<{ steps: Array<{ media: { markdown?: string; image?: string } }> }>;
  };
}

/** Every file the manifest points at, relative to the root. */
function namedByManifest(m: Manifest): string[] {
  const c = m.contributes;
  return [
    m.main,
    m.icon,
    ...Object.values(c.viewsContainers).flatMap((list) => list.map((v) => v.icon)),
    ...Object.values(c.views).flatMap((list) => list.flatMap((v) => (v.icon ? [v.icon] : []))),
    ...c.walkthroughs.flatMap((w) =>
      w.steps.flatMap((s) => [s.media.markdown, s.media.image].filter((f) => f != null)),
    ),
  ].map((f) => path.posix.normalize(f));
}

test('the .vsix lists exactly the files the extension runs', () => {
  assert.ok(fs.existsSync(path.join(ROOT, 'dist/extension.js')), 'dist/ is built (npm run build)');
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Manifest;
  const vsce = createRequire(__filename).resolve('@vscode/vsce/vsce');
  const listed = execFileSync(
    process.execPath,
    [vsce, 'ls', '--no-dependencies', '--readme-path', 'docs/extension.md'],
    { cwd: ROOT, encoding: 'utf8' },
  )
    .split('\n')
    .filter(Boolean)
    .sort();

  const bundles = (entries as Array<{ outfile: string }>).map((e) => e.outfile).filter((f) => f !== 'dist/cli.js');
  const speedscope = fs.readdirSync(path.join(ROOT, 'dist/speedscope')).map((f) => `dist/speedscope/${f}`);
  assert.ok(speedscope.includes('dist/speedscope/index.html'), "speedscope's page is built");
  const expected = [
    ...new Set([
      'package.json',
      'LICENSE',
      'CHANGELOG.md',
      'docs/extension.md',
      // report.json's JSON Schema (scripts/report-schema.mjs), for whoever reads the runs' reports.
      'dist/report.schema.json',
      ...namedByManifest(manifest),
      ...bundles,
      ...speedscope,
    ]),
  ].sort();
  assert.deepEqual(listed, expected);
});
