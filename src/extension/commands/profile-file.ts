// Profiles opened from disk: as a flame graph (any format core/profile-files reads), and a CPU
// profile's costs on the editor's lines, from the "Open Profile" command or the custom editors.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { AnalyzeProfileRequest } from '../../protocol.ts';
import { readSettings } from '../settings.ts';
import { FlamePanel } from '../flame/flame-view.ts';
import { CpuProfileEditorProvider } from '../flame/cpuprofile-editor.ts';
import type { Command, Hotline } from './command-context.ts';

// Reports of profiles opened from disk are kept in the extension's storage, not beside them.
async function analyzeProfile(h: Hotline, profileFile: string, root: string): Promise<void> {
  const outDir = vscode.Uri.joinPath(
    h.globalStorageUri,
    'profiles',
    path.basename(profileFile).replace(/[^\w.-]/g, '_'),
  ).fsPath;
  await fs.promises.mkdir(outDir, { recursive: true });
  const { pathMap } = readSettings(vscode.Uri.file(profileFile));
  await h.client.sendRequest(AnalyzeProfileRequest, { profileFile, root, outDir, pathMap });
}

/** The editors of .cpuprofile files (and of the other formats, on request). */
export function registerProfileEditors(h: Hotline): vscode.Disposable[] {
  const analyze = (profileFile: string, root: string): Promise<void> => analyzeProfile(h, profileFile, root);
  return [CpuProfileEditorProvider.viewType, CpuProfileEditorProvider.otherViewType].map((viewType) =>
    vscode.window.registerCustomEditorProvider(viewType, new CpuProfileEditorProvider(h.extensionUri, analyze), {
      supportsMultipleEditorsPerDocument: true,
      webviewOptions: { retainContextWhenHidden: true },
    }),
  );
}

async function openProfileFile(h: Hotline): Promise<void> {
  const picked = await vscode.window.showOpenDialog({
    title: 'Hotline: Open Profile in Flame Graph',
    canSelectMany: false,
    filters: {
      Profiles: ['cpuprofile', 'heapprofile', 'gz', 'pb', 'pprof', 'log', 'json', 'txt', 'perf'],
      'All files': ['*'],
    },
  });
  const file = picked?.[0]?.fsPath;
  if (!file) return;
  // Titled by its folder too: every run's profile is called profile.cpuprofile.
  FlamePanel.show(h.extensionUri, file, `${path.basename(file)} · ${path.basename(path.dirname(file))}`);
  // As when it is opened from the Explorer: a CPU profile's costs go on the editor's lines.
  if (file.endsWith('.cpuprofile')) {
    const root =
      vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file))?.uri.fsPath ??
      vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ??
      path.dirname(file);
    analyzeProfile(h, file, root).catch(
      (err: Error) =>
        void vscode.window.showWarningMessage(
          `Hotline: the profile shows as a flame graph, but its lines could not be analyzed: ${err.message}`,
        ),
    );
  }
}

export const profileFileCommands: Record<string, Command> = {
  'hotline.openProfileFile': (h) => openProfileFile(h),
};
