// "Hotline: Profile Under Load": one run at a time, with a progress notification that shows the
// phase and live req/s and whose Cancel stops the app and the load at once. The app's output
// goes to an output channel; the run is captured here (I/O only) and analyzed by the language
// server, which writes report.json before anything is shown.
import { stripVTControlCharacters } from 'node:util';
import * as vscode from 'vscode';
import {
  type AttachSpec,
  captureUnderLoad,
  type LaunchSpec,
  type LoadSettings,
  redactUrl,
  RunError,
  type RunProgress,
} from '../../core/index.ts';

/** How the run reaches its app and loads it, beyond the usual: attach, or the user's load tool. */
export interface RunVariant {
  /** Attach to this running app instead of starting `app` (only its cwd counts then). */
  attach?: AttachSpec;
  loadCommand?: string;
  /** How long the app may take to listen, and to shut down after its SIGTERM (settings). */
  listenTimeoutS?: number;
  stopGraceS?: number;
}

export interface RunOutcome {
  runDir: string;
  appDir: string;
}

const PHASE_LABEL: Record<RunProgress['phase'], string> = {
  starting: 'Starting the app',
  warmup: 'Warm-up',
  measuring: 'Measuring (profiler off)',
  profiling: 'Profiling',
  analyzing: 'Analyzing',
  done: 'Done',
};

export class RunController implements vscode.Disposable {
  private running: { abort: AbortController; done: Promise<unknown> } | undefined;
  private readonly status: vscode.StatusBarItem;

  constructor(private readonly output: vscode.OutputChannel) {
    this.status = vscode.window.createStatusBarItem('hotline.run', vscode.StatusBarAlignment.Left, 10);
    this.status.name = 'Hotline run';
    this.status.command = 'hotline.cancelRun';
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  /**
   * Captures a run with progress and Cancel; then `analyze` (the language server) turns it into a
   * report. Resolves undefined when cancelled; errors are shown here and resolve undefined too.
   */
  async run(
    app: LaunchSpec,
    load: LoadSettings,
    analyze: (runDir: string, appDir: string) => Promise<void>,
    variant: RunVariant = {},
  ): Promise<RunOutcome | undefined> {
    if (this.running) {
      void vscode.window.showWarningMessage(
        'Hotline: a run is already in progress. Cancel it first (click the Hotline item in the status bar).',
      );
      return undefined;
    }
    const abort = new AbortController();
    const total = load.warmupS! + 2 * load.durationS!;
    const work = vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Hotline', cancellable: true },
      async (progress, token) => {
        token.onCancellationRequested(() => abort.abort());
        let reported = 0;
        const onProgress = (p: RunProgress): void => {
          const done = elapsed(p, load);
          const rps = p.requestsPerSecond !== undefined ? ` · ${p.requestsPerSecond} req/s` : '';
          const clock = p.of !== undefined ? ` · ${p.second ?? 0}/${p.of} s` : '';
          progress.report({
            message: `${PHASE_LABEL[p.phase]}${rps}${clock}`,
            increment: done > reported ? ((done - reported) / total) * 90 : 0,
          });
          reported = Math.max(reported, done);
          this.status.text = `$(pulse) Hotline: ${PHASE_LABEL[p.phase].toLowerCase()}${rps}`;
          this.status.tooltip = 'Click to cancel the run';
          this.status.show();
        };
        const what = variant.attach
          ? `the app at ${variant.attach.target} (attached; it is left running)`
          : (app.command ?? app.entry);
        const how = variant.loadCommand
          ? `load command: ${variant.loadCommand}`
          : `${load.method ?? 'GET'} ${redactUrl(load.url)}, ${load.connections} connections`;
        this.output.appendLine(`── ${new Date().toLocaleTimeString()} profiling ${what} in ${app.cwd}: ${how}`);
        const { runDir } = await captureUnderLoad({
          ...load,
          ...variant,
          target: app,
          signal: abort.signal,
          onProgress,
          // The Output channel shows no colours: their escape codes would be noise.
          onOutput: (_stream, text) => this.output.append(stripVTControlCharacters(text)),
        });
        progress.report({ message: 'Analyzing the profile', increment: 0 });
        this.status.text = '$(pulse) Hotline: analyzing';
        await analyze(runDir, app.cwd);
        return { runDir, appDir: app.cwd };
      },
    );
    this.running = {
      abort,
      done: Promise.resolve(work).then(
        () => undefined,
        () => undefined,
      ),
    };
    void vscode.commands.executeCommand('setContext', 'hotline.running', true);
    try {
      return await Promise.resolve(work);
    } catch (err) {
      this.report(err, variant.attach !== undefined);
      return undefined;
    } finally {
      this.running = undefined;
      this.status.hide();
      void vscode.commands.executeCommand('setContext', 'hotline.running', false);
    }
  }

  cancel(): void {
    this.running?.abort.abort();
  }

  /** Stops a run in progress and waits until its app and load are gone (deactivation). */
  async stop(): Promise<void> {
    const r = this.running;
    if (!r) return;
    r.abort.abort();
    await r.done;
  }

  private report(err: unknown, attached: boolean): void {
    if (err instanceof RunError && err.kind === 'cancelled') {
      void vscode.window.showInformationMessage(
        `Hotline: run cancelled. ${attached ? 'The load was stopped; the app was left running.' : 'The app and the load were stopped.'}`,
      );
      return;
    }
    const message = err instanceof Error ? err.message : String(err);
    this.output.appendLine(`Hotline: ${message}`);
    const appAtFault = err instanceof RunError && ['app-exited', 'never-listened', 'port-in-use'].includes(err.kind);
    if (appAtFault && err instanceof RunError && err.output)
      this.output.appendLine(stripVTControlCharacters(err.output).trimEnd().split('\n').slice(-30).join('\n'));
    void vscode.window.showErrorMessage(`Hotline: ${message}`, 'Show App Output').then((choice) => {
      if (choice) this.output.show(true);
    });
  }

  dispose(): void {
    this.running?.abort.abort();
    this.status.dispose();
  }
}

/** Seconds of the whole run done, from a progress event. */
function elapsed(p: RunProgress, load: LoadSettings): number {
  const second = p.second ?? 0;
  switch (p.phase) {
    case 'starting':
      return 0;
    case 'warmup':
      return second;
    case 'measuring':
      return load.warmupS! + second;
    case 'profiling':
      return load.warmupS! + load.durationS! + second;
    default:
      return load.warmupS! + 2 * load.durationS!;
  }
}
