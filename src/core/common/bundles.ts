// Scripts that run apart from the code that starts them (the load runner, a child process; the
// capture sender, a worker thread) ship as bundles of their own in dist/ (esbuild.mjs).
import { existsSync } from 'node:fs';
import * as path from 'node:path';

/**
 * Where the bundle `file` (e.g. `load-runner.js`) is. Bundled (dist/cli.js, dist/extension.js, ...):
 * beside the running bundle, `dir/file`. From TypeScript sources (tsx, tests): `dir` is a folder
 * of src/, so walk up to the first directory with a package.json (the repo root) and use its
 * dist/`file`, which `node esbuild.mjs` builds (it may be stale against the sources). Either the
 * path, or why there is none.
 */
export function bundledScript(file: string, dir: string): { path: string } | { missing: string } {
  const beside = path.resolve(dir, file);
  if (existsSync(beside)) return { path: beside };
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (existsSync(path.join(d, 'package.json'))) {
      const built = path.join(d, 'dist', file);
      if (existsSync(built)) return { path: built };
      return { missing: `${built} is missing (run \`npm run build\`)` };
    }
    if (path.dirname(d) === d) break;
  }
  return { missing: `${file} not found beside ${dir} nor in a package's dist/` };
}
