// The runs the editor shows and what they put in it: diagnostics and heat decorations for each
// costly file, mapped through edits (staleness.ts). One run per slot: the VS Code client's pick,
// or the newest run of each workspace folder (run-watch.ts); a file's costs come from the run
// whose app folder holds it most closely. Lenses and hovers read `viewOf` when the client asks.
import * as fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CodeLensRefreshRequest,
  InlayHintRefreshRequest,
  MessageType,
  ShowMessageNotification,
  type Connection,
  type TextDocuments,
} from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { DecorationsNotification, ShownRunNotification, type ShownRunParams } from '../protocol.ts';
import { ReportIndex, fileKey, heatOf, linesOfInterest, type FileCosts } from './file-view.ts';
import { diagnosticsOf } from './hint-diagnostics.ts';
import type { LoadedRun } from './runs.ts';
import { mapLines, splitLines, type LineMapping } from './staleness.ts';

export interface Shown {
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

export interface ShownRunsOptions {
  /** The Hotline VS Code client: it gets the decorations and the shown-run status messages. */
  vscode: boolean;
  /** The client re-asks for lenses on workspace/codeLens/refresh. */
  codeLensRefresh: boolean;
  /** The client re-asks for inlay hints on workspace/inlayHint/refresh (they are served to clients other than VS Code). */
  inlayHintRefresh: boolean;
}

export class ShownRuns {
  private readonly slots = new Map<string, Shown>();
  /** The slot shown last: its run is the one the status message names. */
  private lastSlot: string | undefined;

  constructor(
    private readonly connection: Connection,
    private readonly documents: TextDocuments<TextDocument>,
    private readonly options: ShownRunsOptions,
  ) {}

  fileOfUri(uri: string): string | undefined {
    if (!uri.startsWith('file:')) return undefined;
    try {
      return fileURLToPath(uri);
    } catch (err) {
      this.connection.console.warn(`Hotline: ignoring ${uri}: ${(err as Error).message}`);
      return undefined;
    }
  }

  /** The shown run a file's costs come from: of those with costs in it, the one whose app folder is deepest. */
  ownerOf(file: string): { s: Shown; fc: FileCosts } | undefined {
    let best: { s: Shown; fc: FileCosts } | undefined;
    for (const s of this.slots.values()) {
      const fc = s.index.costsOf(file);
      if (fc && (!best || s.index.context.root.length > best.s.index.context.root.length)) best = { s, fc };
    }
    return best;
  }

  /** The shown run whose report is this file. */
  byReport(reportFile: string): Shown | undefined {
    return [...this.slots.values()].find((s) => s.run.reportFile === reportFile);
  }

  runOf(slot: string): LoadedRun | undefined {
    return this.slots.get(slot)?.run;
  }

  /** The costs of an open document and where they land now, or undefined when it shows none. */
  viewOf(doc: TextDocument): { s: Shown; fc: FileCosts; mapping: LineMapping; lines: string[] } | undefined {
    const file = this.fileOfUri(doc.uri);
    const owner = file === undefined ? undefined : this.ownerOf(file);
    if (!owner) return undefined;
    const text = doc.getText();
    const mapping = this.mappingOf(owner.s, owner.fc, text);
    return mapping ? { ...owner, mapping, lines: splitLines(text) } : undefined;
  }

  /** Shows `run` in `slot` (undefined: empties it) and takes down what the run it replaces put up. */
  show(slot: string, run: LoadedRun | undefined): void {
    const previous = this.slots.get(slot);
    if (run) {
      this.slots.set(slot, {
        run,
        index: new ReportIndex(run.report, run.reportFile),
        mappings: new Map(),
        stale: new Map(),
        diagnosed: new Map(),
        decorated: new Set(),
      });
      this.lastSlot = slot;
    } else this.slots.delete(slot);
    const now = this.slots.get(slot);
    // The files of both runs: each now shows its owner's costs (another slot's, when this one left it).
    const files = new Map<string, string>();
    for (const s of [previous, now]) for (const [key, fc] of s?.index.files ?? []) files.set(key, fc.file);
    for (const file of files.values()) {
      const owner = this.ownerOf(file);
      if (owner) this.refreshFile(owner.s, owner.fc);
    }
    this.nudge([...files.values()]);
    if (now) {
      for (const warning of now.run.warnings) this.warn(warning);
      const missing = filesWithoutSnapshot(now);
      if (missing.length > 0)
        this.connection.console.info(
          `Hotline: no snapshot of ${missing.join(', ')} in the run: their costs are hidden.`,
        );
    }
    if (previous) this.hideRest(previous);
    this.sendShownRun();
    this.refreshLenses();
  }

  clearAll(): void {
    for (const slot of [...this.slots.keys()]) this.show(slot, undefined);
  }

  /** An open document changed: its costs follow the edit (or go stale). */
  onDocument(doc: TextDocument): void {
    const file = this.fileOfUri(doc.uri);
    const owner = file === undefined ? undefined : this.ownerOf(file);
    if (owner && this.refreshFile(owner.s, owner.fc)) this.sendShownRun();
  }

  /** A document closed: unsaved edits are gone (it has left `documents`), the disk's text counts again. */
  onClosed(doc: TextDocument): void {
    const file = this.fileOfUri(doc.uri);
    const owner = file === undefined ? undefined : this.ownerOf(file);
    if (!owner) return;
    owner.s.decorated.delete(doc.uri);
    if (this.refreshFile(owner.s, owner.fc)) this.sendShownRun();
  }

