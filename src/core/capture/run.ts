// One capture, in order: launch → inspector → listening → warm-up → measured window (profiler off)
// → profiled window (same load) → stop → save the profile and run.json. The analysis that follows
// lives elsewhere (analyze-run/), so the editor, which only captures, carries none of it. Only this
// module knows that order (run-record.ts, what it records). Whatever happens, the app, its children and
// the load generator are stopped (an attached app is left running, with what the run installed undone).
import * as path from 'node:path';
import {
  accepts,
  AppProcess,
  AttachedApp,
  type AttachSpec,
  describeExit,
  explicitPort,
  freePort,
  joinUrl,
  LaunchError,
  type LaunchSpec,
  loopbackHostOf,
  type RunApp,
} from '../app/index.ts';
import { between, InspectorSession } from '../inspector/index.ts';
import { type ListenAddress, redactUrl, RunError } from '../common/index.ts';
import { checkLoadCommand, ExternalLoad, LOAD_LOG_FILE, LoadError, LoadRun, type LoadTick } from '../load/index.ts';
import { whyFailed, windowClock, type WindowClock } from './waits.ts';
import { type CpuProfile, fileOfUrl, mergeProfiles } from '../analysis/index.ts';
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
} from '../store/index.ts';
import { loadFigures, loopOf, type Measured, recordedSettings } from './record.ts';
import { type LoadSettings, RUN_DEFAULTS, type Settings, subWindowPlan, validate, withDefaults } from './settings.ts';
import { ProfiledExtras, saveExtras } from './extras.ts';
import { DEFAULT_STACK_RATE_HZ, StackSampler } from './stack-sampler.ts';

export interface RunOptions extends LoadSettings {
  /** With `attach`, only `cwd` counts: the app's folder (its code is "yours", its runs are kept there). */
  target: LaunchSpec;
  /** Profile an app that already runs instead of starting one; it is left running afterwards. */
  attach?: AttachSpec;
  /** The user's load tool instead of autocannon (`wrk -d10s {url}`): each window lasts as long as it runs. */
  loadCommand?: string;
  /** How long the app may take to start listening. */
  listenTimeoutS?: number;
  /** Seconds the app may take to end after its SIGTERM (a graceful shutdown) before SIGKILL. */
  stopGraceS?: number;
  /** Seconds between profiler restarts in the profiled window (what a crash can lose at most). */
  segmentS?: number;
  /** Stack captures per second in the profiled window, for exact calling lines (stack-sampler.ts); 0: none. */
  stackRateHz?: number;
  /** Where runs are kept; default <app dir>/.hotline/runs. */
  runsDir?: string;
  signal?: AbortSignal;
  onProgress?: (p: RunProgress) => void;
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
}

export type RunPhase = 'starting' | 'warmup' | 'measuring' | 'profiling' | 'analyzing' | 'done';

export interface RunProgress {
  phase: RunPhase;
  message: string;
  /** Seconds into the phase and the phase's length, during load phases. */
  second?: number;
  of?: number;
  requestsPerSecond?: number;
}

export interface RunResult {
  runDir: string;
}

/** Profiler segments: short enough to lose little to a hard crash, long enough to cost nothing. */
const PROFILE_SEGMENT_S = 5;
/** The gap after a profiled sub-window, before the next measured one. */
const SETTLE_S = 0.25;

const PHASE_NAMES: Record<RunPhase, string> = {
  starting: 'starting the app',
  warmup: 'warm-up',
  measuring: 'measuring (profiler off)',
  profiling: 'profiling',
  analyzing: 'analyzing',
  done: 'done',
};

/** Capture only: the caller analyzes the run folder (the CLI in-process, the editor in its language server). */
export async function captureUnderLoad(opts: RunOptions): Promise<RunResult> {
  const settings = withDefaults(opts);
  validate(settings, opts.stopGraceS);
  return new Run(opts, settings).execute();
}

class Run {
  private app: RunApp | undefined;
  /** Set when the run attached to a running app: it owns the inspector session and is never stopped. */
  private attached: AttachedApp | undefined;
  private inspector: InspectorSession | undefined;
  private load: LoadRun | ExternalLoad | undefined;
  private phase: RunPhase = 'starting';
  private loadFinished = false;
  /** Set once we stop the app ourselves: its exit is then no failure. */
  private stoppedByUs = false;
  private readonly disposers: Array<() => void> = [];
  private releaseLock: (() => void) | undefined;
  private readonly output: string[] = [];
  /** Seconds of the measured (or profiled) window before the current sub-window, for progress. */
  private windowSecond = 0;
  private lastTickRps = 0;
  /** Rejects when the run can't go on: the app exited, the user cancelled, the load died. */
  private stopReason: Promise<never> | undefined;

