// Start the user's app under the inspector, learn its WebSocket URL, and stop it again with
// everything it spawned. The inspector only ever binds to 127.0.0.1 on a port the OS picks:
// whoever reaches it can run any code in the app.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { OutputLog } from './output-log.ts';
import { killTree } from './processes.ts';

export interface LaunchSpec {
  /** Working directory of the app. */
  cwd: string;
  /** The script node runs, relative to cwd or absolute ('' when `command` is set). */
  entry: string;
  /** A command line run as it stands through the shell (command.ts) instead of `node entry`. */
  command?: string;
  /** The npm script `command` comes from. */
  script?: string;
  args?: string[];
  /** Flags for node itself (`--max-old-space-size=…`); inspector flags are ours and dropped. */
  runtimeArgs?: string[];
  /** The node binary; default `node` from PATH. */
  nodePath?: string;
  env?: Record<string, string | undefined>;
}

export interface LaunchOptions extends LaunchSpec {
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
  /** How long node may take to open the inspector (it does so before any user code). */
  inspectorTimeoutMs?: number;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** How it ended when neither code nor signal is known (an app Hotline attached to). */
  reason?: string;
}

/** What a run needs of its app, whether it launched it (AppProcess) or attached to it (attach.ts). */
export interface RunApp {
  readonly command: string[];
  readonly pid: number;
  readonly exited: Promise<ExitInfo>;
  readonly exit: ExitInfo | undefined;
  /** The tail of what the app printed, when the run can see it. */
  output(): string;
  /** All it printed (for the run's app.log); '' when the run cannot see it. */
  printed(): string;
  /** A launched app is stopped with everything it started; an attached one is only let go. */
  stop(graceMs?: number): Promise<void>;
}

/** The app could not be started or left before it was ready; `output` is the tail of what it printed. */
export class LaunchError extends Error {
  constructor(
    /** missing: the folder or entry does not exist; exited: the app ended before its inspector was up; timeout: node never opened it. */
    readonly kind: 'missing' | 'exited' | 'timeout',
    message: string,
    readonly output = '',
    readonly exit?: ExitInfo,
  ) {
    super(message);
    this.name = 'LaunchError';
  }
}

const INSPECTOR_FLAG = /^--(inspect|inspect-brk|inspect-port|debug-port|inspect-wait|inspect-publish-uid)(=|$)/;
/** What Node prints to stderr when its inspector opens, a client attaches, or the app waits for it to leave. */
const INSPECTOR_NOTICE =
  /^(Debugger listening on ws:\/\/\S+|For help, see: https:\/\/nodejs\.org\/en\/docs\/inspector|Debugger attached\.|Debugger ending on ws:\/\/\S+|Waiting for the debugger to disconnect\.\.\.)\r?\n/gm;

export class AppProcess implements RunApp {
  private exitInfo: ExitInfo | undefined;
  readonly exited: Promise<ExitInfo>;
  readonly command: string[];

