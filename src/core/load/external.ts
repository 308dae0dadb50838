// A load test by the user's own tool (wrk, ab, autocannon's CLI, artillery, k6, Locust) instead
// of Hotline's autocannon: the command runs, without a shell (unless it is `sh -c '…'`, as a
// Locust master with its workers needs), once for the measured window and once for the profiled
// one; each window lasts as long as the command does (bounded: it is killed after
// durationS×2+30 s). It runs in a process group of its own, killed whole at the end of each run,
// so nothing it started in the background outlives its window. Its output is parsed (parsers.ts) where the format is known and
// kept whole for load.log either way. A short warm-up run, stopped after the warm-up, lets the
// app's code get hot and gives the block coverage its calls.
//
// The run drives it like LoadRun: switchPhase('measured') starts a run, switchPhase('warmup')
// ends the window with that run's figures, switchPhase('profiled') and finish() likewise.
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isLoopback, REDACTED, redactHeaders, redactUrl } from '../common/index.ts';
import { LoadError, type LoadPhase, type PhaseResult } from './load-run.ts';
import { type ParsedLoad, parseLoadOutput, shellScriptOf, toolOfCommand } from './parsers.ts';
import { CommandLineError, splitCommandLine } from './argv.ts';
import type { ExternalLoadFigures } from '../report/index.ts';

export interface ExternalLoadOptions {
  /** The command as typed, with {url}, {port} and {host} placeholders. */
  commandLine: string;
  /** The full loopback URL of the run (what {url} becomes). */
  url: string;
  /** The user's window length: only a bound here (the command decides how long it runs). */
  durationS: number;
  warmupS: number;
  cwd: string;
}

export type ExternalLoadSummary = ExternalLoadFigures;

export const LOAD_LOG_FILE = 'load.log';
const OUTPUT_LIMIT = 1024 * 1024;

/** One run of the command: its process, output and exit. */
interface CommandRun {
  child: ChildProcess;
  startedAt: number;
  output: string;
  /** Its output closed: the command and everything that held its output have ended. */
  closed?: boolean;
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null; durationS: number; cpuS: number }>;
}

type WindowResult = PhaseResult & {
  external: { parsed?: ParsedLoad; exitCode: number | null; summary?: ExternalLoadSummary };
};

export class ExternalLoad {
  readonly argv: string[];
  readonly exited: Promise<void>;
  private markExited!: () => void;
  private current: CommandRun | undefined;
  private phase: LoadPhase = 'warmup';
  private readonly logParts: string[] = [];
  private readonly results: Partial<Record<LoadPhase, WindowResult>> = {};
  private done = false;

  private constructor(
    private readonly opts: ExternalLoadOptions,
    argv: string[],
  ) {
    this.argv = argv;
    this.exited = new Promise((resolve) => (this.markExited = resolve));
  }

  /** Checks the command (program found, loopback URLs only) and starts the warm-up run. */
  static async start(opts: ExternalLoadOptions): Promise<ExternalLoad> {
    const argv = checkLoadCommand(opts.commandLine, opts.cwd, opts.url);
    const load = new ExternalLoad(opts, argv);
    if (opts.warmupS > 0) load.current = load.spawnRun(opts.warmupS + 30);
    return load;
  }

  /** Resolves when the command of the current window has ended by itself (or at its bound). */
  get windowEnded(): Promise<void> {
    return this.current ? this.current.ended.then(() => undefined) : Promise.resolve();
  }

  /** Ends the current phase and starts `next`; for a window that ended, returns its figures. */
  async switchPhase(next: LoadPhase): Promise<PhaseResult> {
    const result = await this.endPhase();
    this.phase = next;
    if (next !== 'warmup') this.current = this.spawnRun(this.opts.durationS * 2 + 30);
    return result;
  }

  /** Ends the profiled window (stopping the command if the run ends it early, e.g. the app died). */
  async finish(): Promise<PhaseResult> {
    if (this.current) killRun(this.current);
    try {
      return await this.endPhase();
    } finally {
      this.done = true;
      this.markExited();
    }
  }

  /** The window of `phase` (one command run each: an external load has no sub-windows). */
  total(phase: LoadPhase): PhaseResult | undefined {
    return this.results[phase];
  }

  /** Immediate stop (cancel/error); idempotent. */
  kill(): void {
    if (this.current) killRun(this.current);
    this.current = undefined;
    this.done = true;
    this.markExited();
  }

  /** Each run's command line, exit and raw output, for load.log. */
  log(): string {
    return this.logParts.join('\n');
  }

  summary(): ExternalLoadSummary {
    const m = this.results.measured?.external;
    const p = this.results.profiled?.external;
    const missing = new Set<string>();
    for (const parsed of [m?.parsed, p?.parsed]) {
      if (!parsed) continue;
      for (const k of ['mean', 'p50', 'p90', 'p99', 'max'] as const)
        if (parsed.latencyMs[k] === undefined) missing.add(`latency ${k}`);
      if (parsed.errors === undefined) missing.add('errors');
      if (parsed.non2xx === undefined) missing.add('non-2xx');
    }
    return {
      command: redactArgv(this.argv),
      tool: m?.parsed?.tool ?? p?.parsed?.tool ?? toolOfCommand(this.argv),
      parsed: m?.parsed !== undefined && p?.parsed !== undefined,
      missing: [...missing],
      exitCodes: { measured: m?.exitCode ?? null, profiled: p?.exitCode ?? null },
      log: LOAD_LOG_FILE,
    };
  }

