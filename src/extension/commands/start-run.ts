// "Profile Under Load" and "Attach and Profile": the questions (folder, app or target, load),
// one run with progress (run-controller.ts), analyzed by the language server, then its report
// and how it went against the baseline.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { AnalyzeRunRequest } from '../../protocol.ts';
import { readRun, REPORT_FILE } from '../../core/index.ts';
import { pickApp } from '../runs/app-picker.ts';
import { pickLoad } from '../runs/load-picker.ts';
import { pickAttachTarget } from '../runs/attach-picker.ts';
import { readSettings } from '../settings.ts';
import { againstBaseline } from '../runs/baseline-summary.ts';
import { APP_DIRS, appDirsOf, baselineOf, type Command, type Hotline } from './command-context.ts';
import { openReport } from './reports.ts';

/** attach: profile an app that already runs (attach-picker.ts) instead of starting one. */
async function profileUnderLoad(h: Hotline, mode: 'launch' | 'attach' = 'launch'): Promise<void> {
  if (!vscode.workspace.isTrusted) {
    const choice = await vscode.window.showWarningMessage(
      mode === 'attach'
        ? 'Attaching runs code inside your app through its inspector. This workspace is in Restricted Mode, so Hotline will not attach. Trust the workspace to profile it; reports and .cpuprofile files can still be viewed.'
        : 'Hotline starts your app with node, which runs its code. This workspace is in Restricted Mode, so Hotline will not start it. Trust the workspace to profile it; reports and .cpuprofile files can still be viewed.',
      'Manage Workspace Trust',
    );
    if (choice) void vscode.commands.executeCommand('workbench.trust.manage');
    return;
  }
  // Refuse before any question: the answers would be thrown away.
  if (h.runs.isRunning) {
    // Short enough to read in a toast; the way out is its button.
    void vscode.window
      .showWarningMessage('Hotline: a run is already in progress.', 'Cancel Run')
      .then((c) => c && h.runs.cancel());
    return;
  }
  const folder = await pickFolder();
  if (!folder) return;
  const settings = readSettings(folder.uri);
  const attach = mode === 'attach' ? await pickAttachTarget(folder, settings) : undefined;
  if (mode === 'attach' && !attach) return;
  const app = attach ? { cwd: folder.uri.fsPath, entry: '' } : await pickApp(folder, settings, h.state);
  if (!app) return;
  const load = await pickLoad(settings, h.state, folder.uri.fsPath);
  if (!load) return;
  const outcome = await h.runs.run(
    { ...app, env: app.env },
    { ...load },
    async (runDir, root) => {
      await h.client.sendRequest(AnalyzeRunRequest, { runDir, root });
    },
    {
      attach,
      loadCommand: settings.loadCommand || undefined,
      listenTimeoutS: settings.listenTimeout,
      stopGraceS: settings.stopGracePeriod,
    },
  );
  if (!outcome) return;
  if (!appDirsOf(h.state).includes(outcome.appDir))
    await h.state.update(APP_DIRS, [...h.state.get<string[]>(APP_DIRS, []), outcome.appDir]);
  h.runsView.refresh();
  const reportFile = path.join(outcome.runDir, REPORT_FILE);
  // With a file open, it keeps the focus: its lenses show the run's costs at once.
  openReport(h, reportFile, undefined, vscode.window.activeTextEditor !== undefined);
  const partial = readPartial(reportFile);
  if (partial)
    void vscode.window
      .showWarningMessage(`Hotline: ${partial}`, 'Show App Output')
      .then((c) => c && h.output.show(true));
  else {
    const verdict = againstBaseline(reportFile, baselineOf(h.state));
    if (verdict) void vscode.window.showInformationMessage(`Hotline: ${verdict}`);
  }
}

/** Why a run's report covers only part of the run, if it does. */
function readPartial(reportFile: string): string | undefined {
  try {
    return readRun(reportFile).report.partial?.reason;
  } catch {
    return undefined;
  }
}

async function pickFolder(): Promise<vscode.WorkspaceFolder | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length === 0) {
    void vscode.window.showWarningMessage('Hotline: open the folder of your Node app first.');
    return undefined;
  }
  if (folders.length === 1) return folders[0];
  const active = vscode.window.activeTextEditor?.document.uri;
  const fromEditor = active ? vscode.workspace.getWorkspaceFolder(active) : undefined;
  return fromEditor ?? vscode.window.showWorkspaceFolderPick({ placeHolder: 'Which app folder to profile?' });
}

export const profileCommands: Record<string, Command> = {
  'hotline.profileUnderLoad': (h) => profileUnderLoad(h, 'launch'),
  'hotline.attachAndProfile': (h) => profileUnderLoad(h, 'attach'),
  'hotline.cancelRun': (h) => h.runs.cancel(),
  'hotline.showOutput': (h) => h.output.show(true),
};
