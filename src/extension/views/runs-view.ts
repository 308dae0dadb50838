// The Runs view: every run kept under .hotline/runs of the workspace (and of app folders that
// were profiled), newest first, with req/s and the top hot line. A run folder that cannot be
// read is listed as such, never breaks the view.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { listRuns, REPORT_FILE, type ReportV1, runsDirOf } from '../../core/index.ts';
import { capacityOf, costText } from '../../capacity.ts';
import { runTimeLong, runTimeShort } from './run-time-text.ts';

export class RunItem extends vscode.TreeItem {
  constructor(
    readonly reportFile: string,
    readonly report: ReportV1,
    isBaseline: boolean,
    cwd: string,
  ) {
    // What matters first (a narrow side bar cuts the rest): req/s and the hot line; the time after.
    const top = report.lines.find((l) => l.thread === undefined && l.ownMs > 0);
    const rps = report.load ? `${fmtRate(report.load.requests.perSecond)} req/s` : 'profile only';
    super(`${rps}${top ? ` · ${path.basename(top.file)}:${top.line}` : ''}`, vscode.TreeItemCollapsibleState.None);
    this.description = `${when(report)}${isBaseline ? ' · baseline' : ''}`;
    const capacity = capacityOf(report);
    this.tooltip = new vscode.MarkdownString(
      [
        // The path asked for, not the app's URL: that port was the run's and is closed now.
        `**${report.load?.external ? '' : `${report.settings.method} `}${report.settings.url}** · ${label(report)}`,
        report.load ? `${rps}, p99 ${Math.round(report.load.latencyMs.p99)} ms, ${report.load.errors} errors` : '',
        top
          ? `Hottest line: \`${path.relative(cwd, top.file)}:${top.line}\` (${top.function}), own ${costText(top.ownMs, capacity)}`
          : '',
        report.partial ? `Partial: ${report.partial.reason}` : '',
        isBaseline ? 'The baseline: later reports show their changes against it.' : '',
      ]
        .filter(Boolean)
        .join('\n\n'),
    );
    this.iconPath = new vscode.ThemeIcon(isBaseline ? 'pinned' : report.partial ? 'warning' : 'flame');
    this.contextValue = isBaseline ? 'hotline.run.baseline' : 'hotline.run';
    this.command = { command: 'hotline.openReport', title: 'Open Report', arguments: [this] };
  }
}

/** A run chosen from a quick pick, for commands run from the palette rather than the view. */
export async function pickRun(items: readonly RunItem[], placeHolder: string): Promise<RunItem | undefined> {
  if (items.length === 0) {
    void vscode.window.showInformationMessage('Hotline: no runs yet. Run "Hotline: Profile Under Load" first.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    items.map((item) => ({
      label: String(item.label ?? item.report.id),
      description: `${String(item.description ?? '')} · ${item.report.id}`,
      item,
    })),
    { placeHolder, matchOnDescription: true },
  );
  return picked?.item;
}

class NoteItem extends vscode.TreeItem {
  constructor(text: string, tooltip: string) {
    super(text, vscode.TreeItemCollapsibleState.None);
    this.tooltip = tooltip;
    this.iconPath = new vscode.ThemeIcon('warning');
  }
}

function label(report: ReportV1): string {
  return runTimeLong(report.startedAt, report.id);
}

function when(report: ReportV1): string {
  return runTimeShort(report.startedAt, report.id);
}

const fmtRate = (v: number): string => (v >= 100 ? v.toFixed(0) : v.toFixed(1));

export class RunsView implements vscode.TreeDataProvider<vscode.TreeItem>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly watcher: vscode.FileSystemWatcher;

  constructor(
    private readonly appDirs: () => string[],
    private readonly baseline: () => string | undefined,
  ) {
    this.watcher = vscode.workspace.createFileSystemWatcher('**/.hotline/runs/*/report.json');
    this.watcher.onDidCreate(() => this.refresh());
    this.watcher.onDidDelete(() => this.refresh());
    this.watcher.onDidChange(() => this.refresh());
  }

  refresh(): void {
    this.changed.fire();
  }

  /** Runs of every known app folder, newest first. */
  runs(): { items: RunItem[]; notes: NoteItem[] } {
    const items: RunItem[] = [];
    const notes: NoteItem[] = [];
    const baseline = this.baseline();
    for (const dir of new Set(this.appDirs())) {
      const listing = listRuns(runsDirOf(dir));
      for (const run of listing.runs) {
        const file = path.join(run.dir, REPORT_FILE);
        items.push(
          new RunItem(file, run.report, baseline !== undefined && path.resolve(baseline) === path.resolve(file), dir),
        );
      }
      for (const s of listing.skipped) notes.push(new NoteItem(`${path.basename(s.dir)}: unreadable`, s.reason));
    }
    items.sort((a, b) => b.report.startedAt.localeCompare(a.report.startedAt));
    // The walkthrough's steps and the baseline commands follow what exists, not what was clicked.
    void vscode.commands.executeCommand('setContext', 'hotline.hasRuns', items.length > 0);
    void vscode.commands.executeCommand(
      'setContext',
      'hotline.hasBaseline',
      baseline !== undefined && items.some((i) => path.resolve(i.reportFile) === path.resolve(baseline)),
    );
    return { items, notes };
  }

  getTreeItem(element: vscode.TreeItem): vscode.TreeItem {
    return element;
  }

  getChildren(element?: vscode.TreeItem): vscode.TreeItem[] {
    if (element) return [];
    const { items, notes } = this.runs();
    return [...items, ...notes];
  }

  dispose(): void {
    this.watcher.dispose();
    this.changed.dispose();
  }
}
