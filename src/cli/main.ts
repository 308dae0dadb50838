// `hotline profile | analyze | compare`: the engine for terminals and CI. Errors are one clear
// line on stderr and a non-zero exit; `--json` prints the report (or comparison) on stdout.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import {
  analyzeFile,
  analyzeHeapProfile,
  type AttachSpec,
  compareReports,
  type Comparison,
  HeapProfileError,
  parseAttachTarget,
  parseHeapProfileText,
  ProfileFormatError,
  profileUnderLoad,
  readRun,
  REMOTE_ATTACH_WARNING,
  remoteHostOf,
  resolveTarget,
  RUN_DEFAULTS,
  RunError,
  type RunProgress,
  runsDirOf,
  StoreError,
  TargetError,
} from '../core/index.ts';
import { renderAnalysis, renderComparison, renderHeapAnalysis, renderReport } from './render.ts';
import { formatOf, notAnalysable } from './other-profiles.ts';
import { attachBaseline, BaselineError, gateOutcome, readBaseline, threshold } from './baseline.ts';

const USAGE = `Usage:
  hotline profile [DIR] --url PATH|URL [--entry FILE | --script NAME | --attach TARGET] [options] [-- APP ARGS]
      Start the app in DIR under the inspector, load it over HTTP, profile it, print the report.
      --entry FILE            script node runs (default: package.json main, else its start script)
      --script NAME           an npm script of the form \`node [flags] FILE [args]\`
      --url PATH|URL          path joined to the port the app opens, or a full http://127.0.0.1:PORT/… URL
      --method M              HTTP method (default GET)
      --header K:V            request header, repeatable
      --body TEXT             request body
      --connections N         concurrent connections (default ${RUN_DEFAULTS.connections})
      --pipelining N          requests in flight per connection (default ${RUN_DEFAULTS.pipelining})
      --duration S            seconds of each window, measured and profiled (default ${RUN_DEFAULTS.durationS})
      --warmup S              seconds of warm-up before measuring (default ${RUN_DEFAULTS.warmupS})
      --sampling-interval US  profiler sampling interval in µs (default ${RUN_DEFAULTS.samplingIntervalUs})
      --heap                  also sample allocations (heap.heapprofile; bytes per function in the report)
      --timeout S             per-request timeout (default ${RUN_DEFAULTS.timeoutS})
      --env K=V               environment variable for the app, repeatable
      --node PATH             node binary for the app (default: node on PATH)
      --listen-timeout S      how long the app may take to listen (default ${RUN_DEFAULTS.listenTimeoutS})
      --stop-grace S          after its one SIGTERM, how long the app may take to shut down before
                              SIGKILL (default ${RUN_DEFAULTS.stopGraceS})
      --out DIR               where runs are kept (default DIR/.hotline/runs)
      --attach TARGET         profile an app that already runs instead of starting one, and leave it
                              running: its inspector URL (ws://127.0.0.1:9229/…), inspector port
                              (9229), or process id (pid:1234; Hotline sends SIGUSR1 to open the
                              inspector). DIR is the app's folder. --url may be a path when the app
                              listens on one port.
      --allow-remote-attach   allow --attach to an inspector on another host (it gives code execution)
      --load-command CMD      load with your own tool instead of autocannon, e.g.
                              "wrk -t2 -c50 -d10s {url}" ({url}, {port}, {host} are filled in; no shell).
                              It runs once per window, which lasts as long as it does (killed after
                              duration×2+30 s); wrk, ab, autocannon, artillery and k6 output is parsed,
                              any output is kept in the run's load.log. Targets must be 127.0.0.1/localhost.
      --json                  print report.json on stdout
      --baseline RUN          compare with an earlier run (folder, report.json or run id); the
                              comparison is printed and kept in report.json
      --fail-if-slower N%     with --baseline: exit 3 when req/s fell or p99 latency rose by more
                              than N% (both from the window without the profiler)
  hotline analyze FILE.cpuprofile|FILE.heapprofile [--root DIR] [--json] [--timeline OUT.json]
      Analyze a saved profile (a heap profile: bytes per function); DIR is the app folder whose
      code is "yours" (default: current folder). A node --prof log or perf script text is named,
      with what opens it (the flame graph in VS Code).
      --timeline writes its samples in time (the report's sub-second heat map) to OUT.json.
  hotline compare RUN_A RUN_B [--json] [--fail-if-slower N%]
      Compare two runs (folders, report.json paths or run ids): RUN_A is the baseline.

Exit codes: 0 done, 1 the run or the comparison failed (or a partial run), 2 bad usage,
3 slower than --fail-if-slower allows, 130 cancelled.`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'profile':
        return await profile(rest);
      case 'analyze':
      case 'analyse': // the British spelling, accepted as typed
        return analyze(rest);
      case 'compare':
        return compare(rest);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(`${USAGE}\n`);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${command}" (profile, analyze or compare)`);
    }
  } catch (err) {
    return fail(err);
  }
}