  constructor(
    private readonly opts: RunOptions,
    private readonly s: Settings,
  ) {}

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

  private async portToLaunchOn(): Promise<number> {
    const fixedPort = explicitPort(this.s.url);
    if (fixedPort !== undefined && (await accepts(fixedPort))) {
      throw new RunError(
        'port-in-use',
        `Port ${fixedPort} of --url is already in use by another process: stop it, or pass a path (--url /…) and let Hotline pick a free port.`,
      );
    }
    return fixedPort ?? (await freePort());
  }

  /** An app that already runs (attach.ts): no listen hook, no parent watchdog, never stopped. */
  private async attachTo(spec: AttachSpec): Promise<ListenAddress> {
    this.progress('starting', `attaching to ${spec.target}`);
    const attaching = AttachedApp.attach(spec, this.opts.signal);
    // Cancelled while it connects: it must still be let go once connected.
    this.disposers.push(
      () =>
        void attaching.then(
          (a) => a.stop(),
          () => undefined,
        ),
    );
    const app = await attaching;
    this.app = this.attached = app;
    this.inspector = app.inspector;
    await this.race(app.inspector.quiet());
    this.stopReason = this.watch(app);
    this.stopReason.catch(() => undefined);
    return this.race(app.httpAddress(this.s.url));
  }

  private async start(port: number): Promise<ListenAddress> {
    const target = this.opts.target;
    this.progress(
      'starting',
      `starting ${path.relative(target.cwd, path.resolve(target.cwd, target.entry)) || target.entry}`,
    );
    const env = { PORT: String(port), ...(target.env ?? {}) };
    const { app, inspectorUrl } = await AppProcess.start({
      ...target,
      env,
      onOutput: (stream, text) => {
        this.output.push(text);
        this.opts.onOutput?.(stream, text);
      },
    });
    this.app = app;
    this.stopReason = this.watch(app);
    this.stopReason.catch(() => undefined); // observed by every wait below
    const connecting = InspectorSession.connect(inspectorUrl);
    this.disposers.push(
      () =>
        void connecting.then(
          (i) => i.close(),
          () => undefined,
        ),
    );
    this.inspector = await this.race(connecting);
    const listening = this.nextListening(port);
    let address: ListenAddress;
    try {
      await this.race(this.inspector.release());
      address = await this.race(listening.promise);
    } finally {
      listening.cancel();
    }
    await this.race(this.inspector.exitWithParent(process.pid));
    // From here on the app runs its own work without us in the way (InspectorSession.quiet).
    await this.race(this.inspector.quiet());
    const host = loopbackHostOf(address);
    if (host === undefined) {
      throw new RunError(
        'never-listened',
        `The app listens on ${address.address}:${address.port} only, not on a loopback address: Hotline loads only 127.0.0.1 or ::1. Make it listen on all interfaces or on localhost.`,
        app.output(),
      );
    }
    if (!(await accepts(address.port, host))) {
      throw new RunError(
        'never-listened',
        `The app reported listening on port ${address.port} but refuses connections on ${host}.`,
        app.output(),
      );
    }
    return address;
  }

