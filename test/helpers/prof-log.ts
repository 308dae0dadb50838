// A real `node --prof` log, made at test time by the node running the tests (a log converts only
// with the node version that wrote it): test/fixtures/formats/prof-busy.js under --prof.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const FORMATS_DIR = path.resolve(__dirname, '..', 'fixtures', 'formats');

/** Runs the script with --prof in `dir`; returns the isolate-*.log path. */
export function makeProfLog(dir: string): string {
  const existing = fs.readdirSync(dir).find((f) => /^isolate-.*\.log$/.test(f));
  if (existing) return path.join(dir, existing);
  const script = path.join(dir, 'prof-busy.js');
  fs.copyFileSync(path.join(FORMATS_DIR, 'prof-busy.js'), script);
  const r = spawnSync(process.execPath, ['--prof', script], { cwd: dir, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const log = fs.readdirSync(dir).find((f) => /^isolate-.*\.log$/.test(f));
  assert.ok(log, 'node --prof wrote an isolate log');
  return path.join(dir, log);
}
