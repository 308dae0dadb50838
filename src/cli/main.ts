// `hotline profile | analyze | compare`: the engine for terminals and CI. Errors are one clear
// line on stderr and a non-zero exit; `--json` prints the report (or comparison) on stdout.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { stripVTControlCharacters, type parseArgs } from 'node:util';
import {
  analyzeFile,
  analyzeHeapProfile,
  exportPprof,
  type AttachSpec,
  IncomparableError,
  type Comparison,
  HeapProfileError,
  mapHeapProfilePaths,
  parseAttachTarget,
  parseHeapProfileText,
  PathMapError,
  type PathMapping,
  parsePathMapping,
  readPprofFile,
  ProfileFormatError,
  profileUnderLoad,
  PROFILE_FILE,
  readRun,
  readRunSources,
  REMOTE_ATTACH_WARNING,
  remoteHostOf,
  resolveTarget,
  RunError,
  runsDirOf,
  StoreError,
  TargetError,
  writeTimelineFile,
  formatOfFile,
} from '../core/index.ts';
import { renderAnalysis, renderHeapAnalysis, renderReport } from './render.ts';
import { renderComparison } from './render-comparison.ts';
import { notAnalysable } from './other-profiles.ts';
import { attachBaseline, BaselineError, checkedComparison, gateOutcome, readBaseline, threshold } from './baseline.ts';
import { loadAndStartOf, num, pairs, parse, targetsOf, UsageError, wantsVerbose } from './args.ts';
import { COMMAND_OPTIONS, parseConfigOf } from './options.ts';
import { conventionalAnswer } from './conventions.ts';
import { USAGE, usageOf } from './usage.ts';
import { cancelOnInterrupt, isVerbose, progressPrinter, setVerbose, verboseLine } from './progress.ts';
import { gateCommand } from './gate-command.ts';
import { lspCommand } from './lsp-command.ts';
import { mcpCommand } from '../mcp/server.ts';

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // --version, and `CMD --help` before the command checks anything (its required options too).
  const answered = conventionalAnswer(command, rest);
  if (answered !== undefined) return answered;
  if (wantsVerbose(rest)) setVerbose(true);
  try {
    switch (command) {
      case 'profile':
        return await profile(rest);
      case 'analyze':
      case 'analyse': // the British spelling, accepted as typed
        return analyze(rest);
      case 'compare':
        return compare(rest);
      case 'export':
        return exportRun(rest);
      case 'gate':
        return await gateCommand(rest);
      case 'lsp':
        return await lspCommand(rest);
      case 'mcp':
        return await mcpCommand(rest);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(`${USAGE}\n`);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${command}" (profile, gate, analyze, compare, export, lsp or mcp)`);
    }
  } catch (err) {
    return fail(err, command);
  }
}

/** The verdict goes to stderr so `--json` stdout stays one JSON document. */
function gate(c: Comparison, thresholdPct: number): number {
  const { lines, exitCode } = gateOutcome(c, thresholdPct);
  process.stderr.write(`${lines.map((l) => `hotline: ${l}`).join('\n')}\n`);
  return exitCode;
}

/** Lines node prints about the inspector Hotline attached: not the app's own words. */
const INSPECTOR_NOISE =
  /^(Debugger listening on |For help, see: https:\/\/nodejs\.org|Debugger attached\.|Waiting for the debugger to disconnect)/;