  /** Waits for the current window's run to end (the warm-up run is stopped) and reads it. */
  private async endPhase(): Promise<PhaseResult> {
    const run = this.current;
    this.current = undefined;
    if (!run) return emptyResult(this.phase, 0);
    if (this.phase === 'warmup') killRun(run);
    const end = await run.ended;
    this.logParts.push(
      `── ${this.phase}: ${redactArgv(this.argv).join(' ')}  (${end.signal ? `killed by ${end.signal}` : `exit code ${end.code}`}, ${end.durationS.toFixed(2)} s)\n${run.output}`,
    );
    if (this.phase === 'warmup') return emptyResult('warmup', end.durationS);
    const parsed = parseLoadOutput(run.output, this.argv) ?? this.parseSummaryExport(run.startedAt);
    if (!parsed && end.code !== null && end.code !== 0) {
      // Wrong flags, an unreachable URL…: say so now rather than profile an idle app.
      const last = run.output.trim().split('\n').slice(-3).join(' | ') || 'no output';
      throw new LoadError(
        'runner-failed',
        `the load command exited with code ${end.code} in the ${this.phase} window without figures: ${last}`,
        { outputTail: run.output.slice(-4000), exitCode: end.code },
      );
    }
    const result = toPhaseResult(this.phase, end.durationS, end.cpuS, parsed, end.code);
    this.results[this.phase] = result;
    if (this.phase === 'profiled') result.external.summary = this.summary();
    return result;
  }

