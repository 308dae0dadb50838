// Starting the app the way its owner does: an npm script as it stands or any command line, run by
// the shell with the project's package bins on PATH (as `npm run` does). Which of the processes
// it starts is the app is learnt later, from the one that serves a TCP port (child-processes.ts);
// the run then profiles that process and stops the whole tree at the end.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ExitInfo, RunApp } from './launch.ts';
import { OutputLog } from './output-log.ts';
import { isAlive, killTree } from './processes.ts';
import { redactCommand } from '../common/index.ts';

export interface CommandOptions {
  cwd: string;
  /** A shell command line (`tsx watch server.ts`, `nodemon`, `npx fastify start -l info app.js`). */
  command: string;
  /** The npm script it came from, when it did (npm's own variables are set for it). */
  script?: string;
  env?: Record<string, string | undefined>;
  /** The node binary every `node` of the command (and every package bin's `#!/usr/bin/env node`) runs. */
  nodePath?: string;
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
}

/** What Node prints when an inspector opens or a client comes and goes: the preload's, not the app's. */
const INSPECTOR_NOTICE =
  /^(Debugger listening on ws:\/\/\S+|For help, see: https:\/\/nodejs\.org\/en\/docs\/inspector|Debugger attached\.|Debugger ending on ws:\/\/\S+|Waiting for the debugger to disconnect\.\.\.)\r?\n/gm;

/** The command's process tree; `pid` and `exited` are those of the process that serves the port, once known. */
export class CommandApp implements RunApp {
  readonly command: string[];
  readonly exited: Promise<ExitInfo>;
  private exitInfo: ExitInfo | undefined;
  private shellExit: ExitInfo | undefined;
  private readonly shellExited: Promise<ExitInfo>;
  private serverPid: number | undefined;
  private endServer: ((exit: ExitInfo) => void) | undefined;
  private stopping: Promise<void> | undefined;

  private constructor(
    private readonly shell: ChildProcess,
    line: string,
    /** The command's stdout, written there by the kernel (output-log.ts); its stderr added by us. */
    private readonly log: OutputLog,
    onOutput: CommandOptions['onOutput'],
  ) {
    // What run.json and the report keep: no secret a script passes inline (`API_KEY=… node …`).
    this.command = [redactCommand(line)];
    this.shellExited = new Promise((resolve) => {
      shell.once('exit', (code, signal) => resolve((this.shellExit = { code, signal })));
      shell.once('error', (err) => {
        log.append(`${err.message}\n`);
        resolve((this.shellExit = { code: null, signal: null }));
      });
    });
    this.exited = new Promise((resolve) => {
      const done = (exit: ExitInfo): void => {
        this.exitInfo ??= exit;
        resolve(this.exitInfo);
      };
      this.endServer = done;
      void this.shellExited.then((exit) =>
        done(
          this.serverPid === undefined
            ? exit
            : {
                ...exit,
                reason: `\`${this.command[0]}\` ended (${exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`})`,
              },
        ),
      );
    });
    shell.stderr?.setEncoding('utf8');
    shell.stderr?.on('data', (raw: string) => log.append(raw.replace(INSPECTOR_NOTICE, '')));
    if (onOutput) log.follow((text) => onOutput('stdout', text));
  }

  /** Runs the command in its own process group (so that the whole tree can be stopped at once). */
  static start(opts: CommandOptions): CommandApp {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const [k, v] of Object.entries(opts.env ?? {})) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    env.PATH = commandPath(opts.cwd, env.PATH ?? '', opts.nodePath);
    if (opts.script !== undefined) Object.assign(env, npmScriptEnv(opts.cwd, opts.script, opts.command));
    const log = OutputLog.open();
    let shell: ChildProcess;
    try {
      shell = spawn(opts.command, {
        cwd: opts.cwd,
        env,
        shell: true,
        stdio: ['ignore', log.fd, 'pipe'],
        detached: process.platform !== 'win32',
      });
    } catch (err) {
      log.close();
      throw err;
    }
    return new CommandApp(shell, opts.command, log, opts.onOutput);
  }

  /**
   * The process that serves the loaded port; its end ends the run's app. It is not our child (no
   * exit event), and its inspector session, closed by the session itself when Node says the app
   * is exiting, tells nothing either: its pid is looked at every `pollMs`.
   */
  serving(pid: number, port: number, pollMs = 100): void {
    this.serverPid = pid;
    const timer = setInterval(() => {
      if (isAlive(pid)) return;
      clearInterval(timer);
      this.endServer?.({
        code: null,
        signal: null,
        reason:
          this.shellExit === undefined
            ? `process ${pid}, which served port ${port}, ended while \`${this.command[0]}\` still runs: a watcher (tsx watch, nodemon, node --watch) restarts the app when a file it watches changes`
            : 'it ended',
      });
    }, pollMs);
    timer.unref();
    void this.exited.then(() => clearInterval(timer));
  }

  get pid(): number {
    return this.serverPid ?? this.shell.pid ?? -1;
  }

  /** The shell's pid: the leader of the command's process group. */
  get leaderPid(): number {
    return this.shell.pid ?? -1;
  }

  get exit(): ExitInfo | undefined {
    return this.exitInfo;
  }

  output(): string {
    return this.log.tail();
  }

  printed(): string {
    return this.log.all();
  }

  /** Stops every process the command started: one SIGTERM each, then SIGKILL after `graceMs`. */
  async stop(graceMs = 5000): Promise<void> {
    const pid = this.shell.pid;
    if (pid === undefined) return;
    this.stopping ??= killTree(pid, this.shellExited, graceMs, this.shellExit !== undefined).finally(() =>
      this.log.close(),
    );
    await this.stopping;
  }
}

/**
 * PATH as `npm run` gives it: every `node_modules/.bin` from the app's folder up, then the
 * caller's; the folder of `nodePath` first, so that `node`, `tsx` and every `#!/usr/bin/env node`
 * bin run that node.
 */
export function commandPath(cwd: string, callerPath: string, nodePath?: string): string {
  const dirs: string[] = [];
  if (nodePath && path.isAbsolute(nodePath)) dirs.push(path.dirname(nodePath));
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    dirs.push(path.join(dir, 'node_modules', '.bin'));
    if (path.dirname(dir) === dir) break;
  }
  return [...dirs, callerPath].filter((d) => d !== '').join(path.delimiter);
}

/** The variables npm sets for a script that scripts read most (the name and version, which script runs). */
function npmScriptEnv(cwd: string, script: string, line: string): Record<string, string> {
  const file = path.join(cwd, 'package.json');
  const env: Record<string, string> = {
    npm_lifecycle_event: script,
    npm_lifecycle_script: line,
    npm_package_json: file,
    INIT_CWD: cwd,
  };
  try {
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
    if (typeof pkg.name === 'string') env.npm_package_name = pkg.name;
    if (typeof pkg.version === 'string') env.npm_package_version = pkg.version;
  } catch {
    // read already by the target's resolution; nothing more to add
  }
  return env;
}
