// The thin VS Code client: commands, settings, progress, decorations, the runs view, the webview
// hosts and the language client. It owns the processes a run starts and stops them on
// deactivation. The analysis lives in the language server; the engine in src/core.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import {
  AnalyzeProfileRequest,
  AnalyzeRunRequest,
  ClearRunNotification,
  type OpenReportAtArgs,
  type ShownRunParams,
  ShowRunNotification,
} from '../protocol.ts';
import { PROFILE_FILE, readRun, REPORT_FILE } from '../core/index.ts';
import { startLanguageClient } from './language-client.ts';
import { HeatDecorations } from './decorations.ts';
import { RunController } from './run-controller.ts';
import { pickApp } from './app-picker.ts';
import { pickLoad } from './load-picker.ts';
import { pickAttachTarget } from './attach-picker.ts';
import { readSettings } from './settings.ts';
import { ReportPanel } from './report-panel.ts';
import { FlamePanel } from './flame-view.ts';
import { CpuProfileEditorProvider } from './cpuprofile-editor.ts';
import { pickRun, type RunItem, RunsView } from './runs-view.ts';
import { againstBaseline } from './baseline-summary.ts';
import { flameTitle } from './flame-title.ts';
import { registerHintExplanations } from './hint-explanation.ts';
import { writePprofOffThread } from './flame-merge-host.ts';

const BASELINE = 'hotline.baseline';
const APP_DIRS = 'hotline.appDirs';

