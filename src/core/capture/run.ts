// One capture, in order: launch → inspector → listening → warm-up → measured window (profiler off)
// → profiled window (same load) → stop → save the profile and run.json. The analysis that follows
// lives elsewhere (analyze-run/), so the editor, which only captures, carries none of it. Only this
// module knows that order (run-record.ts, what it records). Whatever happens, the app, its children and
// the load generator are stopped (an attached app is left running, with what the run installed undone).
import * as path from 'node:path';
import { joinUrl } from '../app/index.ts';
import { between, type InspectorSession } from '../inspector/index.ts';
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
import { type CpuProfile, fileOfUrl, mergeProfiles, withoutOwnFrames } from '../analysis/index.ts';
import {
  acquireRunLock,
  createRunDir,
  LOG_FILE,
  newRunId,
  PROFILE_FILE,
  runsDirOf,
  STACKS_FILE,
  writeFileAtomic,
  writeRunRecord,
  writeRuntimeScripts,
} from '../store/index.ts';
import { loadFigures, loopOf, type Measured, recordedSettings } from './record.ts';
import {
  DEFAULT_STALL_THRESHOLD_MS,
  loadOptionsOf,
  subWindowPlan,
  validate,
  validateStackRate,
  validateStallThreshold,
  withDefaults,
} from './settings.ts';
import { ProfiledExtras, saveExtras } from './extras.ts';
import { DEFAULT_STACK_RATE_HZ, StackSampler } from './stack-sampler.ts';
import { PHASE_NAMES, type RunOptions, type RunPhase, type RunResult } from './run-types.ts';
import { RunStart } from './run-start.ts';
import { InspectorCycle } from './closed-inspector.ts';

/** Profiler segments: short enough to lose little to a hard crash, long enough to cost nothing. */
const PROFILE_SEGMENT_S = 5;
/**
 * After the flush before the first profiled sub-window: time for V8 to optimise the flushed code
 * again (bench/profiler-cost.ts: the first profiled sub-window cost 1.25–1.32× the first measured
 * one when it began with the flush, against 1.09–1.16× for the later ones).
 */
const FLUSH_SETTLE_S = 1;
/** The gap after a profiled sub-window, before the next measured one. */
const SETTLE_S = 0.25;

/** Capture only: the caller analyzes the run folder (the CLI in-process, the editor in its language server). */
export async function captureUnderLoad(opts: RunOptions): Promise<RunResult> {
  const settings = withDefaults(opts);
  validate(settings, opts.stopGraceS);
  validateStallThreshold(opts.stallThresholdMs);
  validateStackRate(opts.stackRateHz);
  return new Run(opts, settings).execute();
}

class Run extends RunStart {
  async execute(): Promise<RunResult> {
    const startedAt = new Date();
    this.throwIfCancelled();
    const lock = acquireRunLock(this.opts.target.cwd);
    if ('heldBy' in lock) {
      throw new RunError(
        'busy',
        `Another Hotline run of this app is in progress${lock.heldBy > 0 ? ` (process ${lock.heldBy})` : ''}: wait for it to end or cancel it.`,
      );
    }
    this.releaseLock = lock.release;
    try {
      if (this.opts.loadCommand) checkLoadCommand(this.opts.loadCommand, this.opts.target.cwd);
      const address = this.opts.attach
        ? await this.attachTo(this.opts.attach)
        : await this.start(await this.portToLaunchOn());
      await this.readRuntimeScripts();
      const url = joinUrl(this.s.url, address);
      const figures = await this.measure(url);
      this.progress('analyzing', this.attached ? 'letting the app go' : 'stopping the app');
      await this.stopAll();
      const runDir = this.save(startedAt, url, figures);
      if (this.load instanceof ExternalLoad) writeFileAtomic(path.join(runDir, LOAD_LOG_FILE), this.load.log());
      return { runDir };
    } catch (err) {
      throw this.explain(err);
    } finally {
      await this.stopAll();
    }
  }
  /**
   * A URL that answers only failures stops the run before the warm-up (load/probe.ts). Still part
   * of starting: the warm-up phase begins with the load.
   */
  private async probeFirst(o: LoadOptions): Promise<void> {
    this.progress('starting', `probing ${(o.method ?? 'GET').toUpperCase()} ${redactUrl(o.url)}`);
    const outcome = await this.race(probe(o));
    if (!outcome.ok) throw new RunError('load-failed', probeFailureLine({ ...o, url: redactUrl(o.url) }, outcome));
  }