  /** Files changed on disk: those not open are checked against their new text. */
  onDiskChanges(uris: string[]): void {
    let changed = false;
    for (const uri of uris) {
      const file = this.fileOfUri(uri);
      const owner = file === undefined ? undefined : this.ownerOf(file);
      if (owner && !this.openDocumentOf(owner.fc.file)) changed = this.refreshFile(owner.s, owner.fc) || changed;
    }
    if (changed) this.sendShownRun();
  }

  warn(message: string): void {
    this.connection.console.warn(`Hotline: ${message}`);
    void this.connection.sendNotification(ShowMessageNotification.type, {
      type: MessageType.Warning,
      message: `Hotline: ${message}`,
    });
  }

  private openDocumentOf(file: string): TextDocument | undefined {
    const key = fileKey(file);
    return this.documents.all().find((d) => {
      const open = this.fileOfUri(d.uri);
      return open !== undefined && fileKey(open) === key;
    });
  }

  private readDisk(file: string): string | undefined {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch (err) {
      this.connection.console.info(
        `Hotline: ${file} is not readable (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): its costs are not shown.`,
      );
      return undefined;
    }
  }

  /** The mapping of a costly file's report lines onto `text`; undefined without a snapshot. Records staleness. */
  private mappingOf(s: Shown, fc: FileCosts, text: string): LineMapping | undefined {
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

  /**
   * Brings one costly file up to date with its text now (the open document's, else the disk's):
   * diagnostics, and decorations when it is open. Returns whether its staleness changed.
   */
  private refreshFile(s: Shown, fc: FileCosts): boolean {
    const { connection } = this;
    const key = fileKey(fc.file);
    const wasStale = s.stale.has(key);
    const doc = this.openDocumentOf(fc.file);
    const text = doc ? doc.getText() : this.readDisk(fc.file);
    const mapping = text === undefined ? undefined : this.mappingOf(s, fc, text);
    const uri = doc?.uri ?? pathToFileURL(fc.file).href;
    const previous = s.diagnosed.get(key);
    if (previous !== undefined && previous !== uri) void connection.sendDiagnostics({ uri: previous, diagnostics: [] });
    const diagnostics = diagnosticsOf(fc, mapping, text === undefined ? [] : splitLines(text));
    if (diagnostics.length > 0 || previous !== undefined) void connection.sendDiagnostics({ uri, diagnostics });
    if (diagnostics.length > 0) s.diagnosed.set(key, uri);
    else s.diagnosed.delete(key);
    if (doc && this.options.vscode) {
      const lines = mapping ? heatOf(s.index, fc, mapping) : [];
      if (lines.length > 0 || s.decorated.has(doc.uri))
        void connection.sendNotification(DecorationsNotification, { uri: doc.uri, lines });
      if (lines.length > 0) s.decorated.add(doc.uri);
      else s.decorated.delete(doc.uri);
    }
    return wasStale !== s.stale.has(key);
  }

  /** Takes down what a replaced run put in the editor and no shown run put up again. */
  private hideRest(previous: Shown): void {
    const shown = [...this.slots.values()];
    const diagnosed = new Set(shown.flatMap((s) => [...s.diagnosed.values()]));
    const decorated = new Set(shown.flatMap((s) => [...s.decorated]));
    for (const uri of previous.diagnosed.values())
      if (!diagnosed.has(uri)) void this.connection.sendDiagnostics({ uri, diagnostics: [] });
    for (const uri of previous.decorated)
      if (!decorated.has(uri)) void this.connection.sendNotification(DecorationsNotification, { uri, lines: [] });
  }

  /**
   * A client that cannot be told to refresh its lenses (no workspace/codeLens/refresh, e.g.
   * Neovim 0.7) hears of a new run through the diagnostics of its open files: each costly one
   * gets them again, empty or not, and the client refreshes its lenses on that
   * (docs/editors.md: Neovim's DiagnosticChanged). The VS Code client needs no such message.
   */
  private nudge(files: string[]): void {
    if (this.options.vscode || this.options.codeLensRefresh) return;
    const diagnosed = new Set([...this.slots.values()].flatMap((s) => [...s.diagnosed.values()]));
    for (const file of files) {
      const doc = this.openDocumentOf(file);
      if (doc && !diagnosed.has(doc.uri)) void this.connection.sendDiagnostics({ uri: doc.uri, diagnostics: [] });
    }
  }

  private sendShownRun(): void {
    if (!this.options.vscode) return;
    const shown = this.lastSlot === undefined ? undefined : this.slots.get(this.lastSlot);
    const params: ShownRunParams = shown
      ? {
          runId: shown.run.report.id,
          reportFile: shown.run.reportFile,
          staleFiles: [...shown.stale.values()].sort(),
          filesWithoutSnapshot: filesWithoutSnapshot(shown),
        }
      : { staleFiles: [] };
    void this.connection.sendNotification(ShownRunNotification, params);
  }

  private refreshLenses(): void {
    const ask = (what: string, send: () => Promise<void>): void => {
      send().catch((err: unknown) =>
        this.connection.console.warn(`Hotline: ${what} refresh failed: ${(err as Error).message}`),
      );
    };
    if (this.options.codeLensRefresh) ask('codeLens', () => this.connection.sendRequest(CodeLensRefreshRequest.type));
    if (this.options.inlayHintRefresh && !this.options.vscode)
      ask('inlayHint', () => this.connection.sendRequest(InlayHintRefreshRequest.type));
  }
}

function filesWithoutSnapshot(s: Shown): string[] {
  return [...s.index.files.entries()].filter(([key]) => !s.run.snapshot.has(key)).map(([, fc]) => fc.file);
}
