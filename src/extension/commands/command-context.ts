// What the commands share, passed to each explicitly: the extension's places, its output, the
// run in progress, the runs view, the shown run and the language client. The workspace state
// keeps the baseline and the app folders profiled outside the workspace folders.
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { HeatDecorations } from '../views/decorations.ts';
import type { RunController } from '../runs/run-controller.ts';
import type { RunsView } from '../views/runs-view.ts';
import type { ShownRunStatus } from '../views/shown-run.ts';

export interface Hotline {
  extensionUri: vscode.Uri;
  /** Where reports of profiles opened from disk are kept. */
  globalStorageUri: vscode.Uri;
  state: vscode.Memento;
  output: vscode.OutputChannel;
  decorations: HeatDecorations;
  runs: RunController;
  runsView: RunsView;
  shown: ShownRunStatus;
  client: LanguageClient;
}

/** A command: its handler, given the shared state and the command's argument, if any. */
export type Command = (h: Hotline, arg: never) => unknown;

export const BASELINE = 'hotline.baseline';
export const APP_DIRS = 'hotline.appDirs';

export function baselineOf(state: vscode.Memento): string | undefined {
  return state.get<string>(BASELINE);
}

/** The workspace folders, and the app folders profiled outside them that still exist. */
export function appDirsOf(state: vscode.Memento): string[] {
  return [
    ...(vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
    ...state.get<string[]>(APP_DIRS, []).filter((d) => fs.existsSync(d)),
  ];
}
