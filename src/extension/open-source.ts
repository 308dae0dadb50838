// Opening a file at a line on behalf of a webview or a lens: only files inside an open
// workspace folder, so no message can reach anything else on disk.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

export function isInWorkspace(file: string): boolean {
  if (!path.isAbsolute(file)) return false;
  const resolved = path.resolve(file);
  return (vscode.workspace.workspaceFolders ?? []).some((f) => {
    const rel = path.relative(f.uri.fsPath, resolved);
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  });
}

export async function openInWorkspace(file: string, line: number): Promise<void> {
  if (!isInWorkspace(file) || !fs.existsSync(file)) {
    void vscode.window.showWarningMessage(`Hotline: ${file} is not a file of this workspace, so it is not opened.`);
    return;
  }
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  const at = new vscode.Position(Math.max(0, Math.min(line - 1, doc.lineCount - 1)), 0);
  await vscode.window.showTextDocument(doc, { selection: new vscode.Range(at, at), viewColumn: vscode.ViewColumn.One, preview: false });
}
