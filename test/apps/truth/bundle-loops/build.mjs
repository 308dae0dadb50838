// esbuild bundle of pure JS, minified onto one line, with a linked source map → dist/server.js.
import * as esbuild from 'esbuild';
import * as path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
await esbuild.build({
  entryPoints: [path.join(here, 'src', 'server.js')], outfile: path.join(here, 'dist', 'server.js'), bundle: true, minify: true,
  format: 'cjs', platform: 'node', target: 'node20', sourcemap: 'linked', logLevel: 'error',
});