let runs: RunController | undefined;
let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('Hotline');
  const decorations = new HeatDecorations();
  runs = new RunController(output);
  const state = context.workspaceState;
  const shownStatus = vscode.window.createStatusBarItem('hotline.shown', vscode.StatusBarAlignment.Left, 9);
  shownStatus.name = 'Hotline shown run';
  shownStatus.command = 'hotline.openShownReport';
  let shownReport: string | undefined;

  const appDirs = (): string[] => [
    ...(vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
    ...state.get<string[]>(APP_DIRS, []).filter((d) => fs.existsSync(d)),
  ];
  const baseline = (): string | undefined => state.get<string>(BASELINE);
  const runsView = new RunsView(appDirs, baseline);
  const treeView = vscode.window.createTreeView('hotline.runs', { treeDataProvider: runsView, showCollapseAll: false });

  context.subscriptions.push(output, decorations, runs, runsView, treeView, shownStatus);

  client = await startLanguageClient(context, output, {
    onDecorations: (p) => decorations.update(p),
    onShownRun: (p: ShownRunParams) => {
      shownReport = p.reportFile;
      if (!p.runId) {
        shownStatus.hide();
        return;
      }
      shownStatus.text = `$(flame) Hotline ${p.runId.slice(9, 15).replace(/(\d\d)(\d\d)(\d\d)/, '$1:$2:$3')}`;
      shownStatus.tooltip =
        p.staleFiles.length > 0
          ? `Costs of this run are shown in the editor. Hidden where the code changed too much: ${p.staleFiles.map((f) => path.basename(f)).join(', ')}`
          : 'Costs of this run are shown in the editor. Click to open its report.';
      shownStatus.show();
    },
  });
  const lc = client;

  const openReport = (
    reportFile: string,
    focus?: { file: string; line: number; functionName?: string },
    preserveFocus = false,
  ): void => {
    try {
      ReportPanel.show(context.extensionUri, reportFile, {
        baselineFile: baseline(),
        focus,
        preserveFocus,
        onFlameGraph: openFlame,
      });
    } catch (err) {
      void vscode.window.showErrorMessage(`Hotline: cannot open the report: ${(err as Error).message}`);
    }
  };
  const openFlame = (reportFile: string): void => {
    void FlamePanel.showRun(context.extensionUri, reportFile, flameTitle(path.basename(path.dirname(reportFile))));
  };
  const showRun = (reportFile: string): void => {
    void lc.sendNotification(ShowRunNotification, { reportFile });
  };

  // The newest run's costs are the ones the editor shows.
  const newest = runsView.runs().items[0];
  if (newest) showRun(newest.reportFile);

  /** attach: profile an app that already runs (attach-picker.ts) instead of starting one. */
  const profileUnderLoad = async (mode: 'launch' | 'attach' = 'launch'): Promise<void> => {
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
    if (runs?.isRunning) {
      // Short enough to read in a toast; the way out is its button.
      void vscode.window
        .showWarningMessage('Hotline: a run is already in progress.', 'Cancel Run')
        .then((c) => c && runs?.cancel());
      return;
    }
    const folder = await pickFolder();
    if (!folder) return;
    const settings = readSettings(folder.uri);
    const attach = mode === 'attach' ? await pickAttachTarget(folder, settings) : undefined;
    if (mode === 'attach' && !attach) return;
    const app = attach ? { cwd: folder.uri.fsPath, entry: '' } : await pickApp(folder, settings, state);
    if (!app) return;
    const load = await pickLoad(settings, state);
    if (!load) return;
    const outcome = await runs!.run(
      { ...app, env: app.env },
      { ...load },
      async (runDir, root) => {
        await lc.sendRequest(AnalyzeRunRequest, { runDir, root });
      },
      {
        attach,
        loadCommand: settings.loadCommand || undefined,
        listenTimeoutS: settings.listenTimeout,
        stopGraceS: settings.stopGracePeriod,
      },
    );
    if (!outcome) return;
    if (!appDirs().includes(outcome.appDir))
      await state.update(APP_DIRS, [...state.get<string[]>(APP_DIRS, []), outcome.appDir]);
    runsView.refresh();
    const reportFile = path.join(outcome.runDir, REPORT_FILE);
    // With a file open, it keeps the focus: its lenses show the run's costs at once.
    openReport(reportFile, undefined, vscode.window.activeTextEditor !== undefined);
    const partial = readPartial(reportFile);
    if (partial)
      void vscode.window
        .showWarningMessage(`Hotline: ${partial}`, 'Show App Output')
        .then((c) => c && output.show(true));
    else {
      const verdict = againstBaseline(reportFile, baseline());
      if (verdict) void vscode.window.showInformationMessage(`Hotline: ${verdict}`);
    }
  };

  // Reports of profiles opened from disk are kept in the extension's storage, not beside them.
  const analyzeProfile = async (profileFile: string, root: string): Promise<void> => {
    const outDir = vscode.Uri.joinPath(
      context.globalStorageUri,
      'profiles',
      path.basename(profileFile).replace(/[^\w.-]/g, '_'),
    ).fsPath;
    await fs.promises.mkdir(outDir, { recursive: true });
    const { pathMap } = readSettings(vscode.Uri.file(profileFile));
    await lc.sendRequest(AnalyzeProfileRequest, { profileFile, root, outDir, pathMap });
  };

  context.subscriptions.push(
    vscode.window.registerCustomEditorProvider(
      CpuProfileEditorProvider.viewType,
      new CpuProfileEditorProvider(context.extensionUri, analyzeProfile),
      {
        supportsMultipleEditorsPerDocument: true,
        webviewOptions: { retainContextWhenHidden: true },
      },
    ),
    vscode.window.registerCustomEditorProvider(
      CpuProfileEditorProvider.otherViewType,
      new CpuProfileEditorProvider(context.extensionUri, analyzeProfile),
      {
        supportsMultipleEditorsPerDocument: true,
        webviewOptions: { retainContextWhenHidden: true },
      },
    ),
    vscode.commands.registerCommand('hotline.profileUnderLoad', () => profileUnderLoad('launch')),
    vscode.commands.registerCommand('hotline.attachAndProfile', () => profileUnderLoad('attach')),
    vscode.commands.registerCommand('hotline.cancelRun', () => runs?.cancel()),
    vscode.commands.registerCommand('hotline.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('hotline.refreshRuns', () => runsView.refresh()),
    vscode.commands.registerCommand('hotline.openShownReport', () => shownReport && openReport(shownReport)),
    vscode.commands.registerCommand('hotline.openReport', (item?: RunItem) => {
      const file = item?.reportFile ?? runsView.runs().items[0]?.reportFile;
      if (!file)
        return void vscode.window.showInformationMessage(
          'Hotline: no runs yet. Run "Hotline: Profile Under Load" first.',
        );
      showRun(file);
      openReport(file);
    }),
    vscode.commands.registerCommand('hotline.openFlameGraph', (item?: RunItem) => {
      const file = item?.reportFile ?? shownReport;
      if (file) openFlame(file);
    }),
    vscode.commands.registerCommand('hotline.openProfileFile', async () => {
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
      FlamePanel.show(context.extensionUri, file, `${path.basename(file)} · ${path.basename(path.dirname(file))}`);
      // As when it is opened from the Explorer: a CPU profile's costs go on the editor's lines.
      if (file.endsWith('.cpuprofile')) {
        const root =
          vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file))?.uri.fsPath ??
          vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ??
          path.dirname(file);
        analyzeProfile(file, root).catch(
          (err: Error) =>
            void vscode.window.showWarningMessage(
              `Hotline: the profile shows as a flame graph, but its lines could not be analyzed: ${err.message}`,
            ),
        );
      }
    }),
    vscode.commands.registerCommand('hotline.openReportAt', (args: OpenReportAtArgs) => {
      if (args && typeof args.reportFile === 'string')
        openReport(args.reportFile, { file: args.file, line: args.line, functionName: args.functionName });
    }),
    ...registerHintExplanations(),
    vscode.commands.registerCommand('hotline.setBaseline', async (from?: RunItem) => {
      const item =
        from ?? (await pickRun(runsView.runs().items, 'The run later runs are compared with (the baseline)'));
      if (!item) return;
      await state.update(BASELINE, item.reportFile);
      runsView.refresh();
      void vscode.window.showInformationMessage(
        `Hotline: run ${item.report.id} is the baseline; later reports show their changes against it.`,
      );
    }),
    vscode.commands.registerCommand('hotline.clearBaseline', async () => {
      await state.update(BASELINE, undefined);
      runsView.refresh();
    }),
    vscode.commands.registerCommand('hotline.compareWithBaseline', async (from?: RunItem) => {
      const base = baseline();
      if (!base)
        return void vscode.window.showInformationMessage(
          'Hotline: set a baseline first (right-click a run → Set as Baseline).',
        );
      const item =
        from ??
        (await pickRun(
          runsView.runs().items.filter((i) => path.resolve(i.reportFile) !== path.resolve(base)),
          'The run to compare with the baseline',
        ));
      if (item) openReport(item.reportFile);
    }),
    vscode.commands.registerCommand('hotline.deleteRun', async (item?: RunItem) => {
      if (!item) return;
      const ok = await vscode.window.showWarningMessage(
        `Delete run ${item.report.id} and its profile?`,
        { modal: true },
        'Delete',
      );
      if (ok !== 'Delete') return;
      await fs.promises.rm(path.dirname(item.reportFile), { recursive: true, force: true });
      if (baseline() === item.reportFile) await state.update(BASELINE, undefined);
      if (shownReport === item.reportFile) {
        void lc.sendNotification(ClearRunNotification);
        decorations.clearAll();
        const next = runsView.runs().items[0];
        if (next) showRun(next.reportFile);
      }
      runsView.refresh();
    }),
    vscode.commands.registerCommand('hotline.exportPprof', async (item?: RunItem) => {
      const run = item ?? (await pickRun(runsView.runs().items, 'The run to export as pprof'));
      if (!run) return;
      const target = await vscode.window.showSaveDialog({
        defaultUri: vscode.Uri.file(path.join(path.dirname(path.dirname(run.reportFile)), `${run.report.id}.pb.gz`)),
        filters: { pprof: ['gz'] },
        title: 'Export the run’s CPU profile as pprof (for Pyroscope, Parca, Datadog)',
      });
      if (!target) return;
      try {
        await writePprofOffThread(
          context.extensionUri,
          path.join(path.dirname(run.reportFile), PROFILE_FILE),
          target.fsPath,
        );
        void vscode.window.showInformationMessage(`Hotline: wrote ${target.fsPath} (pprof).`);
      } catch (err) {
        void vscode.window.showErrorMessage(`Hotline: could not export the run as pprof: ${(err as Error).message}`);
      }
    }),
    vscode.commands.registerCommand('hotline.clearAnnotations', () => {
      void lc.sendNotification(ClearRunNotification);
      decorations.clearAll();
    }),
  );
}

export async function deactivate(): Promise<void> {
  // A run in progress: stop its app and load before the extension host goes away.
  await runs?.stop();
  FlamePanel.disposeAll();
  ReportPanel.disposeCurrent();
  await client?.stop();
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
