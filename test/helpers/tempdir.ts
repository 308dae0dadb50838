// Temporary folders for unit tests that need files on disk (sources, maps, package.json, runs).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const created: string[] = [];

/** A fresh folder under the OS temp dir (real path: no symlinked /tmp surprises). */
export function makeTempDir(prefix = 'hotline-unit-'): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  created.push(dir);
  return dir;
}

/** Writes files given by relative path, creating folders; returns the absolute paths. */
export function writeFiles(root: string, files: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    out[rel] = file;
  }
  return out;
}

/** Deletes every folder makeTempDir made (call from `after`). */
export function removeTempDirs(): void {
  for (const dir of created.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}