  /**
   * The file the tool wrote its figures to, for the window just ended, when its output was not
   * read: k6's --summary-export=FILE, Locust's --csv PREFIX (PREFIX_stats.csv). Inside an
   * `sh -c` script too (a Locust master and its workers).
   */
  private parseSummaryExport(since: number): ParsedLoad | undefined {
    const script = shellScriptOf(this.argv);
    const words = script === undefined ? this.argv : script.split(/\s+/).map((w) => w.replace(/^(['"])(.*)\1$/, '$2'));
    const flag = (name: string): string | undefined => {
      const i = words.findIndex((a) => a === name || a.startsWith(`${name}=`));
      if (i < 0) return undefined;
      return words[i].includes('=') ? words[i].slice(words[i].indexOf('=') + 1) : words[i + 1];
    };
    const k6 = flag('--summary-export');
    const locust = flag('--csv');
    const file = k6 ?? (locust ? `${locust}_stats.csv` : undefined);
    try {
      const full = path.resolve(this.opts.cwd, file ?? '');
      // Written by this window's run, not left over from the one before.
      if (!file || fs.statSync(full).mtimeMs < since - 1000) return undefined; // (1 s: coarse file times)
      return parseLoadOutput(fs.readFileSync(full, 'utf8'), this.argv);
    } catch {
      return undefined; // not written (the tool failed early): the output decides
    }
  }

  private spawnRun(boundS: number): CommandRun {
    if (this.done) throw new LoadError('finished', 'the external load already finished');
    const child = spawn(this.argv[0], this.argv.slice(1), {
      cwd: this.opts.cwd,
      env: loadEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
    });
    const run: CommandRun = { child, startedAt: Date.now(), output: '', ended: undefined as never };
    const keep = (chunk: Buffer): void => {
      if (run.output.length < OUTPUT_LIMIT) run.output += chunk.toString('utf8');
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    let cpuS = 0;
    // CPU of the tool: read while it runs (after it exits /proc has nothing left to tell).
    const sampler = setInterval(() => {
      cpuS = cpuSecondsOf(child.pid) ?? cpuS;
    }, 500);
    const bound = setTimeout(() => killRun(run), boundS * 1000);
    run.ended = new Promise((resolve) => {
      const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
        clearInterval(sampler);
        clearTimeout(bound);
        run.closed = true;
        // What it left in the background (a worker whose master ended) ends with it.
        killGroup(child.pid);
        resolve({ code, signal, durationS: (Date.now() - run.startedAt) / 1000, cpuS });
      };
      child.once('close', finish);
      child.once('error', (err) => {
        keep(Buffer.from(`[hotline] ${err.message}\n`));
        if (child.pid === undefined) finish(null, null);
      });
    });
    return run;
  }
}

/**
 * Checks a load command before anything starts (before the app, too): it splits, its program
 * exists, its URLs are loopback ones. Throws LoadError('bad-options'); returns the argv.
 */
export function checkLoadCommand(commandLine: string, cwd: string, url = 'http://127.0.0.1:1/'): string[] {
  const argv = commandArgv(commandLine, url);
  if (!findProgram(argv[0], cwd))
    throw new LoadError(
      'bad-options',
      `The load command's program "${argv[0]}" was not found on PATH: install it (wrk and ab are the Debian packages wrk and apache2-utils) or give its path.`,
    );
  return argv;
}

/** The command's argv with the placeholders filled; refused if a URL in it leaves this machine. */
export function commandArgv(commandLine: string, url: string): string[] {
  let argv: string[];
  try {
    argv = splitCommandLine(commandLine);
  } catch (err) {
    if (err instanceof CommandLineError) throw new LoadError('bad-options', err.message);
    throw err;
  }
  const u = new URL(url);
  const filled = argv.map((a) =>
    a
      .replaceAll('{url}', url)
      .replaceAll('{port}', u.port || (u.protocol === 'https:' ? '443' : '80'))
      .replaceAll('{host}', u.hostname),
  );
  for (const arg of filled) {
    for (const m of arg.matchAll(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>]+/gi)) {
      let host: string;
      try {
        host = new URL(m[0]).hostname;
      } catch {
        continue; // not a URL after all
      }
      if (!isLoopback(host))
        throw new LoadError(
          'bad-options',
          `The load command targets ${host}: load tests only target this machine (127.0.0.1, localhost, ::1). Use {url} or http://127.0.0.1:{port}/… in the command.`,
        );
    }
  }
  return filled;
}

/** argv for the record: URLs and secret-looking headers (-H 'Authorization: …') redacted. */
export function redactArgv(argv: readonly string[]): string[] {
  const secret = (name: string, value: string): boolean => redactHeaders({ [name]: value })[name] !== value;
  return argv.map((a) => {
    if (/:\/\//.test(a)) return redactUrl(a);
    // `Authorization: Bearer …` (a header) or `TOKEN=…` (k6 -e, artillery variables)
    const pair = /^([A-Za-z0-9_-]+)(:\s*|=)(.*)$/.exec(a);
    return pair && secret(pair[1], pair[3]) ? `${pair[1]}${pair[2]}${REDACTED}` : a;
  });
}

function toPhaseResult(
  phase: LoadPhase,
  durationS: number,
  cpuS: number,
  parsed: ParsedLoad | undefined,
  exitCode: number | null,
): WindowResult {
  const base = emptyResult(phase, durationS);
  base.loadCpu = durationS > 0 ? Math.round((cpuS / durationS) * 1000) / 1000 : 0;
  if (!parsed) return { ...base, external: { exitCode } };
  const perSecond = parsed.perSecond ?? (parsed.total !== undefined && durationS > 0 ? parsed.total / durationS : 0);
  const latency = { mean: 0, p50: 0, p90: 0, p99: 0, max: 0, ...parsed.latencyMs };
  return {
    ...base,
    requests: { total: parsed.total ?? Math.round(perSecond * durationS), perSecond },
    latencyMs: latency,
    completedLatencyMs: latency,
    errors: parsed.errors ?? 0,
    timeouts: parsed.timeouts ?? 0,
    non2xx: parsed.non2xx ?? 0,
    statusCodes: parsed.statusCodes ?? {},
    external: { parsed, exitCode },
  };
}

function emptyResult(phase: LoadPhase, durationS: number): WindowResult {
  const zero = { mean: 0, p50: 0, p90: 0, p99: 0, max: 0 };
  return {
    phase,
    durationS,
    requests: { total: 0, perSecond: 0 },
    latencyMs: zero,
    completedLatencyMs: zero,
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    statusCodes: {},
    bytesPerSecond: 0,
    loadCpu: 0,
    external: { exitCode: null },
  };
}

/** The figures of a window came from an external command. */
export function isExternalResult(r: PhaseResult): r is WindowResult {
  return 'external' in r;
}

/** The whole process group: `npx autocannon`, `k6` and `sh -c` (a Locust master and its workers) start children. */
function killRun(run: CommandRun): void {
  const pid = run.child.pid;
  if (pid === undefined || run.closed) return;
  // The leader may have exited while what it started still holds the output: the group, then.
  if (!killGroup(pid) && run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
}

/** SIGKILL to the process group `pid` leads; false where there is none (or on Windows). */
function killGroup(pid: number | undefined): boolean {
  if (pid === undefined || process.platform === 'win32') return false;
  try {
    process.kill(-pid, 'SIGKILL');
    return true;
  } catch {
    return false; // the group is gone already
  }
}

/** utime+stime of the process and its reaped children, in seconds (Linux; undefined elsewhere). */
function cpuSecondsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields 14–17 of stat (utime stime cutime cstime) are 11–14 after "pid (comm)"; 100 ticks/s.
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
  } catch {
    return undefined;
  }
}

/** Like the load runner: the tool must not inherit the caller's inspector flags. */
function loadEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  if (env.NODE_OPTIONS)
    env.NODE_OPTIONS = env.NODE_OPTIONS.split(/\s+/)
      .filter((t) => t !== '' && !/^--(inspect|debug)/.test(t))
      .join(' ');
  return env;
}

function findProgram(program: string, cwd: string): string | undefined {
  const executable = (file: string): boolean => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  };
  if (program.includes('/') || program.includes(path.sep)) {
    const file = path.resolve(cwd, program);
    return executable(file) ? file : undefined;
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && executable(path.join(dir, program))) return path.join(dir, program);
  }
  return undefined;
}
