// The measured and profiled windows, as sub-windows in turn: M P M P … (subWindowPlan). The
// measured ones run the app with nothing of ours switched on; the profiler and everything the
// profiled window needs (ProfiledExtras) is switched on at each profiled sub-window's start and
// off at its end, in the gaps between windows (the load runs on as warm-up there: nothing is
// counted while the profiler starts or serialises its profile). Alternating makes the machine's
// drift hit both kinds alike and gives each figure its spread.
// A profiled sub-window longer than a segment restarts the profiler every few seconds, so an app
// killed in it still leaves what came before; an app that exits or throws leaves the rest too
// (Node waits for the inspector to let go). Either way the run goes on as a partial one.
import { type AppMark, between, type InspectorSession, type WindowKind } from '../inspector/index.ts';
import { RunError } from '../common/index.ts';
import { ExternalLoad, type LoadRun } from '../load/index.ts';
import { type CpuProfile, mergeProfiles, withoutOwnFrames } from '../profile/index.ts';
import { loopOf, type Measured } from './record.ts';
import { DEFAULT_STALL_THRESHOLD_MS, subWindowPlan } from './run-settings.ts';
import { ProfiledExtras } from './extras/extras.ts';
import { DEFAULT_STACK_RATE_HZ, StackSampler } from './stacks/stack-sampler.ts';
import { PHASE_NAMES } from './run-types.ts';
import type { RunControl } from './run-control.ts';
import { appEdge } from './run-start.ts';
import type { StartedApp } from './started-app.ts';
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

/** Where the windows are, for the progress the load's ticks report (run.ts). */
export interface WindowProgress {
  /** Seconds of the measured (or profiled) window before the current sub-window. */
  windowSecond: number;
  lastTickRps: number;
}

export interface SubWindowsTaken {
  figures: Measured;
  /** What the report says of how the windows went: stack captures that did not run, an inspector kept open. */
  notes: string[];
}

/** The windows of a run whose load is started and warmed up (run.load). */
export async function alternate(
  run: RunControl,
  started: StartedApp,
  progress: WindowProgress,
): Promise<SubWindowsTaken> {
  return (await SubWindows.open(run, started, progress)).take();
}

class SubWindows {
  private readonly load: LoadRun | ExternalLoad;
  private readonly segments: CpuProfile[] = [];
  private readonly taken: Measured['subWindows'] = { measured: [], profiled: [] };
  private profiledS = 0;
  /** When the current profiled sub-window began (Date.now()), while one runs. */
  private profiling: number | undefined;
  /** Closes the app's inspector in the measured sub-windows, when it can (closed-inspector.ts). */
  private cycle: InspectorCycle | undefined;
  /** The cycle while the app lets it close its inspector (refused by an app that handles SIGUSR1). */
  private closing: InspectorCycle | undefined;

  private constructor(
    private readonly run: RunControl,
    private readonly started: StartedApp,
    private readonly progress: WindowProgress,
    private readonly plan: { count: number; seconds: number; measuredS: number },
    private readonly extras: ProfiledExtras,
    private readonly sampler: StackSampler | undefined,
    private readonly samplerNote: string | undefined,
  ) {
    this.load = run.load!;
  }

  static async open(run: RunControl, started: StartedApp, progress: WindowProgress): Promise<SubWindows> {
    const { opts, s } = run;
    const plan =
      opts.subWindows !== undefined && opts.subWindows >= 1
        ? { count: Math.floor(opts.subWindows), seconds: s.durationS / Math.floor(opts.subWindows) }
        : subWindowPlan(s.durationS, run.load instanceof ExternalLoad);
    const measuredS = opts.measuredS ?? plan.seconds;
    const extras = await run.race(
      ProfiledExtras.open(run.inspector!, {
        samplingIntervalUs: s.samplingIntervalUs,
        heap: opts.heap,
        processes: started.processes,
        stallThresholdMs: opts.stallThresholdMs ?? DEFAULT_STALL_THRESHOLD_MS,
        waits: opts.waits ?? true,
        // Its hooks cost the app 15–70% more CPU per light request in the profiled window
        // (bench/route-probe-cost.ts, docs/routes.md): on by default only where the run is about
        // routes (a request mix) or they cannot be known otherwise (a load that is not
        // Hotline's: --load-command, an app attached to).
        routes:
          opts.routes ??
          ((s.requests?.length ?? 0) > 1 || run.load instanceof ExternalLoad || opts.attach !== undefined),
        loadedPath: pathOf(s.url),
      }),
    );
    run.disposers.push(() => extras.dispose());
    const rateHz = opts.stackRateHz ?? DEFAULT_STACK_RATE_HZ;
    // Installed now, ticking only in the profiled sub-windows: the measured ones run the app alone.
    const sampling = rateHz > 0 ? await run.race(startStackSampler(run, rateHz)) : undefined;
    if (sampling?.sampler) {
      const sampler = sampling.sampler;
      run.disposers.push(() => sampler.dispose());
    }
    return new SubWindows(run, started, progress, { ...plan, measuredS }, extras, sampling?.sampler, sampling?.note);
  }

