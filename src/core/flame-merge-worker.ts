// A worker thread that writes the merged copy of a big .cpuprofile (flame-merge-file.ts), so the
// extension host's thread never parses 100+ MB of JSON. workerData: {file, out, name}; posts
// {ok: true} or {ok: false, message} once, then exits.
import { parentPort, workerData } from 'node:worker_threads';
import { writeMergedCopy } from './flame-merge-file.ts';

const { file, out, name } = workerData as { file: string; out: string; name: string };
try {
  writeMergedCopy(file, out, name);
  parentPort?.postMessage({ ok: true });
} catch (err) {
  parentPort?.postMessage({ ok: false, message: (err as Error).message });
}
