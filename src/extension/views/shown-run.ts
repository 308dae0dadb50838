// The status bar item of the run whose costs the editor shows (the language server says which):
// its time, and a click that opens its report.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ShownRunParams } from '../../protocol.ts';

export class ShownRunStatus implements vscode.Disposable {
  /** The report of the run shown in the editor, if one is. */
  report: string | undefined;
  private readonly item: vscode.StatusBarItem;

  constructor() {
    this.item = vscode.window.createStatusBarItem('hotline.shown', vscode.StatusBarAlignment.Left, 9);
    this.item.name = 'Hotline shown run';
    this.item.command = 'hotline.openShownReport';
  }

  update(p: ShownRunParams): void {
    this.report = p.reportFile;
    if (!p.runId) {
      this.item.hide();
      return;
    }
    this.item.text = `$(flame) Hotline ${p.runId.slice(9, 15).replace(/(\d\d)(\d\d)(\d\d)/, '$1:$2:$3')}`;
    this.item.tooltip =
      p.staleFiles.length > 0
        ? `Costs of this run are shown in the editor. Hidden where the code changed too much: ${p.staleFiles.map((f) => path.basename(f)).join(', ')}`
        : 'Costs of this run are shown in the editor. Click to open its report.';
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
