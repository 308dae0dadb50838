// Opening what a run left: its report, its flame graph, its costs in the editor.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ClearRunNotification, type OpenReportAtArgs, ShowRunNotification } from '../../protocol.ts';
import { ReportPanel } from '../views/report-panel.ts';
import { FlamePanel } from '../flame/flame-view.ts';
import { flameTitle } from '../flame/flame-title.ts';
import type { RunItem } from '../views/runs-view.ts';
import { baselineOf, type Command, type Hotline } from './command-context.ts';

export function openReport(
  h: Hotline,
  reportFile: string,
  focus?: { file: string; line: number; functionName?: string },
  preserveFocus = false,
): void {
  try {
    ReportPanel.show(h.extensionUri, reportFile, {
      baselineFile: baselineOf(h.state),
      focus,
      preserveFocus,
      onFlameGraph: (file) => openFlame(h, file),
    });
  } catch (err) {
    void vscode.window.showErrorMessage(`Hotline: cannot open the report: ${(err as Error).message}`);
  }
}

export function openFlame(h: Hotline, reportFile: string): void {
  void FlamePanel.showRun(h.extensionUri, reportFile, flameTitle(path.basename(path.dirname(reportFile))));
}

/** Has the language server put this run's costs on the editor's lines. */
export function showRun(h: Hotline, reportFile: string): void {
  void h.client.sendNotification(ShowRunNotification, { reportFile });
}

/** Takes the shown run's costs off the editor's lines. */
export function clearShownRun(h: Hotline): void {
  void h.client.sendNotification(ClearRunNotification);
  h.decorations.clearAll();
}

export const reportCommands: Record<string, Command> = {
  'hotline.openShownReport': (h) => h.shown.report && openReport(h, h.shown.report),
  'hotline.openReport': (h, item?: RunItem) => {
    const file = item?.reportFile ?? h.runsView.runs().items[0]?.reportFile;
    if (!file)
      return void vscode.window.showInformationMessage(
        'Hotline: no runs yet. Run "Hotline: Profile Under Load" first.',
      );
    showRun(h, file);
    openReport(h, file);
  },
  'hotline.openFlameGraph': (h, item?: RunItem) => {
    const file = item?.reportFile ?? h.shown.report;
    if (file) openFlame(h, file);
  },
  'hotline.openReportAt': (h, args: OpenReportAtArgs) => {
    if (args && typeof args.reportFile === 'string')
      openReport(h, args.reportFile, { file: args.file, line: args.line, functionName: args.functionName });
  },
  'hotline.clearAnnotations': (h) => clearShownRun(h),
};
