// run.json: what a run measured, written by the capture as soon as the app is stopped and read
// by the analysis (maybe in another process: the editor's language server).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ReportParts } from '../report/index.ts';
import { RUN_FILE, StoreError, writeFileAtomic } from './store.ts';

/** What run.json says about the extra files (the analysis reads them from there). */
export interface ExtrasRecord {
  workers: Array<{
    threadId: number;
    title: string;
    url: string;
    file: string;
    joinedLate: boolean;
    exitedEarly: boolean;
    /** It started at the app's boot, before the app first listened (absent: not known, or later). */
    startedAtBoot?: boolean;
  }>;
  heap?: { file: string; samplingIntervalBytes: number };
  /** The app's child processes profiled with it (cluster workers, forks); absent when it had none. */
  processes?: ChildProcessRecord[];
  /** The threadpool requests the wait probe noted in the profiled window (its file in the run folder). */
  waits?: { file: string; requests: number; pending: number; dropped: number };
  /** The event-loop stalls the stall probe measured in the profiled window. */
  stalls?: StallsRecord;
  /** The route probe's labels of the profiled window (store/routes-file.ts). */
  routes?: { file: string; requests: number; changes: number };
  notes: string[];
}

export interface ChildProcessRecord {
  pid: number;
  ppid: number;
  kind: 'cluster' | 'fork' | 'spawn';
  /** Its script and arguments. */
  argv: string[];
  file: string;
  /** Its stack captures (in the run folder, beside `file`), when they ran. */
  stacks?: string;
  joinedLate: boolean;
  exitedEarly: boolean;
}

/**
 * Stalls as the probe measured them: each gap its timer could not run in, [from, to] in µs on
 * the main thread's merged profile timeline (from its startTime), and `from` on the app's clock
 * (µs of process.hrtime: the timeline leaves out the pauses between sub-windows, this does not). `unrecorded`: gaps left out
 * because the profiler was not recording all through them (its restarts pause the app).
 */
export interface StallsRecord {
  thresholdMs: number;
  gaps: Array<[number, number, number]>;
  unrecorded: number;
  /** Stalls under way when a profiled sub-window began or ended: only part of them was seen. */
  clipped: number;
}

/** run.json: what a run measured, written as soon as the app is stopped. */
export type RunRecord = { version: 1 } & Omit<ReportParts, 'analysis' | 'profileFile' | 'notes'> & {
    extras?: ExtrasRecord;
  };

export function writeRunRecord(runDir: string, record: RunRecord): void {
  writeFileAtomic(path.join(runDir, RUN_FILE), `${JSON.stringify(record, null, 1)}\n`);
}

export function readRunRecord(runDir: string): RunRecord {
  const file = path.join(runDir, RUN_FILE);
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new StoreError(`Cannot read ${file}: ${(err as Error).message}`, file);
  }
  const r = value as Partial<RunRecord>;
  if (r?.version !== 1 || typeof r.id !== 'string' || typeof r.startedAt !== 'string')
    throw new StoreError(`${file} is not a Hotline run record.`, file);
  return r as RunRecord;
}
