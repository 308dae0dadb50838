// Runs the flame graph's merge of a big .cpuprofile (extension/flame/flame-merge-file.ts) in a worker thread
// (dist/flame-merge-worker.js): parsing 100+ MB of JSON on the extension host's thread would stall
// every extension for seconds. One worker per merge; it exits when done, and is ended on failure.
import { Worker } from 'node:worker_threads';
import * as vscode from 'vscode';

export function writeMergedCopyOffThread(
  extensionUri: vscode.Uri,
  file: string,
  out: string,
  name: string,
): Promise<void> {
  return runFlameWorker(extensionUri, { file, out, name });
}

/** A run's profile cut to [startMs, endMs), written to `out`, off the extension host's thread. */
export function writeCutProfileOffThread(
  extensionUri: vscode.Uri,
  file: string,
  out: string,
  startMs: number,
  endMs: number,
): Promise<void> {
  return runFlameWorker(extensionUri, { task: 'cut', file, out, startMs, endMs });
}

/** A run's profile written as gzipped pprof to `out`, off the extension host's thread. */
export function writePprofOffThread(extensionUri: vscode.Uri, file: string, out: string): Promise<void> {
  return runFlameWorker(extensionUri, { task: 'pprof', file, out });
}

function runFlameWorker(extensionUri: vscode.Uri, workerData: Record<string, unknown>): Promise<void> {
  const script = vscode.Uri.joinPath(extensionUri, 'dist', 'flame-merge-worker.js').fsPath;
  return new Promise((resolve, reject) => {
    // A 100 MB profile parses to ~1 GB of objects: more heap than a worker gets by default.
    const worker = new Worker(script, { workerData, resourceLimits: { maxOldGenerationSizeMb: 4096 } });
    let settled = false;
    const settle = (err?: Error): void => {
      if (settled) return;
      settled = true;
      if (err) reject(err);
      else resolve();
      void worker.terminate();
    };
    worker.once('message', (m: { ok: boolean; message?: string }) =>
      settle(m.ok ? undefined : new Error(m.message ?? 'the worker failed')),
    );
    worker.once('error', (err) => settle(err));
    worker.once('exit', (code) => settle(new Error(`the flame worker exited with code ${code}`)));
  });
}
