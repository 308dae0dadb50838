// esbuild bundle, not minified, with a linked source map → dist/server.js: the modules are
// hoisted into one file, so the helper's two calls are plain calls two lines apart in it.
import * as esbuild from 'esbuild';
import * as path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
await esbuild.build({
  entryPoints: [path.join(here, 'src', 'server.ts')], outfile: path.join(here, 'dist', 'server.js'), bundle: true, minify: false,
  format: 'cjs', platform: 'node', target: 'node20', sourcemap: 'linked', logLevel: 'error',
});
