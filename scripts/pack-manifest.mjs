// `npm pack` (and publish) around the CLI's tarball: `prepack` runs `node scripts/pack-manifest.mjs
// before`, `postpack` runs `... after`.
//   before: build the bundles as they ship (minified), then drop the `prepare` script from
//           package.json: it builds a checkout after `npm install`, but in the tarball, where
//           dist/ is already built, npm would list it as an install script the user must allow.
//           npm reads package.json again after `prepack`, so the tarball carries this copy.
//   after:  put the checkout's package.json back.
// The checkout's own copy waits in package.json.pack-backup meanwhile; a pack that died half-way
// leaves it there, and the next `before` restores it first.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as path from 'node:path';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const manifest = path.join(root, 'package.json');
const backup = path.join(root, 'package.json.pack-backup');

const restore = () => {
  if (existsSync(backup)) renameSync(backup, manifest);
};

switch (process.argv[2]) {
  case 'before': {
    restore();
    execFileSync(process.execPath, ['esbuild.mjs', '--production'], { cwd: root, stdio: 'inherit' });
    const text = readFileSync(manifest, 'utf8');
    const shipped = JSON.parse(text);
    delete shipped.scripts.prepare;
    writeFileSync(backup, text);
    writeFileSync(manifest, JSON.stringify(shipped, null, 2) + '\n');
    break;
  }
  case 'after':
    restore();
    break;
  default:
    throw new Error('usage: node scripts/pack-manifest.mjs before|after');
}
