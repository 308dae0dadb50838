// Every command of package.json's contributes.commands but hotline.explainHint
// (hint-explanation.ts), by id, registered with the shared state in hand.
import * as vscode from 'vscode';
import type { Command, Hotline } from './command-context.ts';
import { profileCommands } from './start-run.ts';
import { profileFileCommands } from './profile-file.ts';
import { reportCommands } from './reports.ts';
import { runsCommands } from './manage-runs.ts';

export const COMMANDS: Record<string, Command> = {
  ...profileCommands,
  ...reportCommands,
  ...profileFileCommands,
  ...runsCommands,
};

export function registerCommands(h: Hotline): vscode.Disposable[] {
  return Object.entries(COMMANDS).map(([id, handler]) =>
    vscode.commands.registerCommand(id, (arg: never) => handler(h, arg)),
  );
}
