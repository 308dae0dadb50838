// Every message between the extension, the language server and the webviews, typed. Each one
// says which way it travels. Webview messages are validated on arrival: a message that is not
// one of these is dropped, so a webview can never make the extension do something else.
import { NotificationType, NotificationType0, RequestType } from 'vscode-languageserver-protocol';
import { isObject, type ReportV1 } from './core/report/index.ts';
import type { TimelineV1 } from './core/analysis/time/timeline.ts';

// ---- extension ⇄ language server (custom LSP methods) ------------------------------------------
// Typed message objects: the client's sendRequest/sendNotification and the server's
// onRequest/onNotification take these, so both ends agree on params and results at compile time.

/** client → server (request): analyze a captured run folder, write its report.json, show it. */
export const AnalyzeRunRequest = new RequestType<AnalyzeRunParams, AnalyzeRunResult, void>('hotline/analyzeRun');
export interface AnalyzeRunParams {
  runDir: string;
  /** The app folder: its files outside node_modules are "your code". */
  root: string;
}
export interface AnalyzeRunResult {
  reportFile: string;
  runId: string;
}

/** client → server (request): analyze a .cpuprofile opened from disk (no load figures) and show it. */
export const AnalyzeProfileRequest = new RequestType<AnalyzeProfileParams, AnalyzeProfileResult, void>(
  'hotline/analyzeProfile',
);
export interface AnalyzeProfileParams {
  profileFile: string;
  root: string;
  /**
   * Folder to write report.json, sources.json and a copy of the profile into (created if
   * missing; e.g. the extension's storage). Without it the server makes a temporary folder,
   * which it deletes when it exits.
   */
  outDir?: string;
  /**
   * Path prefixes of the machine that wrote the profile (a fleet's `/app/`) → folders here; a
   * relative folder is relative to `root` (the hotline.pathMap setting).
   */
  pathMap?: Record<string, string>;
}
export interface AnalyzeProfileResult {
  /** report.json written beside a temporary copy, so the report webview can show it too. */
  reportFile: string;
  /** The id given to this analysis (a generated run id). */
  runId: string;
}

/** client → server (notification): show this saved run's costs in the editor (newest run, or the one picked). */
export const ShowRunNotification = new NotificationType<ShowRunParams>('hotline/showRun');
export interface ShowRunParams {
  reportFile: string;
}

/** client → server (notification): hide all costs (the run was deleted). */
export const ClearRunNotification = new NotificationType0('hotline/clearRun');

/** server → client (notification): hot lines of one open document, for the heat decorations. */
export const DecorationsNotification = new NotificationType<DecorationsParams>('hotline/decorations');
export interface LineHeat {
  /** 0-based line in the document as it is now (already mapped through edits). */
  line: number;
  ownMs: number;
  ownPct: number;
  /** Of one core's time in the profile (capacity.ts): the tint's scale, so a mostly idle app stays pale. */
  corePct: number;
  /** Short after-text, e.g. "■ 0.42 ms/request". */
  label: string;
}
export interface DecorationsParams {
  uri: string;
  lines: LineHeat[];
}

/** server → client (notification): which run the editor shows now (for the status bar), or none. */
export const ShownRunNotification = new NotificationType<ShownRunParams>('hotline/shownRun');
export interface ShownRunParams {
  runId?: string;
  reportFile?: string;
  /** Files whose costs are hidden because they changed beyond mapping since the run. */
  staleFiles: string[];
  /**
   * Files with costs that the run has no text snapshot of (no or partial sources.json): their
   * costs are hidden, since their lines cannot be checked against the text the run analyzed.
   */
  filesWithoutSnapshot?: string[];
}

/**
 * `initializationOptions` of the `initialize` request. The Hotline VS Code extension sends
 * `{ client: 'vscode' }`: it picks the shown run (ShowRun, AnalyzeRun), runs the lens and hint
 * commands and draws the decorations. Any other client (Neovim, Helix, Emacs, Zed: `hotline lsp`)
 * sends nothing: the server then finds the runs under each workspace folder itself and executes
 * its lenses' and code actions' commands (the commands below).
 */
export interface InitializationOptions {
  client?: 'vscode';
}

// ---- commands the server executes itself for clients without Hotline's UI (workspace/executeCommand)

/** Show this run: arguments [a run folder or its report.json]. Result: { runId, reportFile }. */
export const ShowRunCommand = 'hotline.showRun';
/** Hide all costs until the next run lands. No arguments. */
export const ClearRunCommand = 'hotline.clearRun';
/** A lens's details as a message (window/showMessage): arguments [OpenReportAtArgs and the lens's `title`]. */
export const LineDetailsCommand = 'hotline.lineDetails';

