// `hotline gate BASE [DIR]`: the baseline's code and this code started side by side and loaded in
// turn, round after round (capture/side-by-side.ts), then gated as --fail-if-slower gates two runs.
// For CI on a shared machine: two runs minutes apart differ by more than a 10% regression there.
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  compareSideBySide,
  type GateVerdict,
  type SideBySideFigures,
  measureSideBySide,
  regressionGate,
  newRunId,
  resolveTarget,
  RunError,
  TargetError,
  writeFileAtomic,
} from '../core/index.ts';
import { gateOutcome, threshold } from './baseline.ts';
import { loadAndStartOf, num, pairs, parse, targetsOf, UsageError } from './args.ts';
import { COMMAND_OPTIONS, parseConfigOf } from './options.ts';
import { cancelOnInterrupt, progressPrinter } from './progress.ts';

/** The gate's threshold when none is given: the README's. */
const DEFAULT_THRESHOLD_PCT = 5;
/** The gate's time budget when none is given: a CI step's few minutes, within 5. */
export const DEFAULT_MAX_TIME_S = 270;
/** The most rounds a gate takes (side-by-side.ts MAX_ROUNDS). */
const ROUNDS_CAP = 100;

export async function gateCommand(argv: string[]): Promise<number> {
  const dash = argv.indexOf('--');
  const appArgs = dash >= 0 ? argv.slice(dash + 1) : [];
  const { values, positionals } = parse(dash >= 0 ? argv.slice(0, dash) : argv, parseConfigOf(COMMAND_OPTIONS.gate));
  if (positionals.length < 1 || positionals.length > 2)
    throw new UsageError(
      "gate takes the baseline's folder and, optionally, the current one (e.g. `git worktree add ../base main` then `hotline gate ../base --url /`)",
    );
  if (values.url === undefined && values.requests === undefined)
    throw new UsageError('gate needs --url (a path such as /login; repeated: a mix) or --requests FILE');
  // A request mix (several --url, --requests FILE): each route is gated as well.
  const targets = targetsOf(values);
  const [baseDir, currentDir] = [path.resolve(positionals[0]), path.resolve(positionals[1] ?? '.')];
  for (const dir of [baseDir, currentDir])
    if (!fs.existsSync(dir)) throw new UsageError(`the folder ${dir} does not exist`);
  const targetOf = (dir: string): ReturnType<typeof resolveTarget> => {
    try {
      return resolveTarget(dir, {
        entry: values.entry as string | undefined,
        script: values.script as string | undefined,
        command: values.command as string | undefined,
        args: appArgs,
        env: pairs(values.env, '=', 'env'),
        nodePath: values.node as string | undefined,
      });
    } catch (err) {
      if (err instanceof TargetError) throw new UsageError(err.message);
      throw err;
    }
  };
  const thresholdPct = threshold(values['fail-if-slower']) ?? DEFAULT_THRESHOLD_PCT;
  const base = targetOf(baseDir);
  const current = targetOf(currentDir);
  const maxTimeS = num(values['max-time'], 'max-time') ?? DEFAULT_MAX_TIME_S;
  if (!(maxTimeS > 0)) throw new UsageError(`--max-time takes seconds above 0 (got ${String(values['max-time'])})`);
  // CPU per request of the process tree from /proc when every window has it (Linux), else the app's own.
  const gateOptions = (f: SideBySideFigures): { pickMeasure: true; cpuSource: string } => ({
    pickMeasure: true,
    cpuSource:
      f.base.treeCpuMsPerRequest && f.current.treeCpuMsPerRequest
        ? "the app's process tree, from /proc"
        : "the app's own, read through its inspector",
  });
  const startedAt = Date.now();
  const interrupts = cancelOnInterrupt('stopping both versions and the load');
  const progress = progressPrinter();
  try {
    const figures = await measureSideBySide({
      base,
      current,
      url: targets.url,
      ...(targets.requests ? { requests: targets.requests } : {}),
      ...loadAndStartOf(values),
      rounds: num(values.rounds, 'rounds'),
      freshEachRound: values['one-start'] !== true,
      // Undecided after its rounds: as many again, until it decides, --max-rounds or --max-time.
      extend: {
        maxRounds: num(values['max-rounds'], 'max-rounds') ?? ROUNDS_CAP,
        maxTimeS,
        decided: (f) => {
          const v = regressionGate(compareSideBySide(f, f.confidence), thresholdPct, {
            ...gateOptions(f),
            confidence: f.confidence,
          });
          // A route that looks slower but is not shown so yet gets rounds too (verdicts/gate.ts).
          return !v.decided || v.failed || (!v.inconclusive && v.routesSuspect !== true);
        },
      },
      signal: interrupts.signal,
      onProgress: progress,
    });
    progress.end();
    const comparison = compareSideBySide(figures, figures.confidence);
    const outcome = gateOutcome(comparison, thresholdPct, figures.confidence, gateOptions(figures));
    const { exitCode, verdict } = outcome;
    const secondsPerRound = (Date.now() - startedAt) / 1000 / Math.max(1, figures.rounds);
    // What decided and what the run could see, before the last line (the outcome).
    const lines = [
      ...outcome.lines.slice(0, -1),
      ...seeingLines(verdict, thresholdPct, secondsPerRound, maxTimeS),
      ...outcome.lines.slice(-1),
    ];
    // On disk before it is shown.
    const file = path.join(currentDir, '.hotline', 'gates', `${newRunId(new Date())}.json`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    writeFileAtomic(file, JSON.stringify({ figures, comparison, verdict }, null, 1));
    if (values.json === true) process.stdout.write(`${JSON.stringify({ figures, comparison, verdict }, null, 1)}\n`);
    process.stderr.write(
      `hotline: ${figures.rounds} rounds of ${figures.windowS.toFixed(1)} s, the two versions loaded in turn${figures.freshEachRound ? ', started afresh each round' : ', started once'}: the intervals (${((figures.confidence ?? 0.95) * 100).toFixed(1)}%, a sequential test's level) are of the rounds' ratios\n`,
    );
    process.stderr.write(`${lines.map((l) => `hotline: ${l}`).join('\n')}\n`);
    process.stderr.write(`hotline: saved ${path.relative(process.cwd(), file) || file}\n`);
    return exitCode;
  } catch (err) {
    progress.end();
    if (err instanceof RunError && err.kind === 'cancelled') {
      process.stderr.write(`hotline: ${err.message} Both versions and the load were stopped.\n`);
      return 130;
    }
    throw err;
  } finally {
    interrupts.dispose();
  }
}

/**
 * Which measure decided and the smallest slowdown the run could have caught at its noise; when
 * it could not decide, the rounds (and time) it would take at this noise, and what to change.
 */
export function seeingLines(
  verdict: GateVerdict,
  thresholdPct: number,
  secondsPerRound: number,
  maxTimeS: number,
): string[] {
  if (!verdict.decided || !verdict.decidedBy) return [];
  const lines = [`gate: decided by ${verdict.decidedBy.why}`];
  if (verdict.detectablePct !== undefined) {
    const spread = verdict.checks.find((x) => x.notGated === undefined && x.spreadPct !== undefined)?.spreadPct;
    lines.push(
      `gate: could see: a ${verdict.detectablePct.toFixed(1)}% slowdown would have been caught (in 80% of gates) at this run's noise${spread !== undefined ? ` (a round's ratio spread ±${spread.toFixed(1)}%)` : ''}`,
    );
  }
  if (verdict.inconclusive && verdict.samplesToDecide !== undefined) {
    const s = Math.round(verdict.samplesToDecide * secondsPerRound);
    lines.push(
      `gate: to decide within ${thresholdPct}% at this noise takes about ${verdict.samplesToDecide} rounds (~${s} s at this run's pace): ${s > maxTimeS ? `a longer --max-time (now ${maxTimeS} s), or ` : ''}a quieter machine (fewer processes beside the gate), or a looser --fail-if-slower`,
    );
  }
  return lines;
}