  private async measure(url: string): Promise<Measured> {
    const s = this.s;
    const onTick = (t: LoadTick): void => {
      this.lastTickRps = t.requests;
      const phase: RunPhase = t.phase === 'warmup' ? 'warmup' : t.phase === 'measured' ? 'measuring' : 'profiling';
      if (phase !== this.phase) return; // ticks of the gap between windows
      const of = phase === 'warmup' ? s.warmupS : s.durationS;
      this.progress(phase, `${PHASE_NAMES[phase]}: ${t.requests} req/s`, {
        second: Math.min(this.windowSecond + t.second, of),
        of,
        requestsPerSecond: t.requests,
      });
    };
    if (!this.opts.loadCommand) await this.probeFirst(loadOptionsOf(s, url, 0));
    // Bounded in time whatever happens here: the load stops by itself a while after the run's end.
    const maxDurationS = s.warmupS + 2 * s.durationS + 120;
    const starting: Promise<LoadRun | ExternalLoad> = this.opts.loadCommand
      ? ExternalLoad.start({
          commandLine: this.opts.loadCommand,
          url,
          durationS: s.durationS,
          warmupS: s.warmupS,
          cwd: this.opts.target.cwd,
        })
      : LoadRun.start(loadOptionsOf(s, url, maxDurationS), onTick);
    // Cancelled while it starts: it must still be stopped once it is up.
    this.load = await this.owned(starting, (l) => l.kill());
    this.progress(
      'warmup',
      this.opts.loadCommand ? 'warm-up: the load command' : `warm-up: ${s.connections} connections`,
      { second: 0, of: s.warmupS },
    );
    const load = this.load;
    const loadDied = new Promise<never>((_, reject) => {
      void load.exited.then(() => {
        if (!this.loadFinished) reject(new RunError('load-failed', 'The load generator stopped unexpectedly.'));
      });
    });
    this.stopReason = Promise.race([this.stopReason!, loadDied]);
    this.stopReason.catch(() => undefined);
    // Nothing is attached to the app's code during the warm-up: it optimises as it would unobserved.
    await this.wait(s.warmupS);
    return await this.alternate();
  }

