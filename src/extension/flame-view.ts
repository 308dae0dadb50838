// speedscope in a webview: the flame graph of a run's profile (a panel) or of any .cpuprofile
// opened from the explorer (the custom editor). The page loads speedscope from the extension's
// own files; after `ready` the page is told the profile's webview resource URL and fetches it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { flameHtml } from '../../webview/flame/html.ts';
import { parseFromFlameView, type ToFlameView } from '../protocol.ts';
import { nonce } from './webview-html.ts';

/** Wires a webview (panel or custom editor) to show one profile file. */
export function showProfileIn(webview: vscode.Webview, extensionUri: vscode.Uri, profileFile: string, onError: (message: string) => void): vscode.Disposable {
  const speedscope = vscode.Uri.joinPath(extensionUri, 'dist', 'speedscope');
  const dist = vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
  // The profile's own folder too: the page fetches the file itself (see the `ready` case).
  const profileDir = vscode.Uri.file(path.dirname(profileFile));
  webview.options = { enableScripts: true, localResourceRoots: [speedscope, dist, profileDir] };
  webview.html = flameHtml({
    cspSource: webview.cspSource,
    nonce: nonce(),
    speedscopeBase: `${webview.asWebviewUri(speedscope).toString()}/`,
    glueScript: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'flame.js')).toString(),
    title: path.basename(profileFile),
  });
  return webview.onDidReceiveMessage(async (raw) => {
    const msg = parseFromFlameView(raw);
    if (!msg) return;
    switch (msg.type) {
      case 'ready': {
        try {
          await fs.promises.access(profileFile, fs.constants.R_OK);
        } catch (err) {
          onError(`Cannot read ${profileFile}: ${(err as Error).message}`);
          return;
        }
        // A URL, not the bytes: VS Code serves the file to the page, which fetches it as a Blob.
        // Posting a 100 MB profile as base64 copied 133 MB through the extension host, the
        // workbench and the page, then decoded it on the page's thread.
        const message: ToFlameView = { type: 'profile', name: path.basename(profileFile), url: webview.asWebviewUri(vscode.Uri.file(profileFile)).toString() };
        void webview.postMessage(message);
        return;
      }
      case 'loaded':
        return;
      case 'error':
        onError(`The flame graph could not show ${path.basename(profileFile)}: ${msg.message}`);
        return;
    }
  });
}

export class FlamePanel {
  private static readonly open = new Map<string, vscode.WebviewPanel>();

  static show(extensionUri: vscode.Uri, profileFile: string, title: string): void {
    const existing = FlamePanel.open.get(profileFile);
    if (existing) {
      existing.reveal();
      return;
    }
    const panel = vscode.window.createWebviewPanel('hotline.flame', title, vscode.ViewColumn.Active, { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [] });
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'hotline.svg');
    const wiring = showProfileIn(panel.webview, extensionUri, profileFile, (m) => void vscode.window.showErrorMessage(`Hotline: ${m}`));
    FlamePanel.open.set(profileFile, panel);
    panel.onDidDispose(() => {
      wiring.dispose();
      FlamePanel.open.delete(profileFile);
    });
  }

  static disposeAll(): void {
    for (const p of FlamePanel.open.values()) p.dispose();
  }
}
