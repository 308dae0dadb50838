// The Hotline language server: holds the shown runs and turns them into CodeLens, hovers,
// diagnostics, code actions and heat decorations, off the editor's thread (like vscode-eslint's
// server). Plain Node and vscode-languageserver: no `vscode` here. Two kinds of client:
// - the Hotline VS Code extension (initializationOptions { client: 'vscode' }), which picks the
//   run and runs the lens commands. Messages (src/protocol.ts): client → server AnalyzeRun,
//   AnalyzeProfile (requests), ShowRun, ClearRun (notifications); server → client Decorations,
//   ShownRun (notifications).
// - any other LSP client (`hotline lsp`): the server shows each workspace folder's newest run
//   itself (workspace-runs.ts) and executes its own commands (standalone-commands.ts).
import {
  CodeActionKind,
  ErrorCodes,
  LSPErrorCodes,
  ResponseError,
  TextDocumentSyncKind,
  TextDocuments,
  type CodeAction,
  type CodeLens,
  type Connection,
  type Hover,
  type InlayHint,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import {
  AnalyzeProfileRequest,
  AnalyzeRunRequest,
  ClearRunNotification,
  DiagnosticSource,
  ExplainHintCommand,
  LineDetailsCommand,
  OpenReportAtCommand,
  ShowRunNotification,
  type ExplainHintArgs,
  type InitializationOptions,
} from '../protocol.ts';
import { hoverOf, lensesOf } from './file-view.ts';
import { isExplainArgs } from './hint-diagnostics.ts';
import { asyncFixOf } from './async-fix.ts';
import { RunLoadError, analyzeProfile, analyzeRun, loadRun, removeTempDirs, type LoadedRun } from './runs.ts';
import { ShownRuns } from './shown-runs.ts';
import { WorkspaceRuns, foldersOf, rootsOf } from './workspace-runs.ts';
import { STANDALONE_COMMANDS, executeStandalone, inlayHintsOf } from './standalone-commands.ts';

/** The VS Code client's one slot: the run it picked. */
const CLIENT_SLOT = '';

export function startServer(connection: Connection): void {
  const documents = new TextDocuments(TextDocument);
  let shown: ShownRuns | undefined;
  let workspace: WorkspaceRuns | undefined;
  let roots: string[] = [];
  /** The client tells of workspace folders added and removed (workspace/didChangeWorkspaceFolders). */
  let folderEvents = false;
  const log = (message: string): void => connection.console.info(`Hotline: ${message}`);
  const runs = (): ShownRuns => {
    if (!shown) throw new ResponseError(ErrorCodes.ServerNotInitialized, 'Hotline: not initialized');
    return shown;
  };

  function failed(err: unknown): ResponseError<void> {
    const message = err instanceof Error ? err.message : String(err);
    connection.console.error(`Hotline: ${message}`);
    return new ResponseError(LSPErrorCodes.RequestFailed, message);
  }

  // ---- lifecycle ---------------------------------------------------------------------------------

  connection.onInitialize((params) => {
    const vscode = (params.initializationOptions as InitializationOptions | undefined)?.client === 'vscode';
    shown = new ShownRuns(connection, documents, {
      vscode,
      codeLensRefresh: params.capabilities.workspace?.codeLens?.refreshSupport === true,
      inlayHintRefresh: params.capabilities.workspace?.inlayHint?.refreshSupport === true,
    });
    if (!vscode) {
      workspace = new WorkspaceRuns(shown, log);
      roots = rootsOf(params);
      folderEvents = params.capabilities.workspace?.workspaceFolders === true;
    }
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        codeLensProvider: { resolveProvider: false },
        hoverProvider: true,
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
        // The VS Code client registers these names as its own commands: only other clients get them.
        // VS Code draws its own after-text (decorations); editors without lenses (Helix, Zed, Emacs) show these hints.
        ...(vscode
          ? {}
          : {
              executeCommandProvider: { commands: [...STANDALONE_COMMANDS] },
              inlayHintProvider: true,
              workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
            }),
      },
      serverInfo: { name: 'hotline' },
    };
  });

  // Notifications may flow from here on: the runs found now are shown.
  connection.onInitialized(() => {
    if (!workspace) return;
    workspace.start(roots);
    const runs = workspace;
    if (folderEvents)
      connection.workspace.onDidChangeWorkspaceFolders((e) =>
        runs.changeFolders(foldersOf(e.added.map((f) => f.uri)), foldersOf(e.removed.map((f) => f.uri))),
      );
  });

  connection.onShutdown(() => {
    workspace?.dispose();
    removeTempDirs();
  });
  process.on('exit', removeTempDirs);

  // ---- the shown run (the VS Code client) -------------------------------------------------------

  connection.onRequest(AnalyzeRunRequest, (params) => {
    let run: LoadedRun;
    try {
      run = analyzeRun(params.runDir, params.root);
    } catch (err) {
      return failed(err);
    }
    runs().show(CLIENT_SLOT, run);
    return { reportFile: run.reportFile, runId: run.report.id };
  });

  connection.onRequest(AnalyzeProfileRequest, async (params) => {
    let run: LoadedRun;
    try {
      run = await analyzeProfile(params.profileFile, params.root, params.outDir, params.pathMap);
    } catch (err) {
      return failed(err);
    }
    runs().show(CLIENT_SLOT, run);
    return { reportFile: run.reportFile, runId: run.report.id };
  });

  connection.onNotification(ShowRunNotification, (params) => {
    let run: LoadedRun;
    try {
      run = loadRun(params.reportFile);
    } catch (err) {
      // The editor keeps the run it showed: a damaged file must not take the costs it had away.
      runs().warn(
        err instanceof RunLoadError
          ? `${err.message} The run is not shown.`
          : `Cannot show ${params.reportFile}: ${String(err)}`,
      );
      return;
    }
    runs().show(CLIENT_SLOT, run);
  });

  connection.onNotification(ClearRunNotification, () => runs().clearAll());

  // ---- the shown run (any other client) ----------------------------------------------------------

  connection.onExecuteCommand((params) => {
    if (!workspace) return failed(new Error(`${params.command} is not a command of this client`));
    try {
      return executeStandalone(params, { connection, shown: runs(), workspace });
    } catch (err) {
      return failed(err);
    }
  });

  // ---- documents ---------------------------------------------------------------------------------

  documents.onDidOpen((e) => {
    const file = shown?.fileOfUri(e.document.uri);
    if (file !== undefined) workspace?.followAppOf(file);
  });
  documents.onDidChangeContent((e) => shown?.onDocument(e.document));
  documents.onDidClose((e) => shown?.onClosed(e.document));

  connection.onDidChangeWatchedFiles((params) => {
    const uris = params.changes.map((c) => c.uri);
    // A run landing, where the client watches .hotline too: the own watch may be slower or absent.
    if (uris.some((u) => u.includes('/.hotline/runs/'))) workspace?.check();
    shown?.onDiskChanges(uris);
  });

  // ---- lenses, hovers, code actions --------------------------------------------------------------

  connection.onCodeLens((params): CodeLens[] => {
    const doc = documents.get(params.textDocument.uri);
    const view = doc && shown?.viewOf(doc);
    if (!view) return [];
    return lensesOf(view.s.index, view.fc, view.mapping).map((item) => ({
      range: {
        start: { line: item.line0, character: 0 },
        end: { line: item.line0, character: (view.lines[item.line0] ?? '').length },
      },
      // Other clients cannot open the report: the server shows the lens's details itself.
      command: workspace
        ? { title: item.title, command: LineDetailsCommand, arguments: [{ ...item.args, title: item.title }] }
        : { title: item.title, command: OpenReportAtCommand, arguments: [item.args] },
    }));
  });

  connection.languages.inlayHint.on((params): InlayHint[] => {
    const doc = documents.get(params.textDocument.uri);
    const view = workspace && doc && shown?.viewOf(doc);
    if (!view) return [];
    return inlayHintsOf(
      lensesOf(view.s.index, view.fc, view.mapping),
      view.lines,
      params.range.start.line,
      params.range.end.line,
    );
  });

  connection.onHover((params): Hover | null => {
    const doc = documents.get(params.textDocument.uri);
    const view = doc && shown?.viewOf(doc);
    if (!view) return null;
    const markdown = hoverOf(view.s.index, view.fc, view.mapping, params.position.line);
    return markdown === undefined ? null : { contents: { kind: 'markdown', value: markdown } };
  });

  connection.onCodeAction((params): CodeAction[] => {
    const actions: CodeAction[] = [];
    const doc = documents.get(params.textDocument.uri);
    for (const d of params.context.diagnostics) {
      if (d.source !== DiagnosticSource || !isExplainArgs(d.data)) continue;
      const args: ExplainHintArgs = { rule: d.data.rule, api: d.data.api, fix: d.data.fix };
      // The edit first when there is one: it is the fix; the explanation is the why.
      const fix = doc && asyncFixOf(doc.getText(), d.range.start.line, args.api);
      if (doc && fix) {
        actions.push({
          title: fix.title,
          kind: CodeActionKind.QuickFix,
          diagnostics: [d],
          isPreferred: true,
          // A plain edit: Enter applies it, Ctrl+Enter in the quick-fix menu shows it in VS Code's
          // Refactor Preview first (asking for confirmation would leave every change unticked there).
          edit: {
            documentChanges: [
              {
                textDocument: { uri: doc.uri, version: doc.version },
                edits: fix.edits.map((e) => ({
                  range: { start: doc.positionAt(e.start), end: doc.positionAt(e.end) },
                  newText: e.newText,
                })),
              },
            ],
          },
        });
      }
      const title = `Explain: why ${args.api} blocks the event loop`;
      actions.push({
        title,
        kind: CodeActionKind.QuickFix,
        diagnostics: [d],
        command: { title, command: ExplainHintCommand, arguments: [args] },
      });
    }
    return actions;
  });

  documents.listen(connection);
  connection.listen();
}