class UsageError extends Error {}

/** The verdict goes to stderr so `--json` stdout stays one JSON document. */
function gate(c: Comparison, thresholdPct: number): number {
  const { lines, exitCode } = gateOutcome(c, thresholdPct);
  process.stderr.write(`${lines.map((l) => `hotline: ${l}`).join('\n')}\n`);
  return exitCode;
}

/** Lines node prints about the inspector Hotline attached: not the app's own words. */
const INSPECTOR_NOISE =
  /^(Debugger listening on |For help, see: https:\/\/nodejs\.org|Debugger attached\.|Waiting for the debugger to disconnect)/;

function fail(err: unknown): number {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`hotline: ${message}\n`);
  if (err instanceof BaselineError) return 2;
  // Options the engine refuses (out of range, a URL off this machine) are bad usage too.
  const usage =
    err instanceof UsageError || err instanceof TargetError || (err instanceof RunError && err.kind === 'bad-options');
  if (usage) process.stderr.write('Run `hotline help` for the options.\n');
  if (
    err instanceof RunError &&
    err.output.trim() &&
    (err.kind === 'app-exited' || err.kind === 'never-listened' || err.kind === 'port-in-use')
  ) {
    // Stack frames last: the error's own line and the source it points at matter more.
    const lines = err.output
      .trimEnd()
      .split('\n')
      .filter((l) => !INSPECTOR_NOISE.test(l) && !/^\s+at /.test(l));
    const tail = lines.slice(-12);
    process.stderr.write(`The app's last output:\n${tail.map((l) => `  | ${l}`).join('\n')}\n`);
  }
  return usage ? 2 : 1;
}

function parse(
  args: string[],
  options: NonNullable<NonNullable<Parameters<typeof parseArgs>[0]>['options']>,
): ReturnType<typeof parseArgs> {
  try {
    return parseArgs({ args: joinNegativeValues(args, options), allowPositionals: true, options, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message.split('\n')[0]);
  }
}

/**
 * `--duration -1` as `--duration=-1`: parseArgs takes a value that starts with a dash for an
 * option and calls the call ambiguous, though the user plainly meant a (negative) number, which
 * then gets the range message it deserves.
 */
function joinNegativeValues(args: string[], options: Record<string, { type: 'string' | 'boolean' }>): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const name = /^--([^=]+)$/.exec(args[i])?.[1];
    if (name !== undefined && options[name]?.type === 'string' && /^-(\d|\.\d)/.test(args[i + 1] ?? '')) {
      out.push(`${args[i]}=${args[i + 1]}`);
      i++;
    } else out.push(args[i]);
  }
  return out;
}

function num(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new UsageError(`--${flag} needs a number (got "${String(value)}")`);
  return n;
}

function pairs(values: unknown, sep: string, flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of (values as string[] | undefined) ?? []) {
    const i = v.indexOf(sep);
    if (i <= 0) throw new UsageError(`--${flag} takes NAME${sep}VALUE (got "${v}")`);
    out[v.slice(0, i).trim()] = v.slice(i + 1).trim();
  }
  return out;
}