  private constructor(
    private readonly child: ChildProcess,
    command: string[],
    /** Its stdout, written there by the kernel; its stderr, which Hotline reads for the inspector's URL, added by us. */
    private readonly log: OutputLog,
    onOutput?: LaunchOptions['onOutput'],
  ) {
    this.command = command;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        resolve(this.exitInfo);
      });
      // spawn failures (ENOENT for a wrong node path) come as 'error' without 'exit'
      child.once('error', (err) => {
        log.append(`${err.message}\n`);
        this.exitInfo = { code: null, signal: null };
        resolve(this.exitInfo);
      });
    });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (raw: string) => {
      // Node's notices of each reopened inspector (one per profiled sub-window) are ours, not the app's.
      log.append(this.reopened ? raw.replace(INSPECTOR_NOTICE, '') : raw);
    });
    if (onOutput) log.follow((text) => onOutput('stdout', text));
  }

  /** Set once the run has closed and reopened the app's inspector (reopenInspector). */
  private reopened = false;

  /**
   * Spawns `node --inspect-brk=127.0.0.1:0 [runtimeArgs] entry [args]` in its own process group
   * and resolves once the inspector's URL is known. The app waits at its first line until the
   * inspector session lets it run (see InspectorSession.release), so nothing it does is missed.
   */
  static async start(opts: LaunchOptions): Promise<{ app: AppProcess; inspectorUrl: string }> {
    const entry = path.resolve(opts.cwd, opts.entry);
    if (!fs.existsSync(opts.cwd)) throw new LaunchError('missing', `The app folder ${opts.cwd} does not exist.`);
    if (!fs.existsSync(entry))
      throw new LaunchError('missing', `The entry file ${entry} does not exist: check --entry (or hotline.entry).`);
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const [k, v] of Object.entries(opts.env ?? {})) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    // npm scripts write `node server.js --port $PORT`: expand as the shell would have.
    const expand = (arg: string): string =>
      arg.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_, name: string) => env[name] ?? '');
    const runtimeArgs = (opts.runtimeArgs ?? []).filter((a) => !INSPECTOR_FLAG.test(a)).map(expand);
    const node = opts.nodePath || 'node';
    const args = ['--inspect-brk=127.0.0.1:0', ...runtimeArgs, entry, ...(opts.args ?? []).map(expand)];
    // NODE_OPTIONS could carry an --inspect of its own and open a second, wider door.
    if (env.NODE_OPTIONS)
      env.NODE_OPTIONS = env.NODE_OPTIONS.split(/\s+/)
        .filter((a) => a && !INSPECTOR_FLAG.test(a))
        .join(' ');
    const log = OutputLog.open();
    let child: ChildProcess;
    try {
      child = spawn(node, args, {
        cwd: opts.cwd,
        env,
        stdio: ['ignore', log.fd, 'pipe'],
        detached: process.platform !== 'win32',
      });
    } catch (err) {
      log.close();
      throw err;
    }
    const app = new AppProcess(child, [node, ...args], log, opts.onOutput);
    try {
      const inspectorUrl = await app.waitForInspector(opts.inspectorTimeoutMs ?? 15_000);
      return { app, inspectorUrl };
    } catch (err) {
      await app.stop();
      throw err;
    }
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get exit(): ExitInfo | undefined {
    return this.exitInfo;
  }

  /** The last 16 KiB the app printed, stdout and stderr interleaved. */
  output(): string {
    return this.log.tail();
  }

  printed(): string {
    return this.log.all();
  }

  private waitForInspector(timeoutMs: number, o: { quietly?: boolean } = {}): Promise<string> {
    return new Promise((resolve, reject) => {
      let stderr = '';
      const onData = (text: string): void => {
        stderr += text;
        const m = /Debugger listening on (ws:\/\/\S+)/.exec(stderr);
        if (m) {
          done();
          resolve(m[1]);
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new LaunchError(
            'timeout',
            o.quietly
              ? `The app did not reopen its inspector within ${Math.round(timeoutMs / 1000)} s of SIGUSR1.`
              : `node did not open its inspector within ${Math.round(timeoutMs / 1000)} s (${this.command[0]}).`,
            this.output(),
          ),
        );
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        this.child.stderr?.off('data', onData);
      };
      this.child.stderr?.on('data', onData);
      void this.exited.then((exit) => {
        done();
        reject(
          new LaunchError('exited', `The app exited before it started (${describeExit(exit)}).`, this.output(), exit),
        );
      });
    });
  }

  /**
   * Opens the app's inspector again after the app closed it (inspector.close()), the way
   * `node inspect -p PID` does: SIGUSR1 on POSIX, a remote thread on Windows (process._debugProcess).
   * Node reopens it where it was (127.0.0.1, the port it had) and prints the new URL. The signal
   * interrupts running JavaScript too, so a busy app answers; an app that handles SIGUSR1 itself
   * never reopens it (checked before closing, InspectorSession.closeAppInspector).
   */
  async reopenInspector(timeoutMs = 10_000): Promise<string> {
    this.reopened = true;
    const url = this.waitForInspector(timeoutMs, { quietly: true });
    const signal = (): void => {
      try {
        (process as unknown as { _debugProcess(pid: number): void })._debugProcess(this.pid);
      } catch {
        // gone already: waitForInspector says so
      }
    };
    signal();
    // A signal that came while the app was still closing its inspector is not acted on: again,
    // soon (the reopen falls inside a measured sub-window, capture/sub-windows.ts; a signal to an
    // inspector that is already starting is a no-op).
    const again = setInterval(signal, 200);
    try {
      return await url;
    } finally {
      clearInterval(again);
    }
  }

  /** Stops the app and every process it started: one SIGTERM, then SIGKILL after `graceMs`. */
  async stop(graceMs = 5000): Promise<void> {
    const pid = this.child.pid;
    if (pid === undefined) return;
    // Once is enough: a second signal could reach a process that reused the pid.
    this.stopping ??= killTree(pid, this.exited, graceMs, this.exitInfo !== undefined).finally(() => this.log.close());
    await this.stopping;
  }

  private stopping: Promise<void> | undefined;
}

export function describeExit(exit: ExitInfo): string {
  if (exit.reason) return exit.reason;
  if (exit.signal) return `killed by ${exit.signal}`;
  if (exit.code === null) return 'could not be started';
  return `exit code ${exit.code}`;
}
