// speedscope in a webview: the flame graph of a run's profiles (a panel per profile: the main
// thread, each worker thread, the allocations) or of any profile opened from the explorer or the
// "Open Profile in Flame Graph…" command (.cpuprofile, .heapprofile, `node --prof` logs, `perf
// script` text; see core/profile-files/formats.ts). The page loads speedscope from the extension's own
// files; after `ready` the page is told the profile's webview resource URL and fetches it (a
// converted --prof log is posted as bytes: it exists only in memory).
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { flameSource } from '../../core/index.ts';
import { runProfiles } from './run-profiles.ts';
import { readSettings } from '../settings.ts';
import { flameHtml } from '../../../webview/flame/html.ts';
import { parseFromFlameView, type ToFlameView } from '../../protocol.ts';
import { PROFILE_FILE } from '../../core/index.ts';
import { nonce } from '../views/webview-html.ts';
import { MERGE_ABOVE_BYTES, mergedCopyPath } from './flame-merge-file.ts';
import { writeCutProfileOffThread, writeMergedCopyOffThread } from './flame-merge-host.ts';

/** Wires a webview (panel or custom editor) to show one profile file. */
export function showProfileIn(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  profileFile: string,
  onError: (message: string) => void,
): vscode.Disposable {
  const speedscope = vscode.Uri.joinPath(extensionUri, 'dist', 'speedscope');
  const dist = vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
  // The profile's own folder too: the page fetches the file itself (see the `ready` case). A big
  // .cpuprofile is shown from its merged copy (extension/flame/flame-merge.ts), whose own folder is allowed.
  const profileDir = vscode.Uri.file(path.dirname(profileFile));
  const merged = bigEnoughToMerge(profileFile);
  const roots = [speedscope, dist, profileDir];
  if (merged) roots.push(vscode.Uri.file(path.dirname(merged)));
  webview.options = { enableScripts: true, localResourceRoots: roots };
  const urlOf = (file: string): string => webview.asWebviewUri(vscode.Uri.file(file)).toString();
  let mergedShown = false;
  // The merge runs while the page loads speedscope; it starts at once for a .cpuprofile by name.
  let mergeJob: Promise<void> | undefined;
  const merge = (): Promise<void> =>
    (mergeJob ??= writeMergedCopyOffThread(
      extensionUri,
      profileFile,
      merged as string,
      `${path.basename(profileFile)} (stacks merged)`,
    ));
  if (merged && profileFile.endsWith('.cpuprofile')) merge().catch(() => undefined); // awaited, and reported, at `ready`
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
        let source: Awaited<ReturnType<typeof flameSource>>;
        try {
          // A --prof log is converted with the app's node (hotline.nodePath), else node on PATH.
          source = await flameSource(profileFile, {
            nodePath: readSettings(vscode.Uri.file(profileFile)).nodePath || undefined,
          });
        } catch (err) {
          onError((err as Error).message);
          return;
        }
        if (source.format === 'cpuprofile' && merged) {
          try {
            await merge();
            mergedShown = true;
            void webview.postMessage({
              type: 'profile',
              name: path.basename(merged),
              url: urlOf(merged),
            } satisfies ToFlameView);
            return;
          } catch (err) {
            // The original still shows, only slower.
            console.warn(`Hotline: showing ${profileFile} unmerged: ${(err as Error).message}`);
          }
        }
        // A URL, not the bytes: VS Code serves the file to the page, which fetches it as a Blob.
        // Posting a 100 MB profile as base64 copied 133 MB through the extension host, the
        // workbench and the page, then decoded it on the page's thread.
        const message: ToFlameView = source.converted
          ? { type: 'profile', name: source.name, base64: source.converted.toString('base64') }
          : { type: 'profile', name: source.name, url: urlOf(profileFile) };
        void webview.postMessage(message);
        return;
      }
      case 'loaded':
        if (mergedShown) {
          mergedShown = false;
          // Only Time Order differs from the original: offer it (speedscope takes long over it).
          const timeOrder = 'Show Samples in Time Order';
          void vscode.window
            .showInformationMessage(
              `Hotline: ${path.basename(profileFile)} is big, so the flame graph shows each distinct stack once (Left Heavy and Sandwich are exact; Time Order is not in time order).`,
              timeOrder,
            )
            .then((picked) => {
              if (picked !== timeOrder) return;
              try {
                void webview.postMessage({
                  type: 'profile',
                  name: path.basename(profileFile),
                  url: urlOf(profileFile),
                } satisfies ToFlameView);
              } catch {
                // The flame graph was closed meanwhile.
              }
            });
        }
        return;
      case 'error':
        onError(`The flame graph could not show ${path.basename(profileFile)}: ${msg.message}`);
        return;
    }
  });
}