  async take(): Promise<SubWindowsTaken> {
    await this.run.race(this.inspector().startLoopProbe());
    this.cycle = this.run.opts.keepInspectorOpen ? undefined : InspectorCycle.for(this.started.launched);
    this.closing = this.cycle;
    let figures: Measured;
    try {
      for (let i = 0; i < this.plan.count; i++) {
        await this.measured(i);
        await this.profiled(i);
      }
      figures = await this.finish();
    } catch (err) {
      figures = await this.salvage(err);
    }
    return { figures, notes: [...(this.samplerNote ? [this.samplerNote] : []), ...(this.cycle?.notes ?? [])] };
  }

  /** The session of the moment: a closed inspector is reopened with a new one (closed-inspector.ts). */
  private inspector(): InspectorSession {
    return this.run.inspector!;
  }

  private edge(o: { open?: WindowKind; close?: WindowKind }): Promise<AppMark> {
    return this.run.race(appEdge(this.run, this.started.processes, o));
  }

  private reportProgress(phase: 'measuring' | 'profiling'): void {
    this.run.progress(phase, PHASE_NAMES[phase], {
      second: this.progress.windowSecond,
      of: this.run.s.durationS,
      requestsPerSecond: this.progress.lastTickRps,
    });
  }

  /** The app alone. */
  private async measured(i: number): Promise<void> {
    const { run, extras, load } = this;
    this.progress.windowSecond = i * this.plan.seconds;
    this.reportProgress('measuring');
    // The load counts only while the inspector is closed (the req/s of the app alone); the
    // edges span its close and reopen too, so CPU per request is a ratio of rates (record.ts).
    const m0 = await this.edge({ open: 'measured' });
    // The app alone: its inspector closed (refused by an app that handles SIGUSR1: kept from then on).
    if (this.closing) {
      extras.letGo();
      if (!(await run.race(this.closing.close(this.inspector())))) {
        this.closing = undefined;
        await run.race(extras.useSession(this.inspector()));
      }
      // The child processes' inspectors too (their console calls cost as the main one's).
      await run.race(this.started.processes?.closeInspectors() ?? Promise.resolve());
    }
    await run.race(load.switchPhase('measured'));
    await run.windowClock(this.plan.measuredS).next();
    const measured = await run.race(load.switchPhase('warmup'));
    if (this.closing?.isClosed) {
      run.inspector = await run.race(this.closing.reopen());
      await run.race(extras.useSession(this.inspector()));
    }
    await run.race(this.started.processes?.reopenInspectors() ?? Promise.resolve());
    this.taken.measured.push({ result: measured, app: between(m0, await this.edge({ close: 'measured' })) });
  }

