// scripts.json in a run folder: the code the app ran where it was not the file on disk (compiled
// in memory by a loader), with the source map the runtime held for it (capture/read-runtime-scripts.ts
// reads them). `analyze`, `compare`, the editor and a later session map the profile through these,
// not through whatever is on disk then.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from './store.ts';

export const RUNTIME_SCRIPTS_FILE = 'scripts.json';

export interface RuntimeScript {
  /** The script's URL as V8 knows it (file:///…). */
  url: string;
  /** Its path on disk (the original source, e.g. the .ts file). */
  file: string;
  /** The code V8 ran. */
  source: string;
  /** The source map the runtime held for it (JSON text). */
  map?: string;
  /** Why there is no usable map, when there is none. */
  mapProblem?: string;
}

export function writeRuntimeScripts(runDir: string, scripts: RuntimeScript[]): void {
  if (scripts.length === 0) return;
  writeFileAtomic(path.join(runDir, RUNTIME_SCRIPTS_FILE), JSON.stringify({ version: 1, scripts }));
}

/** The scripts saved beside a run's profile; none when the file is missing or not ours. */
export function readRuntimeScriptsBeside(profileFile: string): RuntimeScript[] {
  let raw: { scripts?: unknown };
  try {
    raw = JSON.parse(fs.readFileSync(path.join(path.dirname(profileFile), RUNTIME_SCRIPTS_FILE), 'utf8')) as {
      scripts?: unknown;
    };
  } catch {
    return [];
  }
  if (!Array.isArray(raw?.scripts)) return [];
  return raw.scripts.filter(
    (s): s is RuntimeScript =>
      typeof (s as RuntimeScript)?.url === 'string' &&
      typeof (s as RuntimeScript).file === 'string' &&
      typeof (s as RuntimeScript).source === 'string' &&
      ((s as RuntimeScript).map === undefined || typeof (s as RuntimeScript).map === 'string'),
  );
}
