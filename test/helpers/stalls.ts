// Where test/apps/stall really stalled during a run. The app prints `stall <start> <end>` in µs of
// the monotonic clock V8's profiles use, so the timeline tests check the heat map against the
// stalls that happened, not against the 300 ms once a second the app aims at (a busy machine
// fires its timer late, and a second may be lost to another process).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LOG_FILE, PROFILE_FILE } from '../../src/core/store/store.ts';

/** A stall as [start, end], ms from the profile's start. */
export type Stall = [number, number];

/**
 * The stalls of the run in `runDir` that lie wholly inside its profile, in order; with `overlapping`,
 * also those cut by its start or end (a quiet stretch must keep away from them too), including one
 * the app was stopped in: its start printed, its end never (it lasts to the log's end).
 */
export function stallsOfRun(runDir: string, opts: { overlapping?: boolean } = {}): Stall[] {
  const { startTime, endTime } = JSON.parse(fs.readFileSync(path.join(runDir, PROFILE_FILE), 'utf8')) as {
    startTime: number;
    endTime: number;
  };
  const log = fs.readFileSync(path.join(runDir, LOG_FILE), 'utf8');
  const ended = [...log.matchAll(/^stall (\d+) (\d+)$/gm)].map((m): [number, number] => [Number(m[1]), Number(m[2])]);
  const cut = [...log.matchAll(/^stall-start (\d+)$/gm)]
    .map((m) => Number(m[1]))
    .filter((start) => !ended.some(([s]) => s === start))
    .map((start): [number, number] => [start, Infinity]);
  return [...ended, ...cut]
    .map(([start, end]): Stall => [(start - startTime) / 1000, (end - startTime) / 1000])
    .filter(([start, end]) =>
      opts.overlapping
        ? end > 0 && start < (endTime - startTime) / 1000
        : start >= 0 && end <= (endTime - startTime) / 1000,
    );
}

/** Whether [startMs, endMs) is at least `marginMs` away from every stall. */
export function awayFromStalls(stalls: Stall[], startMs: number, endMs: number, marginMs: number): boolean {
  return stalls.every(([s, e]) => endMs <= s - marginMs || startMs >= e + marginMs);
}
