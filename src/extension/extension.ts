// The thin VS Code client: commands, settings, progress, decorations, the runs view, the webview
// hosts and the language client. It owns the processes a run starts and stops them on
// deactivation. The analysis lives in the language server; the engine in src/core. activate()
// only wires: the shared state (commands/command-context.ts), the views, the client, the commands.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { startLanguageClient } from './language-client.ts';
import { HeatDecorations } from './views/decorations.ts';
import { RunController } from './runs/run-controller.ts';
import { ReportPanel } from './views/report-panel.ts';
import { FlamePanel } from './flame/flame-view.ts';
import { RunsView } from './views/runs-view.ts';
import { ShownRunStatus } from './views/shown-run.ts';
import { registerHintExplanations } from './views/hint-explanation.ts';
import { appDirsOf, baselineOf, type Hotline } from './commands/command-context.ts';
import { registerCommands } from './commands/table.ts';
import { registerProfileEditors } from './commands/profile-file.ts';
import { showRun } from './commands/reports.ts';
import { registerAssistantTools } from './assistant-tools.ts';

let runs: RunController | undefined;
let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const state = context.workspaceState;
  const output = vscode.window.createOutputChannel('Hotline');
  const decorations = new HeatDecorations();
  const shown = new ShownRunStatus();
  runs = new RunController(output);
  const runsView = new RunsView(
    () => appDirsOf(state),
    () => baselineOf(state),
  );
  const treeView = vscode.window.createTreeView('hotline.runs', { treeDataProvider: runsView, showCollapseAll: false });
  context.subscriptions.push(output, decorations, runs, runsView, treeView, shown);

  client = await startLanguageClient(context, output, {
    onDecorations: (p) => decorations.update(p),
    onShownRun: (p) => shown.update(p),
  });
  const h: Hotline = {
    extensionUri: context.extensionUri,
    globalStorageUri: context.globalStorageUri,
    state,
    output,
    decorations,
    runs,
    runsView,
    shown,
    client,
  };

  // The newest run's costs are the ones the editor shows.
  const newest = runsView.runs().items[0];
  if (newest) showRun(h, newest.reportFile);

  context.subscriptions.push(...registerProfileEditors(h), ...registerCommands(h), ...registerHintExplanations());
  // An assistant's run shows in the editor as the user's own would: its costs on the lines.
  context.subscriptions.push(
    ...registerAssistantTools(context, () => {
      runsView.refresh();
      const run = runsView.runs().items[0];
      if (run) showRun(h, run.reportFile);
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
