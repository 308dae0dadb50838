// The workspace the server is rooted at: its runs folder, the run a tool names ("latest" or an
// id), the baseline (kept in a file, so it outlives the server: a client restarts its servers
// between edits), and paths as the model reads them (relative to the root).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { listRuns, readRun, readSourceSnapshot, type ReportV1, runsDirOf, StoreError } from '../core/index.ts';
import { ToolError } from './results.ts';

/** Where the MCP server keeps the baseline's run id, beside the runs. */
const BASELINE_FILE = 'baseline';

export interface Run {
  dir: string;
  report: ReportV1;
}

export class Workspace {
  readonly runsDir: string;

  constructor(readonly root: string) {
    this.runsDir = runsDirOf(root);
  }

  /** A run by id, or the newest for "latest" / none given. */
  run(ref: string | undefined): Run {
    if (ref === undefined || ref === 'latest') {
      const newest = listRuns(this.runsDir).runs[0];
      if (!newest) throw new ToolError(`No runs yet in ${this.runsDir}: call profile first.`);
      return newest;
    }
    // An id names a folder under the runs folder, never a path elsewhere on the machine.
    if (!/^[\w.-]+$/.test(ref) || ref.startsWith('.')) throw new ToolError(`"${ref}" is not a run id (see list_runs).`);
    try {
      return readRun(path.join(this.runsDir, ref));
    } catch (err) {
      if (err instanceof StoreError) throw new ToolError(`No run ${ref} in ${this.runsDir} (see list_runs).`);
      throw err;
    }
  }

  baselineId(): string | undefined {
    try {
      const id = fs.readFileSync(path.join(path.dirname(this.runsDir), BASELINE_FILE), 'utf8').trim();
      return id || undefined;
    } catch {
      return undefined; // none set yet
    }
  }

  setBaseline(id: string): void {
    const file = path.join(path.dirname(this.runsDir), BASELINE_FILE);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${id}\n`);
  }

  baseline(): Run {
    const id = this.baselineId();
    if (id === undefined) throw new ToolError('No baseline set: call set_baseline with a run first.');
    return this.run(id);
  }

  /** `server.js:35`: relative to the root inside it, else as recorded (node:…, a dependency). */
  at(file: string, line: number): string {
    return `${this.shown(file)}:${line}`;
  }

  shown(file: string): string {
    if (!path.isAbsolute(file)) return file;
    const r = path.relative(this.root, file);
    return r && !r.startsWith('..') && !path.isAbsolute(r) ? r : file;
  }

  /** An absolute path for a file the model names relative to the root (or absolute). */
  resolve(file: string): string {
    return path.resolve(this.root, file);
  }
}

/** The code of a line as the run analyzed it: the report's, else its sources.json's. */
export function codeAt(run: Run, file: string, line: number, recorded?: string): string | undefined {
  if (recorded !== undefined) return recorded;
  const text = sources(run).get(file);
  return text
    ?.split(/\r\n|\r|\n/)
    [line - 1]?.trim()
    .slice(0, 160);
}

const snapshots = new WeakMap<Run, Map<string, string>>();
function sources(run: Run): Map<string, string> {
  let s = snapshots.get(run);
  if (!s) snapshots.set(run, (s = readSourceSnapshot(run.dir)));
  return s;
}