/** The merged copy's path when `file` is big enough to be shown merged, else undefined. */
function bigEnoughToMerge(file: string): string | undefined {
  try {
    const stat = fs.statSync(file);
    return stat.size >= MERGE_ABOVE_BYTES ? mergedCopyPath(file, stat) : undefined;
  } catch {
    return undefined; // flameSource reports an unreadable file
  }
}

export class FlamePanel {
  private static readonly open = new Map<string, vscode.WebviewPanel>();

  static show(extensionUri: vscode.Uri, profileFile: string, title: string): void {
    const existing = FlamePanel.open.get(profileFile);
    if (existing) {
      existing.reveal();
      return;
    }
    const panel = vscode.window.createWebviewPanel('hotline.flame', title, vscode.ViewColumn.Active, {
      enableScripts: true,
      retainContextWhenHidden: true,
      localResourceRoots: [],
    });
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'hotline.svg');
    const wiring = showProfileIn(
      panel.webview,
      extensionUri,
      profileFile,
      (m) => void vscode.window.showErrorMessage(`Hotline: ${m}`),
    );
    FlamePanel.open.set(profileFile, panel);
    panel.onDidDispose(() => {
      wiring.dispose();
      FlamePanel.open.delete(profileFile);
    });
  }

  /**
   * The flame graph of a run: the main thread's profile, or, when the run has more (worker
   * threads, allocations), the one picked from a list.
   */
  static async showRun(extensionUri: vscode.Uri, reportFile: string, title: string): Promise<void> {
    const choices = runProfiles(reportFile);
    let choice = choices[0];
    if (choices.length > 1) {
      const picked = await vscode.window.showQuickPick(choices, {
        title: `${title}: which profile?`,
        placeHolder: 'Each thread has its own profile; Allocations is the heap sampling of the main thread',
      });
      if (!picked) return;
      choice = picked;
    }
    FlamePanel.show(extensionUri, choice.file, choice === choices[0] ? title : `${title} · ${choice.label}`);
  }

  static disposeAll(): void {
    for (const p of FlamePanel.open.values()) p.dispose();
  }
}

/**
 * The flame graph of a run's profile cut to [startMs, endMs) (the report's heat map selection).
 * The cut is written into the run folder first (range-<start>-<end>ms.cpuprofile), then shown.
 */
export async function showProfileRange(
  extensionUri: vscode.Uri,
  runDir: string,
  startMs: number,
  endMs: number,
  title: string,
): Promise<void> {
  const from = Math.round(startMs);
  const to = Math.round(endMs);
  const file = path.join(runDir, `range-${from}-${to}ms.cpuprofile`);
  try {
    if (!fs.existsSync(file))
      await writeCutProfileOffThread(extensionUri, path.join(runDir, PROFILE_FILE), file, from, to);
  } catch (err) {
    void vscode.window.showErrorMessage(
      `Hotline: cannot cut the profile of ${runDir} to ${from}–${to} ms: ${(err as Error).message}`,
    );
    return;
  }
  FlamePanel.show(extensionUri, file, `${title} \u00b7 ${(from / 1000).toFixed(2)}\u2013${(to / 1000).toFixed(2)} s`);
}
