// The Hotline language server: holds the shown run and turns it into CodeLens, hovers,
// diagnostics, code actions and heat decorations, off the extension host's thread (like
// vscode-eslint's server). Plain Node and vscode-languageserver: no `vscode` here.
// Messages (src/protocol.ts): client → server AnalyzeRun, AnalyzeProfile (requests), ShowRun,
// ClearRun (notifications); server → client Decorations, ShownRun (notifications).
import * as fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CodeActionKind,
  CodeLensRefreshRequest,
  LSPErrorCodes,
  MessageType,
  ProposedFeatures,
  ResponseError,
  ShowMessageNotification,
  TextDocumentSyncKind,
  TextDocuments,
  createConnection,
  type CodeAction,
  type CodeLens,
  type Hover,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import {
  AnalyzeProfileRequest,
  AnalyzeRunRequest,
  ClearRunNotification,
  DecorationsNotification,
  DiagnosticSource,
  ExplainHintCommand,
  OpenReportAtCommand,
  ShowRunNotification,
  ShownRunNotification,
  type ExplainHintArgs,
  type ShownRunParams,
} from '../protocol.ts';
import { ReportIndex, fileKey, heatOf, hoverOf, lensesOf, linesOfInterest, type FileCosts } from './file-view.ts';
import { diagnosticsOf, isExplainArgs } from './hint-diagnostics.ts';
import { asyncFixOf } from './async-fix.ts';
import { RunLoadError, analyzeProfile, analyzeRun, loadRun, removeTempDirs, type LoadedRun } from './runs.ts';
import { mapLines, splitLines, type LineMapping } from './staleness.ts';

const connection = createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);

let codeLensRefresh = false;

// ---- state: the shown run, and each costly file's mapping to its current text ------------------

interface Shown {
  run: LoadedRun;
  index: ReportIndex;
  /** By file key: the text last mapped (the open document's or the disk's) and its mapping. */
  mappings: Map<string, { text: string; mapping: LineMapping | undefined }>;
  /** Files whose costs are hidden because they changed beyond mapping (by file key → report path). */
  stale: Map<string, string>;
  /** URIs with our diagnostics (by file key), and documents with our decorations. */
  diagnosed: Map<string, string>;
  decorated: Set<string>;
}

let shown: Shown | undefined;

function fileOfUri(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch (err) {
    connection.console.warn(`Hotline: ignoring ${uri}: ${(err as Error).message}`);
    return undefined;
  }
}

function openDocumentOf(file: string): TextDocument | undefined {
  const key = fileKey(file);
  return documents.all().find((d) => {
    const open = fileOfUri(d.uri);
    return open !== undefined && fileKey(open) === key;
  });
}

function readDisk(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    connection.console.info(
      `Hotline: ${file} is not readable (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): its costs are not shown.`,
    );
    return undefined;
  }
}

/** The mapping of a costly file's report lines onto `text`; undefined without a snapshot. Records staleness. */
function mappingOf(s: Shown, fc: FileCosts, text: string): LineMapping | undefined {
  const key = fileKey(fc.file);
  const cached = s.mappings.get(key);
  if (cached && cached.text === text) return cached.mapping;
  const snapshot = s.run.snapshot.get(key);
  const mapping = snapshot === undefined ? undefined : mapLines(snapshot, text, linesOfInterest(fc));
  s.mappings.set(key, { text, mapping });
  if (mapping?.changedBeyondMapping) s.stale.set(key, fc.file);
  else s.stale.delete(key);
  return mapping;
}

/** The costs of an open document and where they land now, or undefined when it shows none. */
function viewOf(doc: TextDocument): { fc: FileCosts; mapping: LineMapping; lines: string[] } | undefined {
  const file = fileOfUri(doc.uri);
  if (!shown || file === undefined) return undefined;
  const fc = shown.index.costsOf(file);
  if (!fc) return undefined;
  const text = doc.getText();
  const mapping = mappingOf(shown, fc, text);
  return mapping ? { fc, mapping, lines: splitLines(text) } : undefined;
}