  /** The first TCP server the app opens; the one on PORT if it opens several at once. */
  private nextListening(port: number): { promise: Promise<ListenAddress>; cancel(): void } {
    const inspector = this.inspector!;
    const timeoutS = this.opts.listenTimeoutS ?? RUN_DEFAULTS.listenTimeoutS;
    let cancel = (): void => undefined;
    const promise = new Promise<ListenAddress>((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(
          new RunError(
            'never-listened',
            `The app did not start listening within ${timeoutS} s. Hotline set PORT=${port} and watched every server.listen() in the app; none was called. Is the entry file right, and does the app need other settings (env, args) to start its server?`,
            this.app?.output() ?? '',
          ),
        );
      }, timeoutS * 1000);
      const off = inspector.onListening((a) => {
        cancel();
        // Several servers in one tick: prefer the one on PORT.
        setImmediate(() => resolve(inspector.listening.find((l) => l.port === port) ?? a));
      });
      cancel = () => {
        clearTimeout(timer);
        off();
      };
    });
    promise.catch(() => undefined); // raced in start(); a rejection nobody awaits is not an error
    return { promise, cancel };
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
      : LoadRun.start(
          {
            url,
            method: s.method,
            headers: s.headers,
            body: s.body,
            connections: s.connections,
            pipelining: s.pipelining,
            timeoutS: s.timeoutS,
            maxDurationS,
          },
          onTick,
        );
    // Cancelled while it starts: it must still be stopped once it is up.
    this.disposers.push(
      () =>
        void starting.then(
          (l) => l.kill(),
          () => undefined,
        ),
    );
    this.load = await this.race(starting);
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
    const inspector = this.inspector!;
    const load = this.load!;
    const plan = subWindowPlan(s.durationS, load instanceof ExternalLoad);
    const extras = await this.race(
      ProfiledExtras.open(inspector, { samplingIntervalUs: s.samplingIntervalUs, heap: this.opts.heap }),
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
    await this.race(inspector.startLoopProbe());
    try {
      for (let i = 0; i < plan.count; i++) {
        this.windowSecond = i * plan.seconds;
        // Measured: the app alone.
        this.progress('measuring', PHASE_NAMES.measuring, {
          second: this.windowSecond,
          of: s.durationS,
          requestsPerSecond: this.lastTickRps,
        });
        const m0 = await this.race(inspector.edge({ open: 'measured' }));
        await this.race(load.switchPhase('measured'));
        await this.windowClock(plan.seconds).next();
        const measured = await this.race(load.switchPhase('warmup'));
        taken.measured.push({
          result: measured,
          app: between(m0, await this.race(inspector.edge({ close: 'measured' }))),
        });
        // Profiled: the profiler and the extras on, then off again. The first start flushes
        // optimised code (InspectorSession.startProfiler); later ones find it known to V8's profiler.
        await this.race(inspector.startProfiler(s.samplingIntervalUs, { flush: i === 0 }));
        await this.race(extras.startSubWindow(i === 0));
        this.progress('profiling', PHASE_NAMES.profiling, {
          second: this.windowSecond,
          of: s.durationS,
          requestsPerSecond: this.lastTickRps,
        });
        const p0 = await this.race(inspector.edge({ open: 'profiled' }));
        profiling = Date.now();
        sampler?.resume();
        await this.race(load.switchPhase('profiled'));
        const clock = this.windowClock(plan.seconds);
        while (!clock.over()) {
          await clock.next(segmentS);
          if (clock.over()) break;
          segments.push(await this.race(inspector.stopProfiler()));
          await this.race(inspector.startProfiler(s.samplingIntervalUs, { flush: false }));
          await this.race(extras.nextSegment());
        }
        const last = i === plan.count - 1;
        if (last) this.loadFinished = true;
        const profiled = await this.race(last ? load.finish() : load.switchPhase('warmup'));
        taken.profiled.push({
          result: profiled,
          app: between(p0, await this.race(inspector.edge({ close: 'profiled' }))),
        });
        profiledS += (Date.now() - profiling) / 1000;
        profiling = undefined;
        await sampler?.stop();
        segments.push(await this.race(inspector.stopProfiler()));
        await this.race(extras.endSubWindow());
        // Responses delayed by the profile's serialisation land here, not in the next measured window.
        if (!last) await this.wait(SETTLE_S);
      }
      const wallS = (kind: 'measured' | 'profiled'): number => taken[kind].reduce((t, w) => t + w.app.wallS, 0);
      const loop = loopOf(await this.race(inspector.readLoopDelay('measured', wallS('measured'))), taken.measured);
      const profiledLoop = loopOf(
        await this.race(inspector.readLoopDelay('profiled', wallS('profiled'))),
        taken.profiled,
      );
      // A loop that never yielded in the whole window: say where it is stuck.
      const blockedAt = loop.blockedThroughout
        ? await this.race(inspector.stackNow()).catch(() => undefined)
        : undefined;
      const captured = await this.race(extras.finish());
      await inspector.stopLoopProbe().catch(() => undefined);
      await sampler?.dispose();
      return {
        measured: load.total('measured')!,
        profiled: load.total('profiled')!,
        subWindows: taken,
        loop,
        profiledLoop,
        blockedAt,
        profile: mergeProfiles(segments),
        extras: captured,
        stacks: sampler?.result(segments),
      };
    } catch (err) {
      if (!(err instanceof RunError && err.kind === 'app-exited')) throw err;
      if (profiling !== undefined) profiledS += (Date.now() - profiling) / 1000;
      const salvaged = await inspector.salvagedProfile();
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
        profile: mergeProfiles(segments),
        extras: await extras.salvage(),
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

  /** Writes the run's data (profile, stack captures, app output, run.json) before anything reads it. */
  private save(startedAt: Date, url: string, m: Measured): string {
    const target = this.opts.target;
    const runsDir = this.opts.runsDir ?? runsDirOf(target.cwd);
    const id = newRunId(startedAt);
    const runDir = createRunDir(runsDir, id);
    writeFileAtomic(path.join(runDir, PROFILE_FILE), JSON.stringify(m.profile));
    writeFileAtomic(path.join(runDir, LOG_FILE), this.output.join(''));
    if (m.stacks) writeFileAtomic(path.join(runDir, STACKS_FILE), JSON.stringify(m.stacks));
    const extras = m.extras ? saveExtras(runDir, m.extras) : undefined;
    if (extras && this.samplerNote) extras.notes.push(this.samplerNote);
    writeRunRecord(runDir, {
      version: 1,
      id,
      startedAt: startedAt.toISOString(),
      app: { command: this.app?.command ?? [], cwd: target.cwd, pid: this.app?.pid ?? -1, url: redactUrl(url) },
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

  // ---- waiting and stopping ------------------------------------------------------------------

  private windowClock(seconds: number): WindowClock {
    return windowClock(
      this.load,
      seconds,
      (sec) => this.wait(sec),
      (p) => this.race(p),
    );
  }

  private watch(app: RunApp): Promise<never> {
    return new Promise<never>((_, reject) => {
      void app.exited.then((exit) => {
        if (this.stoppedByUs) return;
        const output = app.output();
        if (/EADDRINUSE/.test(output)) {
          reject(
            new RunError(
              'port-in-use',
              `The app could not listen: its port is already in use (EADDRINUSE). Stop the other process or change the app's port.`,
              output,
            ),
          );
          return;
        }
        const when = this.phase === 'starting' ? 'before it opened a port' : `during ${PHASE_NAMES[this.phase]}`;
        reject(new RunError('app-exited', `The app exited ${when} (${describeExit(exit)}).`, output));
      });
      const signal = this.opts.signal;
      if (signal) {
        const onAbort = (): void => reject(new RunError('cancelled', `Cancelled during ${PHASE_NAMES[this.phase]}.`));
        if (signal.aborted) onAbort();
        else {
          signal.addEventListener('abort', onAbort, { once: true });
          this.disposers.push(() => signal.removeEventListener('abort', onAbort));
        }
      }
    });
  }

  /** Waits for `work` unless the run must stop first. */
  private race<T>(work: Promise<T>): Promise<T> {
    const stop = this.stopReason;
    if (!stop) return work;
    return Promise.race([work.catch((err: unknown) => whyFailed(err, this.inspector, stop)), stop]);
  }

  private wait(seconds: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const done = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, seconds * 1000);
    });
    return this.race(done).finally(() => clearTimeout(timer));
  }

  private throwIfCancelled(): void {
    if (this.opts.signal?.aborted) throw new RunError('cancelled', 'Cancelled before the app started.');
  }

  private async stopAll(): Promise<void> {
    this.stoppedByUs = true;
    for (const dispose of this.disposers.splice(0)) dispose();
    this.load?.kill();
    // An attached app undoes what the run installed before its session closes (in stop()).
    const closing = this.attached ? undefined : this.inspector?.close();
    await this.app?.stop((this.opts.stopGraceS ?? RUN_DEFAULTS.stopGraceS) * 1000);
    // Only once the app is gone may another run of it start.
    this.releaseLock?.();
    this.releaseLock = undefined;
    await closing;
    await this.load?.exited;
  }

  private explain(err: unknown): Error {
    if (err instanceof RunError) return err;
    if (err instanceof LaunchError)
      return new RunError(err.kind === 'missing' ? 'bad-options' : 'app-exited', err.message, err.output);
    if (err instanceof LoadError)
      return err.code === 'bad-options'
        ? new RunError('bad-options', err.message)
        : new RunError('load-failed', `The load test failed: ${err.message}`);
    if (this.app?.exit && !this.stoppedByUs) {
      return new RunError(
        'app-exited',
        `The app exited during ${PHASE_NAMES[this.phase]} (${describeExit(this.app.exit)}).`,
        this.app.output(),
      );
    }
    return err instanceof Error ? err : new Error(String(err));
  }

  private progress(phase: RunPhase, message: string, extra: Partial<RunProgress> = {}): void {
    this.phase = phase;
    this.opts.onProgress?.({ phase, message, ...extra });
  }
}
