// tsc → dist/ (CommonJS, source maps beside the files).
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import * as path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '--outDir', path.join(here, 'dist'), '--rootDir', path.join(here, 'src'), '--module', 'commonjs', '--target', 'es2022',
  '--sourceMap', '--strict', '--types', 'node', '--skipLibCheck', path.join(here, 'src', 'server.ts'), path.join(here, 'src', 'hash.ts')], { stdio: 'inherit', cwd: here });
