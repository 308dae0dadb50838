// Follows the newest run of one workspace folder: <folder>/.hotline/runs/<id>/report.json, where
// run ids sort by time (core/store/store.ts newRunId) and report.json is the last file a run
// writes, by a rename (writeReport), so its presence means the run is complete.
// Plain fs.watch (inotify, FSEvents): every client gets it, also those that offer no
// workspace/didChangeWatchedFiles. The folders are watched one level each, never recursively:
// the deepest of <folder>, .hotline, runs that exists, and the run folders still without a report.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPORT_FILE, runsDirOf } from '../core/index.ts';

/** Run folders without a report that are watched for theirs: runs in progress (a crashed one stays reportless). */
const MAX_PENDING_WATCHED = 4;

/** The report.json of the newest complete run in `runsDir`, or undefined. */
export function newestReport(runsDir: string): string | undefined {
  return runFolders(runsDir).find((r) => r.complete)?.reportFile;
}

/** The run folders of `runsDir`, newest first, with whether each has its report yet. */
function runFolders(runsDir: string): Array<{ dir: string; reportFile: string; complete: boolean }> {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(runsDir, { withFileTypes: true });
  } catch {
    return []; // no runs folder yet: the watch waits for it
  }
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .reverse()
    .map((name) => {
      const dir = path.join(runsDir, name);
      const reportFile = path.join(dir, REPORT_FILE);
      return { dir, reportFile, complete: fs.existsSync(reportFile) };
    });
}

export class RunWatch {
  private readonly runsDir: string;
  private readonly watchers = new Map<string, fs.FSWatcher>();
  private newest: string | undefined;
  private disposed = false;

  /**
   * `onNewest` is called with the newest complete run's report.json whenever it changes (never
   * for the one `start` returns). `log` gets what went wrong with a watch.
   */
  constructor(
    readonly folder: string,
    private readonly onNewest: (reportFile: string | undefined) => void,
    private readonly log: (message: string) => void,
  ) {
    this.runsDir = runsDirOf(folder);
  }

  /** Starts watching; returns the newest complete run's report.json now. */
  start(): string | undefined {
    this.arm();
    this.newest = newestReport(this.runsDir);
    return this.newest;
  }

  /** Looks again (a watch event, or the client's didChangeWatchedFiles): reports a new newest run. */
  check(): void {
    if (this.disposed) return;
    // Watches first, then the look: a report landing in between is seen by one or the other.
    this.arm();
    const now = newestReport(this.runsDir);
    if (now === this.newest) return;
    this.newest = now;
    this.onNewest(now);
  }

  dispose(): void {
    this.disposed = true;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  /** Watches the folders whose change can bring a new run, and only those. */
  private arm(): void {
    const wanted = new Set<string>();
    const hotlineDir = path.dirname(this.runsDir);
    if (isDir(this.runsDir)) {
      wanted.add(this.runsDir);
      for (const r of runFolders(this.runsDir)
        .filter((f) => !f.complete)
        .slice(0, MAX_PENDING_WATCHED))
        wanted.add(r.dir);
    } else wanted.add(isDir(hotlineDir) ? hotlineDir : this.folder);
    for (const [dir, w] of this.watchers)
      if (!wanted.has(dir)) {
        w.close();
        this.watchers.delete(dir);
      }
    for (const dir of wanted) {
      if (this.watchers.has(dir)) continue;
      if (path.dirname(dir) === this.runsDir)
        this.log(`run ${path.basename(dir)} has no ${REPORT_FILE} yet (in progress, or it failed): watching for it.`);
      this.watch(dir);
    }
  }

  private watch(dir: string): void {
    let w: fs.FSWatcher;
    try {
      w = fs.watch(dir, { persistent: false }, () => this.check());
    } catch (err) {
      // Gone between the look and the watch: its parent's watch sees what comes next.
      this.log(`cannot watch ${dir}: ${(err as Error).message}`);
      return;
    }
    w.on('error', (err) => {
      this.log(`the watch of ${dir} failed: ${err.message}`);
      w.close();
      this.watchers.delete(dir);
      this.check();
    });
    this.watchers.set(dir, w);
  }
}

function isDir(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
