// Opening a file at a line on behalf of a webview or a lens: only files inside an open
// workspace folder, so no message can reach anything else on disk.
// The path check itself is plain Node: workspace-paths.ts.
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { isInWorkspace } from './workspace-paths.ts';

/** `avoid`: the column of the webview asking (the code opens beside it, never over it). */
export async function openInWorkspace(file: string, line: number, avoid?: vscode.ViewColumn): Promise<void> {
  const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  if (!isInWorkspace(file, folders) || !fs.existsSync(file)) {
    void vscode.window.showWarningMessage(`Hotline: ${file} is not a file of this workspace, so it is not opened.`);
    return;
  }
  // Open what was checked: the real path, so a symlink swapped in meanwhile cannot lead outside.
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(fs.realpathSync(file)));
  const at = new vscode.Position(Math.max(0, Math.min(line - 1, doc.lineCount - 1)), 0);
  await vscode.window.showTextDocument(doc, {
    selection: new vscode.Range(at, at),
    viewColumn: avoid === vscode.ViewColumn.One ? vscode.ViewColumn.Beside : vscode.ViewColumn.One,
    preview: false,
  });
}
