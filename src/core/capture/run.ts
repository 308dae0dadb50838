// One capture, in order: launch → inspector → listening → warm-up → measured window (profiler off)
// → profiled window (same load) → stop → save the profile and run.json. The analysis that follows
// lives elsewhere (analyze-run/), so the editor, which only captures, carries none of it. Only this
// module knows that order; its steps are apart: the run's state and stopping (run-control.ts), the
// app's start (run-start.ts), the sub-windows (sub-windows.ts), what it records (record.ts,
// save-run.ts). Whatever happens, the app, its children and the load generator are stopped (an
// attached app is left running, with what the run installed undone).
import * as path from 'node:path';
import { joinUrl } from '../app/index.ts';
import { redactUrl, RunError } from '../common/index.ts';
import {
  checkLoadCommand,
  ExternalLoad,
  LOAD_LOG_FILE,
  type LoadOptions,
  LoadRun,
  type LoadTick,
  probe,
  probeFailureLine,
} from '../load/index.ts';
import { acquireRunLock, writeFileAtomic } from '../store/index.ts';
import {
  loadOptionsOf,
  probeOptionsOf,
  validate,
  validateStackRate,
  validateStallThreshold,
  withDefaults,
} from './run-settings.ts';
import { PHASE_NAMES, type RunOptions, type RunPhase, type RunResult } from './run-types.ts';
import { RunControl } from './run-control.ts';
import { attachTo, launch, portToLaunchOn, readRuntimeScripts } from './run-start.ts';
import type { StartedApp } from './started-app.ts';
import { alternate, type SubWindowsTaken, type WindowProgress } from './sub-windows.ts';
import { saveRun } from './save-run.ts';

/** Capture only: the caller analyzes the run folder (the CLI in-process, the editor in its language server). */
export async function captureUnderLoad(opts: RunOptions): Promise<RunResult> {
  const settings = withDefaults(opts);
  validate(settings, opts.stopGraceS, opts.measuredS);
  validateStallThreshold(opts.stallThresholdMs);
  validateStackRate(opts.stackRateHz);
  if (opts.loadCommand && settings.requests)
    throw new RunError('bad-options', "A request mix is sent by Hotline's own load: not with a load command.");
  return execute(new RunControl(opts, settings));
}

async function execute(run: RunControl): Promise<RunResult> {
  const { opts } = run;
  const startedAt = new Date();
  run.throwIfCancelled();
  const lock = acquireRunLock(opts.target.cwd);
  if ('heldBy' in lock) {
    throw new RunError(
      'busy',
      `Another Hotline run of this app is in progress${lock.heldBy > 0 ? ` (process ${lock.heldBy})` : ''}: wait for it to end or cancel it.`,
    );
  }
  run.releaseLock = lock.release;
  try {
    if (opts.loadCommand) checkLoadCommand(opts.loadCommand, opts.target.cwd);
    const started = opts.attach ? await attachTo(run, opts.attach) : await launch(run, await portToLaunchOn(run.s.url));
    const runtimeScripts = await readRuntimeScripts(run);
    const url = joinUrl(run.s.url, started.address);
    const taken = await measure(run, started, url);
    run.progress('analyzing', run.attached ? 'letting the app go' : 'stopping the app');
    await run.stopAll();
    const runDir = saveRun(
      run,
      startedAt,
      url,
      taken.figures,
      [
        ...(opts.requestsNotes ?? []),
        ...taken.notes,
        ...(started.childrenNote ? [started.childrenNote] : []),
        ...(runtimeScripts.note ? [runtimeScripts.note] : []),
      ],
      { nodeVersion: started.nodeVersion, runtimeScripts: runtimeScripts.scripts },
    );
    if (run.load instanceof ExternalLoad) writeFileAtomic(path.join(runDir, LOAD_LOG_FILE), run.load.log());
    return { runDir };
  } catch (err) {
    throw run.explain(err);
  } finally {
    await run.stopAll();
  }
}

/**
 * A URL that answers only failures stops the run before the warm-up (load/probe.ts). Still part
 * of starting: the warm-up phase begins with the load.
 */
async function probeFirst(run: RunControl, o: LoadOptions): Promise<void> {
  run.progress('starting', `probing ${(o.method ?? 'GET').toUpperCase()} ${redactUrl(o.url)}`);
  const outcome = await run.race(probe(o));
  if (!outcome.ok) throw new RunError('load-failed', probeFailureLine({ ...o, url: redactUrl(o.url) }, outcome));
}

/** Starts the load, warms the app up, then takes the sub-windows. */
async function measure(run: RunControl, started: StartedApp, url: string): Promise<SubWindowsTaken> {
  const { opts, s } = run;
  const progress: WindowProgress = { windowSecond: 0, lastTickRps: 0 };
  const onTick = (t: LoadTick): void => {
    progress.lastTickRps = t.requests;
    const phase: RunPhase = t.phase === 'warmup' ? 'warmup' : t.phase === 'measured' ? 'measuring' : 'profiling';
    if (phase !== run.phase) return; // ticks of the gap between windows
    const of = phase === 'warmup' ? s.warmupS : s.durationS;
    run.progress(phase, `${PHASE_NAMES[phase]}: ${t.requests} req/s`, {
      second: Math.min(progress.windowSecond + t.second, of),
      of,
      requestsPerSecond: t.requests,
    });
  };
  if (!opts.loadCommand) await probeFirst(run, probeOptionsOf(loadOptionsOf(s, url, 0)));
  // Bounded in time whatever happens here: the load stops by itself a while after the run's end.
  const maxDurationS = s.warmupS + 2 * s.durationS + 120;
  const starting: Promise<LoadRun | ExternalLoad> = opts.loadCommand
    ? ExternalLoad.start({
        commandLine: opts.loadCommand,
        url,
        durationS: s.durationS,
        warmupS: s.warmupS,
        cwd: opts.target.cwd,
      })
    : LoadRun.start(loadOptionsOf(s, url, maxDurationS), onTick);
  // Cancelled while it starts: it must still be stopped once it is up.
  const load = (run.load = await run.owned(starting, (l) => l.kill()));
  run.progress('warmup', opts.loadCommand ? 'warm-up: the load command' : `warm-up: ${s.connections} connections`, {
    second: 0,
    of: s.warmupS,
  });
  run.stopOn(
    new Promise<never>((_, reject) => {
      void load.exited.then(() => {
        if (!run.loadFinished) reject(new RunError('load-failed', 'The load generator stopped unexpectedly.'));
      });
    }),
  );
  // Nothing is attached to the app's code during the warm-up: it optimises as it would unobserved.
  await run.wait(s.warmupS);
  return await alternate(run, started, progress);
}
