// One build for every bundle: the CLI, the load runner (a child process), and later the
// extension, the language server and the webviews. `--watch` rebuilds on change.
import * as esbuild from 'esbuild';
import { existsSync } from 'node:fs';

const watch = process.argv.includes('--watch');

const nodeBundle = {
  bundle: true,
  platform: 'node',
  target: 'node18',
  format: 'cjs',
  sourcemap: true,
  logLevel: 'warning',
  // ws tries these optional native speed-ups inside try/catch; they are not installed.
  external: ['bufferutil', 'utf-8-validate', 'vscode'],
};

const entries = [
  { entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js' },
  { entryPoints: ['src/core/load-runner.ts'], outfile: 'dist/load-runner.js' },
  { entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js' },
  { entryPoints: ['src/server/server.ts'], outfile: 'dist/server.js' },
].filter((e) => existsSync(e.entryPoints[0]));

const contexts = await Promise.all(entries.map((e) => esbuild.context({ ...nodeBundle, ...e })));
if (watch) {
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all(contexts.map((c) => c.rebuild()));
  await Promise.all(contexts.map((c) => c.dispose()));
}