  /**
   * The profiler and the extras on, then off again. The first start flushes optimised code
   * (InspectorSession.startProfiler), and the app runs slower until V8 has optimised it again,
   * with the profiler on so that the new code is known to it: that time belongs to neither window
   * (the load runs on as warm-up, its profile is dropped). Later starts find the code known (the
   * truth apps' loops are attributed in every sub-window). The flush must come right before the
   * first profiled sub-window: done at the warm-up's end, with a measured sub-window between, two
   * pure-JS loops of 2:1 came out 63/37 (V8 compiled them again while the profiler was off, code
   * its later starts did not know).
   */
  private async profiled(i: number): Promise<void> {
    const { run, extras, load, sampler, segments } = this;
    const intervalUs = run.s.samplingIntervalUs;
    if (i === 0) {
      await run.race(this.inspector().startProfiler(intervalUs, { flush: true }));
      await run.wait(FLUSH_SETTLE_S);
      await run.race(this.inspector().stopProfiler());
    }
    await run.race(this.inspector().startProfiler(intervalUs, { flush: false }));
    await run.race(extras.startSubWindow(i === 0));
    this.reportProgress('profiling');
    await run.race(load.switchPhase('profiled'));
    const p0 = await this.edge({ open: 'profiled' });
    const profiling = (this.profiling = Date.now());
    sampler?.resume(this.inspector().channel());
    await this.segmented();
    const last = i === this.plan.count - 1;
    const p1 = await this.edge({ close: 'profiled' });
    if (last) run.loadFinished = true;
    this.taken.profiled.push({
      result: await run.race(last ? load.finish() : load.switchPhase('warmup')),
      app: between(p0, p1),
    });
    this.profiledS += (Date.now() - profiling) / 1000;
    this.profiling = undefined;
    await sampler?.stop();
    segments.push(await run.race(this.inspector().stopProfiler()));
    await run.race(extras.endSubWindow());
    // Responses delayed by the profile's serialisation land here, not in the next measured window.
    if (!last) await run.wait(SETTLE_S);
  }

  /** A profiled sub-window's length, the profiler restarted every segment. */
  private async segmented(): Promise<void> {
    const { run } = this;
    const segmentS = run.opts.segmentS ?? PROFILE_SEGMENT_S;
    const clock = run.windowClock(this.plan.seconds);
    while (!clock.over()) {
      await clock.next(segmentS);
      if (clock.over()) break;
      this.segments.push(await run.race(this.inspector().stopProfiler()));
      await run.race(this.inspector().startProfiler(run.s.samplingIntervalUs, { flush: false }));
      await run.race(this.extras.nextSegment());
    }
  }

  private async finish(): Promise<Measured> {
    const { run, taken, sampler, segments, load } = this;
    const wallS = (kind: 'measured' | 'profiled'): number => taken[kind].reduce((t, w) => t + w.app.wallS, 0);
    const loop = loopOf(await run.race(this.inspector().readLoopDelay('measured', wallS('measured'))), taken.measured);
    const profiledLoop = loopOf(
      await run.race(this.inspector().readLoopDelay('profiled', wallS('profiled'))),
      taken.profiled,
    );
    // A loop that never yielded in the whole window: say where it is stuck.
    const blockedAt = loop.blockedThroughout
      ? await run.race(this.inspector().stackNow()).catch(() => undefined)
      : undefined;
    const captured = await run.race(this.extras.finish(segments));
    if (sampler?.error)
      captured.notes.push(
        `Stack captures stopped early (${sampler.error}): calling lines they did not see are read from the source.`,
      );
    await this.inspector()
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
  }

  /** The app exited: what the sub-windows before took, as a partial run (or the error, if nothing). */
  private async salvage(err: unknown): Promise<Measured> {
    if (!(err instanceof RunError && err.kind === 'app-exited')) throw err;
    const { run, taken, sampler, segments, load } = this;
    if (this.profiling !== undefined) this.profiledS += (Date.now() - this.profiling) / 1000;
    const salvaged = await this.inspector().salvagedProfile();
    if (salvaged) segments.push(salvaged);
    const measured = load.total('measured');
    if (segments.length === 0 || !measured) throw err;
    run.loadFinished = true;
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
      extras: await this.extras.salvage(segments),
      stacks: sampler?.result(segments),
      partial: {
        reason: `${err.message} The report covers the ${this.profiledS.toFixed(1)} s of profiled sub-windows before it.`,
      },
    };
  }
}

/** Exact calling lines are a refinement: a sampler that cannot start leaves the run as it was, with a note. */
async function startStackSampler(run: RunControl, rateHz: number): Promise<{ sampler?: StackSampler; note?: string }> {
  try {
    return { sampler: await StackSampler.start(run.inspector!.channel(), rateHz, { paused: true }) };
  } catch (err) {
    return { note: `Stack captures did not run (${(err as Error).message}): calling lines are read from the source.` };
  }
}

/** A URL setting's path and query (`/login?x=1`), as the app's server sees it in `req.url`. */
function pathOf(url: string): string | undefined {
  if (url.startsWith('/')) return url;
  try {
    const u = new URL(url);
    return u.pathname + u.search;
  } catch {
    return undefined;
  }
}