/** The client command every lens runs (arguments: [OpenReportAtArgs]). */
export const OpenReportAtCommand = 'hotline.openReportAt';
/**
 * The command of the hint diagnostics' code action (arguments: [ExplainHintArgs]): run by the
 * VS Code client, by the server itself (a message) for any other client.
 */
export const ExplainHintCommand = 'hotline.explainHint';
/** `source` of the server's diagnostics; their `code` is the hint's rule and `data` an ExplainHintArgs. */
export const DiagnosticSource = 'hotline';

/** Arguments of the `hotline.openReportAt` command that every lens carries. */
export interface OpenReportAtArgs {
  reportFile: string;
  file: string;
  /** 1-based, as in report.json: the line in the text the run analyzed (not the edited document). */
  line: number;
  functionName?: string;
  /** The lens shows allocations (report.heap), not CPU time: the client can hide these alone. */
  kind?: 'allocations';
}

/** Arguments of the `hotline.explainHint` command (the diagnostics' code action). */
export interface ExplainHintArgs {
  rule: string;
  api: string;
  fix: string;
}

// ---- extension ⇄ report webview ----------------------------------------------------------------

/** extension → report webview: what to show (sent after `ready`). */
export type ToReportView =
  | {
      type: 'report';
      report: ReportV1;
      baseline?: ReportV1;
      /**
       * What both runs analyzed (sources.json): the texts of the files that differ between them,
       * and the files whose text is the same in both. The page's comparison finds the lines a fix
       * rewrote by a diff of the two texts (core/verdicts/compare.ts), as the toast's does.
       */
      changedSources?: { base: Record<string, string>; current: Record<string, string>; same: string[] };
      focus?: { file: string; line: number; functionName?: string };
      timeline?: TimelineV1;
    }
  | { type: 'focus'; file: string; line: number; functionName?: string };

/** report webview → extension. */
export type FromReportView =
  | { type: 'ready' }
  | { type: 'openSource'; file: string; line: number }
  | { type: 'openFlameGraph' }
  /** The flame graph of the profile cut to [startMs, endMs), ms from the profile's start (the heat map's selection). */
  | { type: 'openFlameRange'; startMs: number; endMs: number };

// ---- extension ⇄ flame graph webview ------------------------------------------------------------

/** extension → flame graph webview: the profile to load into speedscope (sent after `ready`). */
/**
 * extension → flame graph webview: a profile, as a webview resource URL the page fetches (the
 * bytes never go through postMessage), or inline as base64.
 */
export type ToFlameView =
  { type: 'profile'; name: string; base64: string } | { type: 'profile'; name: string; url: string };

/** flame graph webview → extension. */
export type FromFlameView = { type: 'ready' } | { type: 'loaded' } | { type: 'error'; message: string };

/** A day: no profile is longer; a larger range end is not a real selection. */
const MAX_RANGE_END_MS = 86_400_000;

/** Validates a message from the report webview; anything else is undefined (and dropped). */
export function parseFromReportView(v: unknown): FromReportView | undefined {
  if (!isObject(v)) return undefined;
  switch (v.type) {
    case 'ready':
    case 'openFlameGraph':
      return { type: v.type };
    case 'openSource':
      return typeof v.file === 'string' && Number.isInteger(v.line) && (v.line as number) >= 1
        ? { type: 'openSource', file: v.file, line: v.line as number }
        : undefined;
    case 'openFlameRange': {
      const { startMs, endMs } = v;
      const ok =
        typeof startMs === 'number' &&
        typeof endMs === 'number' &&
        Number.isFinite(startMs) &&
        Number.isFinite(endMs) &&
        startMs >= 0 &&
        endMs > startMs &&
        endMs <= MAX_RANGE_END_MS;
      return ok ? { type: 'openFlameRange', startMs, endMs } : undefined;
    }
    default:
      return undefined;
  }
}

/** Validates a message from the flame graph webview. */
export function parseFromFlameView(v: unknown): FromFlameView | undefined {
  if (!isObject(v)) return undefined;
  switch (v.type) {
    case 'ready':
    case 'loaded':
      return { type: v.type };
    case 'error':
      return typeof v.message === 'string' ? { type: 'error', message: v.message.slice(0, 500) } : undefined;
    default:
      return undefined;
  }
}
