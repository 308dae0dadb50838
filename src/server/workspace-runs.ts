// For clients without Hotline's UI (`hotline lsp` in Neovim, Helix, Emacs, Zed): the server
// shows the newest run of each workspace folder by itself and follows the runs that land there
// (run-watch.ts), and the app folders of the files opened below them; `hotline.showRun` picks
// another run until the next one lands.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InitializeParams } from 'vscode-languageserver/node';
import { isWithin, REPORT_FILE } from '../core/index.ts';
import { RunWatch } from './run-watch.ts';
import { RunLoadError, loadRun, type LoadedRun } from './runs.ts';
import type { ShownRuns } from './shown-runs.ts';

/** The workspace folders of `initialize`: workspaceFolders, else rootUri, else rootPath. */
export function rootsOf(params: InitializeParams): string[] {
  const roots = foldersOf(params.workspaceFolders?.map((f) => f.uri) ?? (params.rootUri ? [params.rootUri] : []));
  if (roots.length === 0 && params.rootPath) roots.push(path.resolve(params.rootPath));
  return roots;
}

/** The folders of file: URIs (other schemes have no runs on this disk). */
export function foldersOf(uris: string[]): string[] {
  return [...new Set(uris.filter((u) => u.startsWith('file:')).map((u) => path.resolve(fileURLToPath(u))))];
}

export class WorkspaceRuns {
  private readonly watches: RunWatch[] = [];

  constructor(
    private readonly shown: ShownRuns,
    private readonly log: (message: string) => void,
  ) {}

  /** Shows the newest run of each folder and starts following them. */
  start(roots: string[]): void {
    for (const root of roots) {
      const watch = new RunWatch(root, (reportFile) => this.showNewest(root, reportFile), this.log);
      this.watches.push(watch);
      const newest = watch.start();
      if (newest) this.showNewest(root, newest);
      else this.log(`no run under ${root} yet: lenses appear when \`hotline profile\` saves one there.`);
    }
  }

  /**
   * An opened file's app may keep its runs below the workspace folder (a monorepo opened at its
   * root, `hotline profile packages/api`): the nearest folder above the file with a .hotline
   * folder is followed too, from the first file opened in it.
   */
  followAppOf(file: string): void {
    for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
      if (this.watches.some((w) => w.folder === dir)) return;
      if (isDirectory(path.join(dir, '.hotline'))) {
        this.start([dir]);
        return;
      }
      if (path.dirname(dir) === dir) return;
    }
  }

  /** workspace/didChangeWorkspaceFolders: follow the added folders, and stop showing the removed ones' runs. */
  changeFolders(added: string[], removed: string[]): void {
    for (const folder of removed) {
      const i = this.watches.findIndex((w) => w.folder === folder);
      if (i < 0) continue;
      this.watches.splice(i, 1)[0].dispose();
      this.shown.show(folder, undefined);
    }
    this.start(added.filter((f) => !this.watches.some((w) => w.folder === f)));
  }

  /** Something under a watched folder changed (the client's didChangeWatchedFiles): look again. */
  check(): void {
    for (const w of this.watches) w.check();
  }

  /**
   * `hotline.showRun`: a run folder or its report.json (relative: to the first workspace folder,
   * not to wherever the editor started the server), shown in the slot of the folder it is under.
   */
  pick(ref: string): LoadedRun {
    const resolved = path.resolve(this.watches[0]?.folder ?? '.', ref);
    const reportFile = isDirectory(resolved) ? path.join(resolved, REPORT_FILE) : resolved;
    const run = loadRun(reportFile);
    this.shown.show(this.slotOf(run.reportFile), run);
    return run;
  }

  dispose(): void {
    for (const w of this.watches.splice(0)) w.dispose();
  }

  private showNewest(root: string, reportFile: string | undefined): void {
    if (reportFile === undefined) {
      this.log(`the runs under ${root} are gone: its costs are hidden.`);
      this.shown.show(root, undefined);
      return;
    }
    let run: LoadedRun;
    try {
      run = loadRun(reportFile);
    } catch (err) {
      // The folder keeps the run it showed: a damaged report must not take its costs away.
      this.shown.warn(
        err instanceof RunLoadError
          ? `${err.message} The run is not shown.`
          : `Cannot show ${reportFile}: ${String(err)}`,
      );
      return;
    }
    this.log(`showing run ${run.report.id} (${reportFile}).`);
    this.shown.show(root, run);
  }

  /** The deepest watched folder holding the report; a run from elsewhere gets a slot of its own. */
  private slotOf(reportFile: string): string {
    const holders = this.watches.map((w) => w.folder).filter((f) => isWithin(f, reportFile));
    return holders.sort((a, b) => b.length - a.length)[0] ?? path.dirname(reportFile);
  }
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false; // not there: loadRun says so in words
  }
}
