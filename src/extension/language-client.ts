// Starts the language server (dist/server.js, its own process) that holds the analysis and
// serves the lenses, hovers and diagnostics; forwards its decoration and status messages.
import * as vscode from 'vscode';
import {
  LanguageClient,
  TransportKind,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import {
  DecorationsNotification,
  ShownRunNotification,
  type DecorationsParams,
  type InitializationOptions,
  type OpenReportAtArgs,
  type ShownRunParams,
} from '../protocol.ts';
import { readSettings } from './settings.ts';

export interface ClientEvents {
  onDecorations(p: DecorationsParams): void;
  onShownRun(p: ShownRunParams): void;
}

export async function startLanguageClient(
  context: vscode.ExtensionContext,
  output: vscode.OutputChannel,
  events: ClientEvents,
): Promise<LanguageClient> {
  const module = vscode.Uri.joinPath(context.extensionUri, 'dist', 'server.js').fsPath;
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy'] } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'javascript' },
      { scheme: 'file', language: 'javascriptreact' },
      { scheme: 'file', language: 'typescript' },
      { scheme: 'file', language: 'typescriptreact' },
    ],
    outputChannel: output,
    // This client picks the shown run and runs the lens commands (the server finds runs itself for other editors).
    initializationOptions: { client: 'vscode' } satisfies InitializationOptions,
    // Saved changes to files that are not open re-check their costs and diagnostics.
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/*.{js,cjs,mjs,jsx,ts,cts,mts,tsx}') },
    middleware: {
      // The lenses can be switched off without restarting the server.
      provideCodeLenses: async (document, token, next) => {
        const settings = readSettings(document.uri);
        if (!settings.codeLens) return [];
        const lenses = await next(document, token);
        if (settings.heapLens || !lenses) return lenses;
        return lenses.filter(
          (l) => (l.command?.arguments?.[0] as OpenReportAtArgs | undefined)?.kind !== 'allocations',
        );
      },
    },
  };
  const client = new LanguageClient('hotline', 'Hotline', serverOptions, clientOptions);
  await client.start();
  context.subscriptions.push(
    client.onNotification(DecorationsNotification, (p) => events.onDecorations(p)),
    client.onNotification(ShownRunNotification, (p) => events.onShownRun(p)),
  );
  return client;
}