async function profile(argv: string[]): Promise<number> {
  const dash = argv.indexOf('--');
  const appArgs = dash >= 0 ? argv.slice(dash + 1) : [];
  const { values, positionals } = parse(dash >= 0 ? argv.slice(0, dash) : argv, {
    entry: { type: 'string' },
    script: { type: 'string' },
    url: { type: 'string' },
    method: { type: 'string' },
    header: { type: 'string', multiple: true },
    body: { type: 'string' },
    connections: { type: 'string' },
    pipelining: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    'sampling-interval': { type: 'string' },
    timeout: { type: 'string' },
    env: { type: 'string', multiple: true },
    node: { type: 'string' },
    'listen-timeout': { type: 'string' },
    'stop-grace': { type: 'string' },
    out: { type: 'string' },
    json: { type: 'boolean' },
    baseline: { type: 'string' },
    'fail-if-slower': { type: 'string' },
    heap: { type: 'boolean' },
    attach: { type: 'string' },
    'allow-remote-attach': { type: 'boolean' },
    'load-command': { type: 'string' },
  });
  if (positionals.length > 1) throw new UsageError(`profile takes one app folder (got ${positionals.join(', ')})`);
  if (typeof values.url !== 'string')
    throw new UsageError('profile needs --url (a path such as /login, or a full http://127.0.0.1:PORT/… URL)');
  const dir = path.resolve(positionals[0] ?? '.');
  const attach = attachOptions(values, appArgs);
  if (attach && !fs.existsSync(dir))
    throw new UsageError(
      `the app folder ${dir} does not exist (with --attach, DIR is the folder of the running app's code)`,
    );
  const ownLoadOnly = ['method', 'header', 'body', 'connections', 'pipelining', 'timeout'].filter(
    (k) => values[k] !== undefined,
  );
  if (values['load-command'] !== undefined && ownLoadOnly.length > 0) {
    throw new UsageError(
      `${ownLoadOnly.map((k) => `--${k}`).join(', ')} set Hotline's own load: with --load-command, put them in the command`,
    );
  }
  const target = attach
    ? { cwd: dir, entry: '' }
    : resolveTarget(dir, {
        entry: values.entry as string | undefined,
        script: values.script as string | undefined,
        args: appArgs,
        env: pairs(values.env, '=', 'env'),
        nodePath: values.node as string | undefined,
      });
  const json = values.json === true;
  const runsDir = values.out ? path.resolve(values.out as string) : runsDirOf(dir);
  const failIfSlower = threshold(values['fail-if-slower']);
  if (failIfSlower !== undefined && values.baseline === undefined)
    throw new UsageError('--fail-if-slower needs --baseline RUN (the run to compare with)');
  const base = typeof values.baseline === 'string' ? readBaseline(values.baseline, runsDir) : undefined;
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (): void => {
    interrupts++;
    if (interrupts === 1) {
      process.stderr.write('\nhotline: stopping the app and the load (Ctrl-C again to quit at once)\n');
      controller.abort();
    } else {
      process.exit(130);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const progress = progressPrinter();
  const startedAt = Date.now();
  try {
    const run = await profileUnderLoad({
      target,
      url: values.url,
      method: values.method as string | undefined,
      headers: pairs(values.header, ':', 'header'),
      body: values.body as string | undefined,
      connections: num(values.connections, 'connections'),
      pipelining: num(values.pipelining, 'pipelining'),
      durationS: num(values.duration, 'duration'),
      warmupS: num(values.warmup, 'warmup'),
      samplingIntervalUs: num(values['sampling-interval'], 'sampling-interval'),
      ...(values.heap === true ? { heap: {} } : {}),
      timeoutS: num(values.timeout, 'timeout'),
      listenTimeoutS: num(values['listen-timeout'], 'listen-timeout'),
      stopGraceS: num(values['stop-grace'], 'stop-grace'),
      runsDir,
      attach,
      loadCommand: values['load-command'] as string | undefined,
      signal: controller.signal,
      onProgress: progress,
    });
    progress.end();
    const { runDir } = run;
    const compared = base ? attachBaseline(runDir, run.report, base) : undefined;
    const report = compared?.report ?? run.report;
    if (json) process.stdout.write(`${JSON.stringify(report, null, 1)}\n`);
    else {
      process.stdout.write(`${renderReport(report, { cwd: process.cwd(), color: process.stdout.isTTY === true })}\n`);
      if (compared)
        process.stdout.write(`\n${renderComparison(compared.comparison, { cwd: process.cwd(), color: false })}\n`);
      process.stdout.write(`\nSaved ${shortPath(runDir)}${path.sep} (report.json, profile.cpuprofile, …)\n`);
      const profLog = profLogsOf(target, startedAt);
      if (profLog.length > 0)
        process.stdout.write(
          `The app's own node --prof wrote ${profLog.map(shortPath).join(', ')}: open it as a flame graph in VS Code (Hotline), or \`node --prof-process FILE\`.\n`,
        );
    }
    if (report.partial) {
      // A report was written, but the run did not complete: CI must not take it for a pass.
      process.stderr.write(`hotline: ${report.partial.reason}\n`);
      return 1;
    }
    return compared && failIfSlower !== undefined ? gate(compared.comparison, failIfSlower) : 0;
  } catch (err) {
    progress.end();
    if (err instanceof RunError && err.kind === 'cancelled') {
      process.stderr.write(
        `hotline: ${err.message} ${attach ? 'The load was stopped; the app was left running.' : 'The app and the load were stopped.'}\n`,
      );
      return 130;
    }
    if (err instanceof TargetError) throw new UsageError(err.message);
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** A path as the user reads it best: relative when inside the current folder, else absolute. */
function shortPath(file: string): string {
  const r = path.relative(process.cwd(), file);
  return r && !r.startsWith('..') && !path.isAbsolute(r) ? r : file;
}

/**
 * The isolate-*.log files a `node --prof` in the app's own flags (an npm script's) wrote during
 * the run: V8 puts them in the app's folder, where nobody would look for them.
 */
function profLogsOf(target: { cwd: string; runtimeArgs?: string[] }, since: number): string[] {
  if (!(target.runtimeArgs ?? []).some((a) => a === '--prof' || a.startsWith('--logfile'))) return [];
  const logfile = (target.runtimeArgs ?? []).find((a) => a.startsWith('--logfile='))?.slice('--logfile='.length);
  const candidates = logfile
    ? [path.resolve(target.cwd, logfile)]
    : fs
        .readdirSync(target.cwd)
        .filter((f) => /^isolate-.*\.log$/.test(f))
        .map((f) => path.join(target.cwd, f));
  return candidates.filter((f) => {
    try {
      return fs.statSync(f).mtimeMs >= since;
    } catch {
      return false;
    }
  });
}

/** --attach and what it excludes (the app already runs: how to start it is not ours to say). */
function attachOptions(values: ReturnType<typeof parseArgs>['values'], appArgs: string[]): AttachSpec | undefined {
  const allowRemote = values['allow-remote-attach'] === true;
  if (typeof values.attach !== 'string') {
    if (allowRemote) throw new UsageError('--allow-remote-attach goes with --attach');
    return undefined;
  }
  const startOnly = ['entry', 'script', 'env', 'node', 'listen-timeout', 'stop-grace'].filter(
    (k) => values[k] !== undefined,
  );
  if (startOnly.length > 0 || appArgs.length > 0) {
    throw new UsageError(
      `--attach profiles an app that already runs: ${startOnly
        .map((k) => `--${k}`)
        .concat(appArgs.length > 0 ? ['-- APP ARGS'] : [])
        .join(', ')}: these apply only to an app Hotline starts`,
    );
  }
  let remote: string | undefined;
  try {
    remote = remoteHostOf(parseAttachTarget(values.attach));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (remote !== undefined && allowRemote)
    process.stderr.write(`hotline: warning: attaching to an inspector on ${remote}: ${REMOTE_ATTACH_WARNING}\n`);
  return { target: values.attach, allowRemote };
}

/** Phase changes as lines on stderr; per-second figures overwrite one line on a terminal. */
function progressPrinter(): ((p: RunProgress) => void) & { end(): void } {
  const tty = process.stderr.isTTY === true;
  let lastPhase = '';
  let open = false;
  const fn = ((p: RunProgress) => {
    const text = p.of !== undefined ? `${p.message} [${p.second ?? 0}/${p.of} s]` : p.message;
    if (p.phase !== lastPhase || !tty) {
      if (open) process.stderr.write('\n');
      open = false;
      if (p.phase !== lastPhase || p.second === undefined) process.stderr.write(`hotline: ${text}\n`);
      lastPhase = p.phase;
      return;
    }
    process.stderr.write(`\r\x1b[2Khotline: ${text}`);
    open = true;
  }) as ((p: RunProgress) => void) & { end(): void };
  fn.end = () => {
    if (open) process.stderr.write('\n');
    open = false;
  };
  return fn;
}

function analyze(argv: string[]): number {
  const { values, positionals } = parse(argv, {
    root: { type: 'string' },
    json: { type: 'boolean' },
    timeline: { type: 'string' },
  });
  if (positionals.length !== 1) throw new UsageError('analyze takes one .cpuprofile (or .heapprofile) file');
  const file = path.resolve(positionals[0]);
  const root = path.resolve((values.root as string | undefined) ?? '.');
  if (!fs.existsSync(file)) throw new Error(`${positionals[0]} does not exist`);
  const format = formatOf(file);
  if (format === 'heapprofile')
    return analyzeHeap(file, positionals[0], root, values.json === true, values.timeline !== undefined);
  // One line and exit 1, as for a damaged profile: the file is the problem, not the options.
  if (format !== undefined && format !== 'cpuprofile') throw new Error(notAnalysable(positionals[0], format));
  let analysis;
  let timeline;
  try {
    ({ analysis, timeline } = analyzeFile(file, root));
  } catch (err) {
    if (err instanceof ProfileFormatError)
      throw new Error(`${positionals[0]} is not a usable CPU profile: ${err.message}`);
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`${positionals[0]} does not exist`);
    throw err;
  }
  // The samples in time, for the report's heat map (timeline.ts); written before anything is printed.
  if (values.timeline !== undefined) {
    if (!timeline) throw new Error(`${positionals[0]} has no sample order (hit counts only): no timeline to write`);
    fs.writeFileSync(path.resolve(values.timeline as string), JSON.stringify(timeline));
  }
  if (values.json) process.stdout.write(`${JSON.stringify(analysis, null, 1)}\n`);
  else
    process.stdout.write(
      `${renderAnalysis(analysis, { cwd: process.cwd(), color: process.stdout.isTTY === true }).join('\n')}\n`,
    );
  return 0;
}

function analyzeHeap(file: string, shown: string, root: string, json: boolean, timeline: boolean): number {
  if (timeline)
    throw new UsageError(`${shown} is a heap profile: it has allocations, not samples in time (no --timeline)`);
  let analysis;
  try {
    analysis = analyzeHeapProfile(parseHeapProfileText(fs.readFileSync(file, 'utf8')), root);
  } catch (err) {
    if (err instanceof HeapProfileError) throw new Error(`${shown} is not a usable heap profile: ${err.message}`);
    throw err;
  }
  if (json) process.stdout.write(`${JSON.stringify({ kind: 'heapprofile', ...analysis }, null, 1)}\n`);
  else
    process.stdout.write(
      `${renderHeapAnalysis(analysis, { cwd: process.cwd(), color: process.stdout.isTTY === true }).join('\n')}\n`,
    );
  return 0;
}

function compare(argv: string[]): number {
  const { values, positionals } = parse(argv, { json: { type: 'boolean' }, 'fail-if-slower': { type: 'string' } });
  if (positionals.length !== 2) throw new UsageError('compare takes two runs: the baseline, then the new run');
  const failIfSlower = threshold(values['fail-if-slower']);
  const runsDir = path.resolve('.hotline', 'runs');
  try {
    const base = readRun(positionals[0], runsDir);
    const current = readRun(positionals[1], runsDir);
    const comparison = compareReports(base.report, current.report);
    if (values.json) process.stdout.write(`${JSON.stringify(comparison, null, 1)}\n`);
    else process.stdout.write(`${renderComparison(comparison, { cwd: process.cwd(), color: false })}\n`);
    return failIfSlower !== undefined ? gate(comparison, failIfSlower) : 0;
  } catch (err) {
    if (err instanceof StoreError) throw new Error(err.message);
    throw err;
  }
}
