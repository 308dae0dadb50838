// What clients without Hotline's UI get besides lenses: the commands the server executes itself
// (workspace/executeCommand: pick or clear the shown run, the lens and hint actions, whose answer
// is a plain-text message every editor shows), and the lenses' texts as inlay hints at the end of
// their lines, for editors that show hints but no lenses (Helix, Zed, Emacs' eglot).
import * as path from 'node:path';
import {
  MessageType,
  ShowMessageNotification,
  type Connection,
  type ExecuteCommandParams,
  type InlayHint,
} from 'vscode-languageserver/node';
import {
  ClearRunCommand,
  ExplainHintCommand,
  LineDetailsCommand,
  ShowRunCommand,
  type OpenReportAtArgs,
} from '../protocol.ts';
import { isExplainArgs, plainText } from './hint-diagnostics.ts';
import { where } from './lens-text.ts';
import type { LensItem } from './file-view.ts';
import type { ShownRuns } from './shown-runs.ts';
import type { WorkspaceRuns } from './workspace-runs.ts';

export const STANDALONE_COMMANDS = [ShowRunCommand, ClearRunCommand, LineDetailsCommand, ExplainHintCommand] as const;

/** A standalone lens's arguments: the VS Code lens's, with the lens's own text. */
export type LineDetailsArgs = OpenReportAtArgs & { title: string };

export interface CommandContext {
  connection: Connection;
  shown: ShownRuns;
  workspace: WorkspaceRuns;
}

/** Runs one command; throws an Error whose message says what was wrong with it. */
export function executeStandalone(params: ExecuteCommandParams, ctx: CommandContext): unknown {
  const arg: unknown = params.arguments?.[0];
  switch (params.command) {
    case ShowRunCommand: {
      if (typeof arg !== 'string' || arg === '')
        throw new Error(`${ShowRunCommand} takes a run folder (or its report.json)`);
      const run = ctx.workspace.pick(arg);
      return { runId: run.report.id, reportFile: run.reportFile };
    }
    case ClearRunCommand:
      ctx.shown.clearAll();
      return null;
    case LineDetailsCommand:
      if (!isLineDetailsArgs(arg)) throw new Error(`${LineDetailsCommand} takes a lens's arguments`);
      inform(ctx.connection, lineDetails(arg, ctx.shown));
      return null;
    case ExplainHintCommand:
      if (!isExplainArgs(arg)) throw new Error(`${ExplainHintCommand} takes a hint diagnostic's data`);
      inform(
        ctx.connection,
        `Hotline: ${arg.api} runs on the event loop: no other request is served meanwhile. ${plainText(arg.fix)}`,
      );
      return null;
    default:
      throw new Error(`unknown command ${params.command} (${STANDALONE_COMMANDS.join(', ')})`);
  }
}

/** `server.js:35 in checkPassword: 2.1 s · 95% of a core · blocks the event loop. Fix: … (report: …)` */
function lineDetails(args: LineDetailsArgs, shown: ShownRuns): string {
  const s = shown.byReport(args.reportFile);
  const root = s?.index.context.root ?? path.dirname(args.file);
  const fn = args.functionName ? ` in ${args.functionName}` : '';
  const hints = s?.index.costsOf(args.file)?.hints.filter((h) => h.line === args.line) ?? [];
  const fixes = hints.map((h) => ` Fix: ${plainText(h.fix)}`).join('');
  return `Hotline: ${where(args.file, args.line, root)}${fn}: ${args.title}.${fixes} (report: ${args.reportFile})`;
}

function inform(connection: Connection, message: string): void {
  void connection.sendNotification(ShowMessageNotification.type, { type: MessageType.Info, message });
}

const isLineDetailsArgs = (v: unknown): v is LineDetailsArgs =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as LineDetailsArgs).reportFile === 'string' &&
  typeof (v as LineDetailsArgs).file === 'string' &&
  typeof (v as LineDetailsArgs).title === 'string' &&
  Number.isInteger((v as LineDetailsArgs).line);

/** One hint per line with lenses, after its text, in the 0-based lines [first, last]: `■ 40 ms/request · 95% of a core …`. */
export function inlayHintsOf(items: LensItem[], lines: string[], first: number, last: number): InlayHint[] {
  const byLine = new Map<number, string[]>();
  for (const item of items)
    if (item.line0 >= first && item.line0 <= last)
      byLine.set(item.line0, [...(byLine.get(item.line0) ?? []), item.title]);
  return [...byLine].map(([line0, titles]) => ({
    position: { line: line0, character: (lines[line0] ?? '').length },
    label: `■ ${titles.join(' | ')}`,
    paddingLeft: true,
  }));
}
