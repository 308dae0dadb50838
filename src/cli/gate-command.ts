// `hotline gate BASE [DIR]`: the baseline's code and this code started side by side and loaded in
// turn, round after round (capture/side-by-side.ts), then gated as --fail-if-slower gates two runs.
// For CI on a shared machine: two runs minutes apart differ by more than a 10% regression there.
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  compareSideBySide,
  measureSideBySide,
  regressionGate,
  newRunId,
  resolveTarget,
  RunError,
  TargetError,
  writeFileAtomic,
} from '../core/index.ts';
import { gateOutcome, threshold } from './baseline.ts';
import { APP_AND_LOAD_OPTIONS, loadAndStartOf, num, pairs, parse, UsageError } from './args.ts';
import { cancelOnInterrupt, progressPrinter } from './progress.ts';

/** The gate's threshold when none is given: the README's. */
const DEFAULT_THRESHOLD_PCT = 5;

export async function gateCommand(argv: string[]): Promise<number> {
  const dash = argv.indexOf('--');
  const appArgs = dash >= 0 ? argv.slice(dash + 1) : [];
  const { values, positionals } = parse(dash >= 0 ? argv.slice(0, dash) : argv, {
    ...APP_AND_LOAD_OPTIONS,
    rounds: { type: 'string' },
    'max-rounds': { type: 'string' },
    'one-start': { type: 'boolean' },
  });
  if (positionals.length < 1 || positionals.length > 2)
    throw new UsageError(
      "gate takes the baseline's folder and, optionally, the current one (e.g. `git worktree add ../base main` then `hotline gate ../base --url /`)",
    );
  if (typeof values.url !== 'string') throw new UsageError('gate needs --url (a path such as /login)');
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
  const interrupts = cancelOnInterrupt('stopping both versions and the load');
  const progress = progressPrinter();
  try {
    const figures = await measureSideBySide({
      base,
      current,
      url: values.url,
      ...loadAndStartOf(values),
      rounds: num(values.rounds, 'rounds'),
      freshEachRound: values['one-start'] !== true,
      // Undecided after its rounds: as many again, up to the cap (3× by default).
      extend: {
        maxRounds:
          num(values['max-rounds'], 'max-rounds') ?? 3 * (num(values.rounds, 'rounds') ?? defaultRounds(values)),
        decided: (f) => {
          const v = regressionGate(compareSideBySide(f, f.confidence), thresholdPct);
          return !v.decided || v.failed || !v.inconclusive;
        },
      },
      signal: interrupts.signal,
      onProgress: progress,
    });
    progress.end();
    const comparison = compareSideBySide(figures, figures.confidence);
    const { lines, exitCode, verdict } = gateOutcome(comparison, thresholdPct, figures.confidence);
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

/** The rounds a gate takes by default: as a run cuts its --duration (2 s windows, 2 to 10). */
function defaultRounds(values: Record<string, unknown>): number {
  const duration = num(values.duration, 'duration') ?? 10;
  return Math.max(2, Math.min(10, Math.floor(duration / 2)));
}