  /**
   * The measured and profiled windows, as sub-windows in turn: M P M P … (subWindowPlan). The
   * measured ones run the app with nothing of ours switched on; the profiler and everything
   * the profiled window needs (ProfiledExtras) is switched on at each profiled sub-window's
   * start and off at its end, in the gaps between windows (the load runs on as warm-up there:
   * nothing is counted while the profiler starts or serialises its profile). Alternating makes
   * the machine's drift hit both kinds alike and gives each figure its spread.
   * A profiled sub-window longer than a segment restarts the profiler every few seconds, so an
   * app killed in it still leaves what came before; an app that exits or throws leaves the rest
   * too (Node waits for the inspector to let go). Either way the run goes on as a partial one.
   */
  private async alternate(): Promise<Measured> {
    const s = this.s;
    /** The session of the moment: a closed inspector is reopened with a new one (closed-inspector.ts). */
    const inspector = (): InspectorSession => this.inspector!;
    const load = this.load!;
    const plan =
      this.opts.subWindows !== undefined && this.opts.subWindows >= 1
        ? { count: Math.floor(this.opts.subWindows), seconds: s.durationS / Math.floor(this.opts.subWindows) }
        : subWindowPlan(s.durationS, load instanceof ExternalLoad);
    const extras = await this.race(
      ProfiledExtras.open(inspector(), {
        samplingIntervalUs: s.samplingIntervalUs,
        heap: this.opts.heap,
        processes: this.processes,
        stallThresholdMs: this.opts.stallThresholdMs ?? DEFAULT_STALL_THRESHOLD_MS,
        waits: this.opts.waits ?? true,
      }),
    );
    this.disposers.push(() => extras.dispose());
    const rateHz = this.opts.stackRateHz ?? DEFAULT_STACK_RATE_HZ;
    // Installed now, ticking only in the profiled sub-windows: the measured ones run the app alone.
    const sampler = rateHz > 0 ? await this.race(this.startStackSampler(rateHz)) : undefined;
    if (sampler) this.disposers.push(() => void sampler.dispose());
    const segmentS = this.opts.segmentS ?? PROFILE_SEGMENT_S;
    const segments: CpuProfile[] = [];
    const taken: Measured['subWindows'] = { measured: [], profiled: [] };
    let profiledS = 0;
    /** When the current profiled sub-window began (Date.now()), while one runs. */
    let profiling: number | undefined;
    await this.race(inspector().startLoopProbe());
    this.cycle = this.opts.keepInspectorOpen ? undefined : InspectorCycle.for(this.launched);
    let cycle = this.cycle;
    try {
      for (let i = 0; i < plan.count; i++) {
        this.windowSecond = i * plan.seconds;
        // Measured: the app alone.
        this.progress('measuring', PHASE_NAMES.measuring, {
          second: this.windowSecond,
          of: s.durationS,
          requestsPerSecond: this.lastTickRps,
        });
        // The load counts only while the inspector is closed (the req/s of the app alone); the
        // edges span its close and reopen too, so CPU per request is a ratio of rates (record.ts).
        const m0 = await this.race(this.edge({ open: 'measured' }));
        // The app alone: its inspector closed (refused by an app that handles SIGUSR1: kept from then on).
        if (cycle) {
          extras.letGo();
          if (!(await this.race(cycle.close(inspector())))) {
            cycle = undefined;
            await this.race(extras.useSession(inspector()));
          }
          // The child processes' inspectors too (their console calls cost as the main one's).
          await this.race(this.processes?.closeInspectors() ?? Promise.resolve());
        }
        await this.race(load.switchPhase('measured'));
        await this.windowClock(plan.seconds).next();
        const measured = await this.race(load.switchPhase('warmup'));
        if (cycle?.isClosed) {
          this.inspector = await this.race(cycle.reopen());
          await this.race(extras.useSession(inspector()));
        }
        await this.race(this.processes?.reopenInspectors() ?? Promise.resolve());
        taken.measured.push({
          result: measured,
          app: between(m0, await this.race(this.edge({ close: 'measured' }))),
        });
        // Profiled: the profiler and the extras on, then off again. The first start flushes
        // optimised code (InspectorSession.startProfiler), and the app runs slower until V8 has
        // optimised it again, with the profiler on so that the new code is known to it: that time
        // belongs to neither window (the load runs on as warm-up, its profile is dropped). Later
        // starts find the code known (the truth apps' loops are attributed in every sub-window).
        // The flush must come right before the first profiled sub-window: done at the warm-up's
        // end, with a measured sub-window between, two pure-JS loops of 2:1 came out 63/37 (V8
        // compiled them again while the profiler was off, code its later starts did not know).
        if (i === 0) {
          await this.race(inspector().startProfiler(s.samplingIntervalUs, { flush: true }));
          await this.wait(FLUSH_SETTLE_S);
          await this.race(inspector().stopProfiler());
        }
        await this.race(inspector().startProfiler(s.samplingIntervalUs, { flush: false }));
        await this.race(extras.startSubWindow(i === 0));
        this.progress('profiling', PHASE_NAMES.profiling, {
          second: this.windowSecond,
          of: s.durationS,
          requestsPerSecond: this.lastTickRps,
        });
        await this.race(load.switchPhase('profiled'));
        const p0 = await this.race(this.edge({ open: 'profiled' }));
        profiling = Date.now();
        sampler?.resume(inspector().channel());
        const clock = this.windowClock(plan.seconds);
        while (!clock.over()) {
          await clock.next(segmentS);
          if (clock.over()) break;
          segments.push(await this.race(inspector().stopProfiler()));
          await this.race(inspector().startProfiler(s.samplingIntervalUs, { flush: false }));
          await this.race(extras.nextSegment());
        }
        const last = i === plan.count - 1;
        const p1 = await this.race(this.edge({ close: 'profiled' }));
        if (last) this.loadFinished = true;
        taken.profiled.push({
          result: await this.race(last ? load.finish() : load.switchPhase('warmup')),
          app: between(p0, p1),
        });
        profiledS += (Date.now() - profiling) / 1000;
        profiling = undefined;
        await sampler?.stop();
        segments.push(await this.race(inspector().stopProfiler()));
        await this.race(extras.endSubWindow());
        // Responses delayed by the profile's serialisation land here, not in the next measured window.
        if (!last) await this.wait(SETTLE_S);
      }
      const wallS = (kind: 'measured' | 'profiled'): number => taken[kind].reduce((t, w) => t + w.app.wallS, 0);
      const loop = loopOf(await this.race(inspector().readLoopDelay('measured', wallS('measured'))), taken.measured);
      const profiledLoop = loopOf(
        await this.race(inspector().readLoopDelay('profiled', wallS('profiled'))),
        taken.profiled,
      );
      // A loop that never yielded in the whole window: say where it is stuck.
      const blockedAt = loop.blockedThroughout
        ? await this.race(inspector().stackNow()).catch(() => undefined)
        : undefined;
      const captured = await this.race(extras.finish(segments));
      if (sampler?.error)
        captured.notes.push(
          `Stack captures stopped early (${sampler.error}): calling lines they did not see are read from the source.`,
        );
      await inspector()
        .stopLoopProbe()
        .catch(() => undefined);
      await sampler?.dispose();
      return {
        measured: load.total('measured')!,
        profiled: load.total('profiled')!,
        subWindows: taken,
        loop,
        profiledLoop,
        blockedAt,
        profile: withoutOwnFrames(mergeProfiles(segments)),
        extras: captured,
        stacks: sampler?.result(segments),
      };
    } catch (err) {
      if (!(err instanceof RunError && err.kind === 'app-exited')) throw err;
      if (profiling !== undefined) profiledS += (Date.now() - profiling) / 1000;
      const salvaged = await inspector().salvagedProfile();
      if (salvaged) segments.push(salvaged);
      const measured = load.total('measured');
      if (segments.length === 0 || !measured) throw err;
      this.loadFinished = true;
      const inFlight = await load.finish();
      const profiled = load.total('profiled') ?? inFlight;
      const app = { wallS: 0, cpuS: 0, cpu: 0, utilization: 0 };
      const noDelay = { delayMs: { mean: 0, p50: 0, p99: 0, max: 0 } };
      await sampler?.stop(0);
      return {
        measured,
        profiled,
        subWindows: taken,
        loop: loopOf(noDelay, taken.measured.length > 0 ? taken.measured : [{ result: measured, app }]),
        profile: withoutOwnFrames(mergeProfiles(segments)),
        extras: await extras.salvage(segments),
        stacks: sampler?.result(segments),
        partial: {
          reason: `${err.message} The report covers the ${profiledS.toFixed(1)} s of profiled sub-windows before it.`,
        },
      };
    }
  }

