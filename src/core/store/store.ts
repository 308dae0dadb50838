// Runs on disk: <app dir>/.hotline/runs/<id>/{profile.cpuprofile, coverage.json, app.log, run.json,
// report.json, sources.json}.
// Files are written to a temporary name and renamed, so a crash never leaves half a report.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { isAlive } from '../app/index.ts';
import { isReportV1, type ReportV1 } from '../report/index.ts';
import { type RunSources } from '../verdicts/index.ts';

export const PROFILE_FILE = 'profile.cpuprofile';
export const REPORT_FILE = 'report.json';
export const LOG_FILE = 'app.log';
/** The profiled window's stack captures (stack-sampler.ts), tied to profile.cpuprofile's samples. */
export const STACKS_FILE = 'stacks.json';
/** What the run measured, written before the analysis (which may happen in another process). */
export const RUN_FILE = 'run.json';
/** The analyzed sources as they were, to map costs through later edits. */
export const SOURCES_FILE = 'sources.json';
/** The allocation sampling profile of the main thread (with --heap). */
export const HEAP_FILE = 'heap.heapprofile';
/** The wait probe's record of the profiled window (inspector/wait-probe.ts). */
export const WAITS_FILE = 'waits.json';
/** A worker thread's CPU profile, by its threadId. */
export const workerProfileFile = (threadId: number): string => `worker-${threadId}.cpuprofile`;
/** A child process's profile (cluster worker, fork) in the run folder. */
export const processProfileFile = (pid: number): string => `process-${pid}.cpuprofile`;
/** A child process's stack captures, tied to its profile's samples as stacks.json is to the main one's. */
export const processStacksFile = (pid: number): string => `process-${pid}.stacks.json`;

export function runsDirOf(appDir: string): string {
  return path.join(appDir, '.hotline', 'runs');
}

/** Sortable by time, unique across runs started in the same second. */
export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

export function writeFileAtomic(file: string, data: string | Buffer): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}

/** writeFileAtomic of a text given in parts (one too long for a single string), each written as it comes. */
export function writeFileAtomicParts(file: string, parts: Iterable<string | Uint8Array>): void {
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    for (const part of parts) fs.writeFileSync(fd, part); // all of it, at the file's current end
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  fs.closeSync(fd);
  fs.renameSync(tmp, file);
}

/** Creates the run folder; a .gitignore keeps runs out of the user's commits. */
export function createRunDir(runsDir: string, id: string): string {
  fs.mkdirSync(runsDir, { recursive: true });
  const hotlineDir = path.dirname(runsDir);
  const ignore = path.join(hotlineDir, '.gitignore');
  if (path.basename(hotlineDir) === '.hotline' && !fs.existsSync(ignore)) fs.writeFileSync(ignore, '*\n');
  const dir = path.join(runsDir, id);
  fs.mkdirSync(dir);
  return dir;
}

export function writeReport(runDir: string, report: ReportV1): string {
  const file = path.join(runDir, REPORT_FILE);
  writeFileAtomic(file, `${JSON.stringify(report, null, 1)}\n`);
  return file;
}

/**
 * One run per app at a time (the CLI and the editor included): two runs would share the CPU
 * and both measure nonsense. The lock holds the owner's pid; a lock whose owner died is taken
 * over. Returns the release function, or the pid of the run in progress.
 */
export function acquireRunLock(appDir: string): { release: () => void } | { heldBy: number } {
  const key = path.resolve(appDir);
  // Runs of this process (the editor starts every run in one extension host).
  if (locksHere.has(key)) return { heldBy: process.pid };
  const dir = path.join(appDir, '.hotline');
  fs.mkdirSync(dir, { recursive: true });
  const ignore = path.join(dir, '.gitignore');
  if (!fs.existsSync(ignore)) fs.writeFileSync(ignore, '*\n');
  const lock = path.join(dir, 'run.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(lock, 'wx');
      fs.writeSync(fd, `${process.pid}\n`);
      fs.closeSync(fd);
      locksHere.add(key);
      return {
        release: () => {
          locksHere.delete(key);
          fs.rmSync(lock, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = Number(fs.readFileSync(lock, 'utf8').trim());
    if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) return { heldBy: owner };
    fs.rmSync(lock, { force: true }); // its owner is gone: a crashed run
  }
  return { heldBy: -1 };
}

const locksHere = new Set<string>();

export class StoreError extends Error {
  constructor(
    message: string,
    readonly file: string,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

/**
 * Reads a run from its folder, or from a report.json path. `RUN` may also be a run id, looked up
 * in `runsDir`. Throws StoreError with a sentence a person can act on.
 */
export function readRun(ref: string, runsDir?: string): { dir: string; report: ReportV1 } {
  let dir = path.resolve(ref);
  if (!fs.existsSync(dir) && runsDir && fs.existsSync(path.join(runsDir, ref))) dir = path.join(runsDir, ref);
  const file = dir.endsWith('.json') ? dir : path.join(dir, REPORT_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new StoreError(
      `No run at ${ref}: expected a run folder with ${REPORT_FILE} (or the path of a report.json).`,
      file,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new StoreError(`${file} is not valid JSON (a run interrupted while saving?).`, file);
  }
  if (!isReportV1(value)) throw new StoreError(`${file} is not a Hotline report of version 1.`, file);
  return { dir: path.dirname(file), report: value };
}

/**
 * A run folder's sources.json (file → the text the run analyzed); empty when it has none or it
 * cannot be read (a run from before it existed): its lines are then matched without it.
 */
export function readSourceSnapshot(runDir: string): Map<string, string> {
  const saved = new Map<string, string>();
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(path.join(runDir, SOURCES_FILE), 'utf8'));
  } catch {
    return saved;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return saved;
  for (const [file, text] of Object.entries(value))
    if (path.isAbsolute(file) && typeof text === 'string') saved.set(file, text);
  return saved;
}

/** Both runs' sources.json, for a comparison that finds rewritten lines by a diff (verdicts/compare.ts). */
export function readRunSources(baseDir: string, currentDir: string): RunSources {
  return { base: readSourceSnapshot(baseDir), current: readSourceSnapshot(currentDir) };
}

export interface RunListing {
  runs: Array<{ dir: string; report: ReportV1 }>;
  /** Folders that could not be read, with why: shown as a note, never an error. */
  skipped: Array<{ dir: string; reason: string }>;
}

/** All runs of an app, newest first. */
export function listRuns(runsDir: string): RunListing {
  const listing: RunListing = { runs: [], skipped: [] };
  let names: string[];
  try {
    names = fs.readdirSync(runsDir);
  } catch {
    return listing;
  }
  for (const name of names.sort().reverse()) {
    const dir = path.join(runsDir, name);
    try {
      if (!fs.statSync(dir).isDirectory()) continue;
      listing.runs.push(readRun(dir));
    } catch (err) {
      listing.skipped.push({ dir, reason: (err as Error).message });
    }
  }
  return listing;
}