function fail(err: unknown, command?: string): number {
  const message = err instanceof Error ? err.message : String(err);
  const help = command !== undefined && usageOf(command) !== undefined ? `hotline ${command} --help` : 'hotline help';
  if (err instanceof UsageError && err.unknownOption !== undefined) {
    process.stderr.write(`hotline: ${message}: see '${help}'\n`);
    return 2;
  }
  process.stderr.write(`hotline: ${message}\n`);
  if (err instanceof BaselineError || err instanceof IncomparableError) return 2;
  // Options the engine refuses (out of range, a URL off this machine) are bad usage too.
  const usage =
    err instanceof UsageError || err instanceof TargetError || (err instanceof RunError && err.kind === 'bad-options');
  if (usage) process.stderr.write(`Run \`${help}\` for the options.\n`);
  if (
    err instanceof RunError &&
    err.output.trim() &&
    (err.kind === 'app-exited' || err.kind === 'never-listened' || err.kind === 'port-in-use')
  ) {
    // Stack frames last: the error's own line and the source it points at matter more.
    const lines = err.output
      .trimEnd()
      .split('\n')
      .map((l) => stripVTControlCharacters(l)) // a build step's colours (tsc under `nest start`) are noise here
      .filter((l) => !INSPECTOR_NOISE.test(l) && !/^\s+at /.test(l));
    const tail = lines.slice(-12);
    process.stderr.write(`The app's last output:\n${tail.map((l) => `  | ${l}`).join('\n')}\n`);
  }
  return usage ? 2 : 1;
}

async function profile(argv: string[]): Promise<number> {
  const dash = argv.indexOf('--');
  const appArgs = dash >= 0 ? argv.slice(dash + 1) : [];
  const { values, positionals } = parse(dash >= 0 ? argv.slice(0, dash) : argv, parseConfigOf(COMMAND_OPTIONS.profile));
  if (positionals.length > 1) throw new UsageError(`profile takes one app folder (got ${positionals.join(', ')})`);
  const targets = targetsOf(values);
  const dir = path.resolve(positionals[0] ?? '.');
  const attach = attachOptions(values, appArgs);
  if (attach && !fs.existsSync(dir))
    throw new UsageError(
      `the app folder ${dir} does not exist (with --attach, DIR is the folder of the running app's code)`,
    );
  const ownLoadOnly = ['method', 'header', 'body', 'connections', 'pipelining', 'timeout', 'requests'].filter(
    (k) => values[k] !== undefined,
  );
  if (values['load-command'] !== undefined && targets.requests)
    throw new UsageError('several --url make a mix that Hotline loads itself: with --load-command, give one');
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
        command: values.command as string | undefined,
        args: appArgs,
        env: pairs(values.env, '=', 'env'),
        nodePath: values.node as string | undefined,
      });
  verboseLine(
    attach ? `attaching to ${attach.target}` : `the start command: ${startLineOf(target)} (in ${target.cwd})`,
  );
  const json = values.json === true;
  const runsDir = values.out ? path.resolve(values.out as string) : runsDirOf(dir);
  const failIfSlower = threshold(values['fail-if-slower']);
  if (failIfSlower !== undefined && values.baseline === undefined)
    throw new UsageError('--fail-if-slower needs --baseline RUN (the run to compare with)');
  const base = typeof values.baseline === 'string' ? readBaseline(values.baseline, runsDir) : undefined;
  const interrupts = cancelOnInterrupt('stopping the app and the load');
  const progress = progressPrinter();
  const startedAt = Date.now();
  try {
    const run = await profileUnderLoad({
      target,
      ...loadAndStartOf(values),
      // A mix carries each request's method and body itself.
      ...(targets.requests ? { ...targets, body: undefined } : targets),
      samplingIntervalUs: num(values['sampling-interval'], 'sampling-interval'),
      stallThresholdMs: num(values['stall-threshold'], 'stall-threshold'),
      ...(values['no-waits'] === true ? { waits: false } : {}),
      stackRateHz: num(values['stack-rate'], 'stack-rate'),
      ...(values.heap === true ? { heap: {} } : {}),
      subWindows: num(values['sub-windows'], 'sub-windows'),
      runsDir,
      attach,
      loadCommand: values['load-command'] as string | undefined,
      signal: interrupts.signal,
      onProgress: progress,
      ...(isVerbose() ? { onOutput: inspectorLines } : {}),
    });
    progress.end();
    const { runDir } = run;
    verboseLine(`analyzed and saved ${shortPath(runDir)}${path.sep}`);
    if (values.pprof !== undefined) writePprof(path.join(runDir, PROFILE_FILE), values.pprof as string);
    const compared = base ? attachBaseline(runDir, run.report, base, values.force === true) : undefined;
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
    interrupts.dispose();
  }
}