  /** Exact calling lines are a refinement: a sampler that cannot start leaves the run as it was, with a note. */
  private async startStackSampler(rateHz: number): Promise<StackSampler | undefined> {
    try {
      return await StackSampler.start(this.inspector!.channel(), rateHz, { paused: true });
    } catch (err) {
      this.samplerNote = `Stack captures did not run (${(err as Error).message}): calling lines are read from the source.`;
      return undefined;
    }
  }

  private samplerNote: string | undefined;
  /** Closes the app's inspector in the measured sub-windows, when it can (closed-inspector.ts). */
  private cycle: InspectorCycle | undefined;

  /** Writes the run's data (profile, stack captures, app output, run.json) before anything reads it. */
  private save(startedAt: Date, url: string, m: Measured): string {
    const target = this.opts.target;
    const runsDir = this.opts.runsDir ?? runsDirOf(target.cwd);
    const id = newRunId(startedAt);
    const runDir = createRunDir(runsDir, id);
    writeFileAtomic(path.join(runDir, PROFILE_FILE), JSON.stringify(m.profile));
    writeFileAtomic(path.join(runDir, LOG_FILE), this.output.join(''));
    if (m.stacks) writeFileAtomic(path.join(runDir, STACKS_FILE), JSON.stringify(m.stacks));
    writeRuntimeScripts(runDir, this.runtimeScripts);
    const extras = m.extras ? saveExtras(runDir, m.extras) : undefined;
    if (extras && this.samplerNote) extras.notes.push(this.samplerNote);
    if (extras && this.cycle) extras.notes.push(...this.cycle.notes);
    if (extras && this.childrenNote) extras.notes.push(this.childrenNote);
    if (extras && this.runtimeScriptsNote) extras.notes.push(this.runtimeScriptsNote);
    writeRunRecord(runDir, {
      version: 1,
      id,
      startedAt: startedAt.toISOString(),
      app: {
        command: this.app?.command ?? [],
        cwd: target.cwd,
        pid: this.app?.pid ?? -1,
        url: redactUrl(url),
        ...(this.nodeVersion ? { node: this.nodeVersion } : {}),
      },
      settings: recordedSettings(this.s, this.opts.target, this.opts.attach),
      load: loadFigures(this.s, m),
      eventLoop: {
        ...m.loop,
        profiled: m.profiledLoop,
        ...(m.blockedAt
          ? { blockedAt: m.blockedAt.map((f) => ({ function: f.functionName, file: fileOfUrl(f.url), line: f.line })) }
          : {}),
      },
      partial: m.partial,
      ...(extras ? { extras } : {}),
    });
    return runDir;
  }
}
