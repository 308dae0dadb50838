// Any .cpuprofile opened from the explorer shows in speedscope, and its costs light up the
// lenses of the workspace files it names. Opening a profile only reads it: nothing of the app is
// executed (a `node --prof` log is converted by node's own --prof-process). Other formats
// (.heapprofile; isolate-*.log and *.perf.txt through "Open With…") show as a flame graph only.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { HEAP_PPROF } from '../../core/index.ts';
import { showProfileIn } from './flame-view.ts';

export class CpuProfileEditorProvider implements vscode.CustomReadonlyEditorProvider {
  static readonly viewType = 'hotline.cpuprofile';
  /** node --prof logs and perf script text: not the default editor of .log/.txt files, offered in "Open With…". */
  static readonly otherViewType = 'hotline.otherProfile';

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly analyze: (profileFile: string, root: string) => Promise<void>,
  ) {}

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => undefined };
  }

  resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): void {
    const file = document.uri.fsPath;
    const wiring = showProfileIn(
      panel.webview,
      this.extensionUri,
      file,
      (m) => void vscode.window.showErrorMessage(`Hotline: ${m}`),
    );
    panel.onDidDispose(() => wiring.dispose());
    // Only a CPU profile has lines to analyze (a pprof file may be one); the flame graph shows the others.
    const pprof = /\.(pb\.gz|pb|pprof)$/i.test(file);
    if (!file.endsWith('.cpuprofile') && !pprof) return;
    const folder = vscode.workspace.getWorkspaceFolder(document.uri);
    const root = folder?.uri.fsPath ?? path.dirname(file);
    this.analyze(file, root).catch((err: Error) => {
      // A heap pprof has no CPU lines, as a .heapprofile has none: its flame graph is all there is.
      if (pprof && err.message.includes(HEAP_PPROF)) return;
      void vscode.window.showWarningMessage(
        `Hotline: the profile shows as a flame graph, but its lines could not be analyzed: ${err.message}`,
      );
    });
  }
}