/** The command line Hotline runs the app by, as --verbose shows it. */
function startLineOf(t: { command?: string; entry: string; args?: string[]; runtimeArgs?: string[] }): string {
  return t.command ?? ['node', ...(t.runtimeArgs ?? []), t.entry, ...(t.args ?? [])].join(' ');
}

/** Node's own lines about the inspector in the app's output: the attach step, for --verbose. */
function inspectorLines(_stream: 'stdout' | 'stderr', text: string): void {
  for (const line of text.split('\n'))
    if (/^Debugger (listening on|attached)/.test(line)) verboseLine(`the app's inspector: ${line.trim()}`);
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
  const startOnly = ['entry', 'script', 'command', 'env', 'node', 'listen-timeout', 'stop-grace'].filter(
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

function analyze(argv: string[]): number {
  const { values, positionals } = parse(argv, parseConfigOf(COMMAND_OPTIONS.analyze));
  if (positionals.length !== 1)
    throw new UsageError('analyze takes one .cpuprofile, .heapprofile or pprof (.pb.gz) file');
  const file = path.resolve(positionals[0]);
  const root = path.resolve((values.root as string | undefined) ?? '.');
  const pathMap = pathMaps(values['map-path']);
  if (!fs.existsSync(file)) throw new Error(`${positionals[0]} does not exist`);
  const format = formatOfFile(file);
  const shown = positionals[0];
  const timelineOut = values.timeline as string | undefined;
  if (format === 'heapprofile')
    return analyzeHeap(() => readHeapProfile(file, shown), shown, root, pathMap, values.json === true, timelineOut);
  if (format === 'pprof') {
    const pprof = readPprof(file, shown);
    if (pprof.kind === 'heap')
      return analyzeHeap(() => pprof.profile, shown, root, pathMap, values.json === true, timelineOut);
  }
  // One line and exit 1, as for a damaged profile: the file is the problem, not the options.
  if (format !== undefined && format !== 'cpuprofile' && format !== 'pprof')
    throw new Error(notAnalysable(shown, format));
  let analysis;
  let timeline;
  try {
    ({ analysis, timeline } = analyzeFile(file, root, { pathMap }));
  } catch (err) {
    if (err instanceof ProfileFormatError) throw new Error(`${shown} is not a usable CPU profile: ${err.message}`);
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`${shown} does not exist`);
    throw err;
  }
  // The samples in time, for the report's heat map (timeline.ts); written before anything is printed.
  if (timelineOut !== undefined) {
    if (!timeline) throw new Error(`${shown} has no sample order (hit counts or pprof only): no timeline to write`);
    writeTimelineFile(path.resolve(timelineOut), timeline);
  }
  if (values.json) process.stdout.write(`${JSON.stringify(analysis, null, 1)}\n`);
  else
    process.stdout.write(
      `${renderAnalysis(analysis, { cwd: process.cwd(), color: process.stdout.isTTY === true }).join('\n')}\n`,
    );
  return 0;
}

/**
 * `--map-path FROM=TO` (repeatable). Reading a profile, TO is a folder here (relative to the current
 * folder); exporting one, FROM is (`local`: the side that is resolved).
 */
function pathMaps(specs: unknown, localIsTo = true): PathMapping[] {
  return ((specs as string[] | undefined) ?? []).map((spec) => {
    try {
      const m = parsePathMapping(spec);
      return localIsTo
        ? { from: m.from, to: `${path.resolve(m.to)}/` }
        : { from: `${path.resolve(m.from)}/`, to: m.to };
    } catch (err) {
      if (err instanceof PathMapError) throw new UsageError(`--map-path: ${err.message}`);
      throw err;
    }
  });
}

function readHeapProfile(file: string, shown: string): ReturnType<typeof parseHeapProfileText> {
  try {
    return parseHeapProfileText(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    if (err instanceof HeapProfileError) throw new Error(`${shown} is not a usable heap profile: ${err.message}`);
    throw err;
  }
}

function readPprof(file: string, shown: string): ReturnType<typeof readPprofFile> {
  try {
    return readPprofFile(file);
  } catch (err) {
    if (err instanceof ProfileFormatError) throw new Error(`${shown} is not a usable pprof profile: ${err.message}`);
    throw err;
  }
}

function analyzeHeap(
  read: () => ReturnType<typeof parseHeapProfileText>,
  shown: string,
  root: string,
  pathMap: PathMapping[],
  json: boolean,
  timeline: string | undefined,
): number {
  if (timeline !== undefined)
    throw new UsageError(`${shown} is a heap profile: it has allocations, not samples in time (no --timeline)`);
  let analysis;
  try {
    analysis = analyzeHeapProfile(mapHeapProfilePaths(read(), pathMap), root);
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

/** `hotline export RUN|FILE.cpuprofile --pprof OUT.pb.gz [--map-path FROM=TO]`: a run's profile as pprof. */
function exportRun(argv: string[]): number {
  const { values, positionals } = parse(argv, parseConfigOf(COMMAND_OPTIONS.export));
  if (positionals.length !== 1)
    throw new UsageError('export takes one run (folder, report.json or run id) or .cpuprofile');
  if (typeof values.pprof !== 'string') throw new UsageError('export needs --pprof OUT.pb.gz');
  const pathMap = pathMaps(values['map-path'], false);
  const ref = positionals[0];
  let file: string;
  if (/\.cpuprofile$/i.test(ref) && fs.existsSync(ref)) file = path.resolve(ref);
  else {
    try {
      file = path.join(readRun(ref, path.resolve('.hotline', 'runs')).dir, PROFILE_FILE);
    } catch (err) {
      if (err instanceof StoreError) throw new Error(err.message);
      throw err;
    }
  }
  writePprof(file, values.pprof, pathMap);
  return 0;
}

function writePprof(profileFile: string, out: string, pathMap: PathMapping[] = []): void {
  try {
    exportPprof(profileFile, path.resolve(out), { pathMap });
  } catch (err) {
    if (err instanceof ProfileFormatError)
      throw new Error(`${profileFile} is not a usable CPU profile: ${err.message}`, { cause: err });
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new Error(`${(err as NodeJS.ErrnoException).path ?? profileFile} does not exist`, { cause: err });
    throw err;
  }
  process.stderr.write(`hotline: wrote ${shortPath(path.resolve(out))} (pprof)\n`);
}

function compare(argv: string[]): number {
  const { values, positionals } = parse(argv, parseConfigOf(COMMAND_OPTIONS.compare));
  if (positionals.length !== 2) throw new UsageError('compare takes two runs: the baseline, then the new run');
  const failIfSlower = threshold(values['fail-if-slower']);
  const runsDir = path.resolve('.hotline', 'runs');
  try {
    const base = readRun(positionals[0], runsDir);
    const current = readRun(positionals[1], runsDir);
    const comparison = checkedComparison(
      base.report,
      current.report,
      values.force === true,
      readRunSources(base.dir, current.dir),
    );
    if (values.json) process.stdout.write(`${JSON.stringify(comparison, null, 1)}\n`);
    else process.stdout.write(`${renderComparison(comparison, { cwd: process.cwd(), color: false })}\n`);
    return failIfSlower !== undefined ? gate(comparison, failIfSlower) : 0;
  } catch (err) {
    if (err instanceof StoreError) throw new Error(err.message);
    throw err;
  }
}
