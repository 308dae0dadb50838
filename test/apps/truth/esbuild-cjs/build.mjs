// esbuild, one file at a time (no bundling) → dist/ as CommonJS, linked source maps.
import * as esbuild from 'esbuild';
import * as path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
await esbuild.build({
  entryPoints: [path.join(here, 'src', 'server.ts'), path.join(here, 'src', 'hash.ts')],
  outdir: path.join(here, 'dist'), format: 'cjs', platform: 'node', target: 'node20', sourcemap: 'linked', bundle: false, logLevel: 'error',
});