function filesWithoutSnapshot(s: Shown): string[] {
  return [...s.index.files.entries()].filter(([key]) => !s.run.snapshot.has(key)).map(([, fc]) => fc.file);
}

function sendShownRun(): void {
  const params: ShownRunParams = shown
    ? {
        runId: shown.run.report.id,
        reportFile: shown.run.reportFile,
        staleFiles: [...shown.stale.values()].sort(),
        filesWithoutSnapshot: filesWithoutSnapshot(shown),
      }
    : { staleFiles: [] };
  void connection.sendNotification(ShownRunNotification, params);
}

/**
 * Brings one costly file up to date with its text now (the open document's, else the disk's):
 * diagnostics, and decorations when it is open. Returns whether its staleness changed.
 */
function refreshFile(s: Shown, fc: FileCosts): boolean {
  const key = fileKey(fc.file);
  const wasStale = s.stale.has(key);
  const doc = openDocumentOf(fc.file);
  const text = doc ? doc.getText() : readDisk(fc.file);
  const mapping = text === undefined ? undefined : mappingOf(s, fc, text);
  const uri = doc?.uri ?? pathToFileURL(fc.file).href;
  const previous = s.diagnosed.get(key);
  if (previous !== undefined && previous !== uri) void connection.sendDiagnostics({ uri: previous, diagnostics: [] });
  const diagnostics = diagnosticsOf(fc, mapping, text === undefined ? [] : splitLines(text));
  if (diagnostics.length > 0 || previous !== undefined) void connection.sendDiagnostics({ uri, diagnostics });
  if (diagnostics.length > 0) s.diagnosed.set(key, uri);
  else s.diagnosed.delete(key);
  if (doc) {
    const lines = mapping ? heatOf(s.index, fc, mapping) : [];
    if (lines.length > 0 || s.decorated.has(doc.uri))
      void connection.sendNotification(DecorationsNotification, { uri: doc.uri, lines });
    if (lines.length > 0) s.decorated.add(doc.uri);
    else s.decorated.delete(doc.uri);
  }
  return wasStale !== s.stale.has(key);
}

/** Takes down what the previous run put in the editor and the shown one did not replace. */
function hideRest(previous: Shown, now: Shown | undefined): void {
  const diagnosed = new Set(now?.diagnosed.values());
  for (const uri of previous.diagnosed.values())
    if (!diagnosed.has(uri)) void connection.sendDiagnostics({ uri, diagnostics: [] });
  for (const uri of previous.decorated)
    if (!now?.decorated.has(uri)) void connection.sendNotification(DecorationsNotification, { uri, lines: [] });
}

function refreshLenses(): void {
  if (!codeLensRefresh) return;
  connection
    .sendRequest(CodeLensRefreshRequest.type)
    .catch((err: unknown) => connection.console.warn(`Hotline: codeLens refresh failed: ${(err as Error).message}`));
}

function show(run: LoadedRun | undefined): void {
  const previous = shown;
  shown = run
    ? {
        run,
        index: new ReportIndex(run.report, run.reportFile),
        mappings: new Map(),
        stale: new Map(),
        diagnosed: new Map(),
        decorated: new Set(),
      }
    : undefined;
  if (shown) {
    for (const fc of shown.index.files.values()) refreshFile(shown, fc);
    for (const warning of run?.warnings ?? []) warn(warning);
    const missing = filesWithoutSnapshot(shown);
    if (missing.length > 0)
      connection.console.info(`Hotline: no snapshot of ${missing.join(', ')} in the run: their costs are hidden.`);
  }
  if (previous) hideRest(previous, shown);
  sendShownRun();
  refreshLenses();
}

function warn(message: string): void {
  connection.console.warn(`Hotline: ${message}`);
  void connection.sendNotification(ShowMessageNotification.type, {
    type: MessageType.Warning,
    message: `Hotline: ${message}`,
  });
}

