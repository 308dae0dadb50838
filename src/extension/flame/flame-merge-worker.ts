// A worker thread for the flame graph's work on whole profiles, so the extension host's thread
// never parses a big one: the merged copy of a big .cpuprofile (flame-merge-file.ts), or a run's
// profile cut to a time range (the report's heat map selection), or a run's profile as pprof.
// workerData: {file, out, name}, {task: 'cut', file, out, startMs, endMs} or {task: 'pprof',
// file, out}; posts {ok: true} or {ok: false, message} once.
import { parentPort, workerData } from 'node:worker_threads';
import { writeMergedCopy } from './flame-merge-file.ts';
import { cutProfile, exportPprof, readProfileFile, writeFileAtomic } from '../../core/index.ts';

type Task =
  | { task?: 'merge'; file: string; out: string; name: string }
  | { task: 'cut'; file: string; out: string; startMs: number; endMs: number }
  | { task: 'pprof'; file: string; out: string };

const job = workerData as Task;
try {
  if (job.task === 'cut')
    writeFileAtomic(job.out, JSON.stringify(cutProfile(readProfileFile(job.file), job.startMs, job.endMs)));
  else if (job.task === 'pprof') exportPprof(job.file, job.out);
  else writeMergedCopy(job.file, job.out, job.name);
  parentPort?.postMessage({ ok: true });
} catch (err) {
  parentPort?.postMessage({ ok: false, message: (err as Error).message });
}
