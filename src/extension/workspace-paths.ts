// Is a path a file of one of the workspace folders? The check behind every "open this file"
// request from a webview or a lens: no message may reach anything else on disk. Plain Node, no
// `vscode`, so it is tested on its own (test/unit/extension/workspace-paths.test.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isBelow } from '../core/index.ts';

/**
 * True when `file` is an absolute path to something strictly inside one of `folders` (the folder
 * itself is not a file). Refused: relative paths, any `..` segment (even one that would resolve
 * back inside), NUL bytes, and paths that leave the folders through a symlink: the existing part
 * of the path is resolved with realpath, the folders too, before they are compared.
 */
export function isInWorkspace(file: string, folders: readonly string[]): boolean {
  if (typeof file !== 'string' || file === '' || file.includes('\0')) return false;
  if (!path.isAbsolute(file)) return false;
  if (file.split(/[\\/]/).includes('..')) return false;
  const real = realPath(path.resolve(file));
  if (real === undefined) return false;
  return folders.some((folder) => {
    const root = path.isAbsolute(folder) ? realPath(path.resolve(folder)) : undefined;
    if (root === undefined) return false;
    return isBelow(root, real);
  });
}

/**
 * The path with every symlink of its existing part resolved: the deepest ancestor that exists
 * goes through realpath and the rest (not on disk yet) is appended as it is. Undefined when the
 * path cannot be followed (a symlink loop, a folder we may not search): refused, not guessed.
 */
function realPath(p: string): string | undefined {
  const rest: string[] = [];
  for (let at = p; ; at = path.dirname(at)) {
    try {
      return path.join(fs.realpathSync.native(at), ...rest);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return undefined;
    }
    if (path.dirname(at) === at) return undefined;
    rest.unshift(path.basename(at));
  }
}
