// Recorded runs (test/fixtures/runs/, made by scripts/record-fixtures.mjs): real `hotline profile`
// runs captured once, so the page and server tests read fixed data. A recording is written out as a
// run folder in a temp dir, with $REPO back to this checkout's root and its .gz files unpacked.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as zlib from 'node:zlib';
import type { ReportV1 } from '../../src/core/report/schema.ts';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const RECORDED_RUNS = path.join(REPO_ROOT, 'test', 'fixtures', 'runs');

/**
 * noop-base and noop-fix: the e2e's fix that does not help (pbkdf2Sync moved into a setImmediate
 * callback, test/e2e/verify-no-gain.e2e.test.ts), its two run folders analyzed anew (report.json, sources.json).
 */
export type Recording =
  | 'login-sync'
  | 'login-async'
  | 'stall-timeline'
  | 'worker-app'
  | 'heap-app'
  | 'noop-base'
  | 'noop-fix'
  | 'tsx-base'
  | 'tsx-fix';

const written: string[] = [];

/** A file of the recording; `file` may be named without the .gz the recorder gives files over 100 KB. */
function contents(name: Recording, file: string): string {
  const dir = path.join(RECORDED_RUNS, name);
  if (!fs.existsSync(path.join(dir, file)) && fs.existsSync(path.join(dir, `${file}.gz`))) file = `${file}.gz`;
  const data = fs.readFileSync(path.join(dir, file));
  const text = (file.endsWith('.gz') ? zlib.gunzipSync(data) : data).toString('utf8');
  // JSON.stringify: the root goes into JSON strings (a backslash or quote in it stays valid JSON).
  const inJson = (s: string): string => JSON.stringify(s).slice(1, -1);
  return text
    .split('file://$REPO')
    .join(inJson(pathToFileURL(REPO_ROOT).href))
    .split('$REPO')
    .join(inJson(REPO_ROOT));
}

/** The recording as a run folder of its own (removed by removeRecordedRuns()). */
export function recordedRun(name: Recording): string {
  const dir = path.join(fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-recorded-'))), name);
  written.push(path.dirname(dir));
  fs.mkdirSync(dir);
  for (const file of fs.readdirSync(path.join(RECORDED_RUNS, name)))
    fs.writeFileSync(path.join(dir, file.replace(/\.gz$/, '')), contents(name, file));
  return dir;
}

/** The recording's report.json, read in place. */
export function recordedReport(name: Recording): ReportV1 {
  return JSON.parse(contents(name, 'report.json')) as ReportV1;
}

export function removeRecordedRuns(): void {
  for (const dir of written.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}
