// "Is this path inside that folder": one rule for every check that keeps Hotline to the app's
// folder. Lexical: both paths absolute and already resolved; callers facing untrusted paths
// resolve symlinks first (extension/workspace-paths.ts).
import * as path from 'node:path';

/** `file` is `folder` itself or anything below it. */
export function isWithin(folder: string, file: string): boolean {
  if (!path.isAbsolute(folder) || !path.isAbsolute(file)) return false;
  const rel = path.relative(folder, file);
  // `..x` is a name inside the folder; `..` and `../x` leave it; another drive is absolute.
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** `file` is strictly below `folder` (not the folder itself). */
export function isBelow(folder: string, file: string): boolean {
  return isWithin(folder, file) && path.relative(folder, file) !== '';
}
