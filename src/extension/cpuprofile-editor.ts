// Any .cpuprofile opened from the explorer shows in speedscope, and its costs light up the
// lenses of the workspace files it names. Opening a profile only reads it: nothing is executed.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { showProfileIn } from './flame-view.ts';

export class CpuProfileEditorProvider implements vscode.CustomReadonlyEditorProvider {
  static readonly viewType = 'hotline.cpuprofile';

  constructor(private readonly extensionUri: vscode.Uri, private readonly analyse: (profileFile: string, root: string) => Promise<void>) {}

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => undefined };
  }

  resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): void {
    const file = document.uri.fsPath;
    const wiring = showProfileIn(panel.webview, this.extensionUri, file, (m) => void vscode.window.showErrorMessage(`Hotline: ${m}`));
    panel.onDidDispose(() => wiring.dispose());
    const folder = vscode.workspace.getWorkspaceFolder(document.uri);
    const root = folder?.uri.fsPath ?? path.dirname(file);
    this.analyse(file, root).catch((err: Error) => {
      void vscode.window.showWarningMessage(`Hotline: the profile shows as a flame graph, but its lines could not be analysed: ${err.message}`);
    });
  }
}
