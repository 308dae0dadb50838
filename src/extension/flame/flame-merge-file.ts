// The merged copy of a big .cpuprofile for the flame graph (flame-merge.ts), on disk: written
// into a cache folder of its own, never next to or over the profile, and named after the
// profile's path, size and modification time so a changed profile gets a fresh copy.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readProfileFile, writeFileAtomic } from '../../core/index.ts';
import { mergedSpeedscopeJson } from './flame-merge.ts';

/**
 * From this size on, the flame graph shows the merged copy: speedscope's own import of the
 * samples takes seconds per 10 MB of deep stacks (a 20 MB profile: ~12 s, 100 MB: over a minute).
 * Below it the file is shown as it is, byte for byte, with its samples in time order.
 */
export const MERGE_ABOVE_BYTES = 8_000_000;

/** The folder the merged copies live in (the only one of them a webview may read). */
export function mergeCacheDir(): string {
  return path.join(os.tmpdir(), 'hotline-flame-merged');
}

/**
 * Where the merged copy of `file` (as it is now: `stat`) is written: a folder of its own, so a
 * webview allowed to read it can read nothing else.
 */
export function mergedCopyPath(file: string, stat: { size: number; mtimeMs: number }): string {
  const key = createHash('sha256')
    .update(`${path.resolve(file)}\0${stat.size}\0${stat.mtimeMs}`)
    .digest('hex')
    .slice(0, 24);
  return path.join(mergeCacheDir(), key, `${path.basename(file)}.speedscope.json`);
}

/** Copies kept in the cache folder: the most recently written ones (a few MB each). */
const KEEP_COPIES = 8;

/**
 * Writes the merged copy of the .cpuprofile `file` to `out` unless it is there already, then
 * removes all but the newest KEEP_COPIES copies from out's cache folder (the parent of its folder).
 */
export function writeMergedCopy(file: string, out: string, name: string): void {
  if (fs.existsSync(out)) return;
  // Streamed (cpuprofile-stream.ts): a profile over ~512 MiB cannot be read as one string.
  const json = mergedSpeedscopeJson(readProfileFile(file), name);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  writeFileAtomic(out, json);
  pruneCopies(path.dirname(path.dirname(out)));
}

function pruneCopies(cacheDir: string): void {
  try {
    const folders = fs
      .readdirSync(cacheDir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && /^[0-9a-f]{24}$/.test(d.name))
      .map((d) => ({ dir: path.join(cacheDir, d.name), at: fs.statSync(path.join(cacheDir, d.name)).mtimeMs }))
      .sort((a, b) => b.at - a.at);
    for (const old of folders.slice(KEEP_COPIES)) fs.rmSync(old.dir, { recursive: true, force: true });
  } catch {
    // Only housekeeping: another window may be pruning the same folder.
  }
}
