// The run report: one panel, reused, that shows a report.json (with the baseline's deltas when
// one is set). The data is posted after the page says `ready`, never inlined; messages from
// the page are validated, and it may only open files inside the workspace.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { reportHtml } from '../../../webview/report/html.ts';
import {
  readRun,
  readRunSources,
  type ReportV1,
  type RunSources,
  TIMELINE_FILE,
  type TimelineV1,
} from '../../core/index.ts';
import { parseFromReportView, type ToReportView } from '../../protocol.ts';
import { nonce } from './webview-html.ts';
import { openInWorkspace } from '../open-source.ts';
import { showProfileRange } from '../flame/flame-view.ts';
import { flameTitle } from '../flame/flame-title.ts';

export interface ReportFocus {
  file: string;
  line: number;
  functionName?: string;
}

export class ReportPanel implements vscode.Disposable {
  private static current: ReportPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private ready = false;
  private message: ToReportView | undefined;

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly extensionUri: vscode.Uri,
    private readonly onFlameGraph: (reportFile: string) => void,
    private reportFile: string,
  ) {
    const dist = vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
    panel.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    panel.webview.html = reportHtml({
      cspSource: panel.webview.cspSource,
      nonce: nonce(),
      script: panel.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'report.js')).toString(),
      title: 'Hotline report',
    });
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.webview.onDidReceiveMessage((raw) => this.receive(raw)),
    );
  }

  /** Shows a report (and focuses a line or function in it), creating the panel if needed. */
  /**
   * `preserveFocus`: the report opens beside the editor without taking the focus from it (after a
   * run: VS Code refreshes the CodeLens of the focused editor only, and the lenses are the news).
   */
  static show(
    extensionUri: vscode.Uri,
    reportFile: string,
    opts: {
      baselineFile?: string;
      focus?: ReportFocus;
      preserveFocus?: boolean;
      onFlameGraph: (reportFile: string) => void;
    },
  ): void {
    const { dir, report } = readRun(reportFile);
    const base =
      opts.baselineFile && path.resolve(opts.baselineFile) !== path.resolve(reportFile)
        ? tryRead(opts.baselineFile)
        : undefined;
    const baseline = base?.report;
    let current = ReportPanel.current;
    if (!current) {
      const panel = vscode.window.createWebviewPanel(
        'hotline.report',
        title(report),
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: opts.preserveFocus ?? false },
        { enableScripts: true, localResourceRoots: [] },
      );
      panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'hotline.svg');
      current = new ReportPanel(panel, extensionUri, opts.onFlameGraph, reportFile);
      ReportPanel.current = current;
    } else {
      // Never over the code: the report moves beside the editor it would hide (its lenses are the news).
      const editorColumn = vscode.window.activeTextEditor?.viewColumn;
      const hidesCode = editorColumn !== undefined && current.panel.viewColumn === editorColumn;
      current.panel.reveal(hidesCode ? vscode.ViewColumn.Beside : undefined, opts.preserveFocus ?? false);
    }
    current.reportFile = reportFile;
    current.panel.title = title(report);
    current.post({
      type: 'report',
      report,
      baseline,
      ...(base ? changedSourcesOf(readRunSources(base.dir, dir)) : {}),
      focus: opts.focus,
      timeline: readTimeline(dir),
    });
  }

  static disposeCurrent(): void {
    ReportPanel.current?.dispose();
  }

  private post(message: ToReportView): void {
    this.message = message;
    if (this.ready) void this.panel.webview.postMessage(message);
  }

  private receive(raw: unknown): void {
    const msg = parseFromReportView(raw);
    if (!msg) return; // not one of ours: dropped
    switch (msg.type) {
      case 'ready':
        this.ready = true;
        if (this.message) void this.panel.webview.postMessage(this.message);
        return;
      case 'openSource':
        void openInWorkspace(msg.file, msg.line, this.panel.viewColumn);
        return;
      case 'openFlameGraph':
        this.onFlameGraph(this.reportFile);
        return;
      case 'openFlameRange': {
        const runDir = path.dirname(this.reportFile);
        void showProfileRange(this.extensionUri, runDir, msg.startMs, msg.endMs, flameTitle(path.basename(runDir)));
        return;
      }
    }
  }

  dispose(): void {
    if (ReportPanel.current === this) ReportPanel.current = undefined;
    this.panel.dispose();
    this.disposables.splice(0).forEach((d) => d.dispose());
  }
}

/**
 * What the page's diff needs of both runs' sources.json: the texts of the files that differ, the
 * names of those that do not (the webview has no file access).
 */
function changedSourcesOf({
  base,
  current: now,
}: RunSources): Pick<Extract<ToReportView, { type: 'report' }>, 'changedSources'> {
  const changedSources = {
    base: {} as Record<string, string>,
    current: {} as Record<string, string>,
    same: [] as string[],
  };
  for (const [file, text] of now) {
    const before = base.get(file);
    if (before === undefined) continue;
    if (before === text) changedSources.same.push(file);
    else {
      changedSources.base[file] = before;
      changedSources.current[file] = text;
    }
  }
  return now.size > 0 && base.size > 0 ? { changedSources } : {};
}

function tryRead(reportFile: string): { dir: string; report: ReportV1 } | undefined {
  try {
    return readRun(reportFile);
  } catch {
    return undefined; // a baseline that was deleted: the report shows without deltas
  }
}

/** The run folder's timeline.json (the page validates it); none for runs analyzed before it existed. */
function readTimeline(runDir: string): TimelineV1 | undefined {
  const file = path.join(runDir, TIMELINE_FILE);
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as TimelineV1;
  } catch {
    return undefined; // missing or damaged: the report shows without the Timeline tab
  }
}

/** One report panel: its title stays put; the run's id and date are in the page header. */
function title(_report: ReportV1): string {
  return 'Hotline Report';
}