function failed(err: unknown): ResponseError<void> {
  const message = err instanceof Error ? err.message : String(err);
  connection.console.error(`Hotline: ${message}`);
  return new ResponseError(LSPErrorCodes.RequestFailed, message);
}

// ---- lifecycle -----------------------------------------------------------------------------------

connection.onInitialize((params) => {
  codeLensRefresh = params.capabilities.workspace?.codeLens?.refreshSupport === true;
  return {
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      codeLensProvider: { resolveProvider: false },
      hoverProvider: true,
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
    },
    serverInfo: { name: 'hotline' },
  };
});

connection.onShutdown(() => removeTempDirs());
process.on('exit', removeTempDirs);

// ---- the shown run -------------------------------------------------------------------------------

connection.onRequest(AnalyzeRunRequest, (params) => {
  let run: LoadedRun;
  try {
    run = analyzeRun(params.runDir, params.root);
  } catch (err) {
    return failed(err);
  }
  show(run);
  return { reportFile: run.reportFile, runId: run.report.id };
});

connection.onRequest(AnalyzeProfileRequest, async (params) => {
  let run: LoadedRun;
  try {
    run = await analyzeProfile(params.profileFile, params.root, params.outDir, params.pathMap);
  } catch (err) {
    return failed(err);
  }
  show(run);
  return { reportFile: run.reportFile, runId: run.report.id };
});

connection.onNotification(ShowRunNotification, (params) => {
  let run: LoadedRun;
  try {
    run = loadRun(params.reportFile);
  } catch (err) {
    // The editor keeps the run it showed: a damaged file must not take the costs it had away.
    warn(
      err instanceof RunLoadError
        ? `${err.message} The run is not shown.`
        : `Cannot show ${params.reportFile}: ${String(err)}`,
    );
    return;
  }
  show(run);
});

connection.onNotification(ClearRunNotification, () => show(undefined));

// ---- documents -----------------------------------------------------------------------------------

function onDocument(doc: TextDocument): void {
  const file = fileOfUri(doc.uri);
  const fc = shown && file !== undefined ? shown.index.costsOf(file) : undefined;
  if (shown && fc && refreshFile(shown, fc)) sendShownRun();
}

documents.onDidChangeContent((e) => onDocument(e.document));

documents.onDidClose((e) => {
  // Unsaved edits are gone (the document has left `documents`): the disk's text counts again.
  const file = fileOfUri(e.document.uri);
  const fc = shown && file !== undefined ? shown.index.costsOf(file) : undefined;
  if (!shown || !fc) return;
  shown.decorated.delete(e.document.uri);
  if (refreshFile(shown, fc)) sendShownRun();
});

connection.onDidChangeWatchedFiles((params) => {
  if (!shown) return;
  let changed = false;
  for (const change of params.changes) {
    const file = fileOfUri(change.uri);
    const fc = file !== undefined ? shown.index.costsOf(file) : undefined;
    if (fc && !openDocumentOf(fc.file)) changed = refreshFile(shown, fc) || changed;
  }
  if (changed) sendShownRun();
});

// ---- lenses, hovers, code actions ----------------------------------------------------------------

connection.onCodeLens((params): CodeLens[] => {
  const doc = documents.get(params.textDocument.uri);
  const view = doc && viewOf(doc);
  if (!shown || !view) return [];
  return lensesOf(shown.index, view.fc, view.mapping).map((item) => ({
    range: {
      start: { line: item.line0, character: 0 },
      end: { line: item.line0, character: (view.lines[item.line0] ?? '').length },
    },
    command: { title: item.title, command: OpenReportAtCommand, arguments: [item.args] },
  }));
});

connection.onHover((params): Hover | null => {
  const doc = documents.get(params.textDocument.uri);
  const view = doc && viewOf(doc);
  if (!shown || !view) return null;
  const markdown = hoverOf(shown.index, view.fc, view.mapping, params.position.line);
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
