// Two versions of an app (a baseline's folder and the current one) measured side by side, for a
// gate that a shared, noisy machine cannot fool. Each round starts both on their own ports; then
// each serves the same load alone for a short window (A B, B A, …: the order flips so a steady
// drift hits both alike), the profiler never on and the inspector closed in the window
// (closed-inspector.ts), exactly as a run's measured sub-windows. Two runs taken minutes apart
// differed by up to ±15% in CPU per request on this machine with identical code, which hides a
// 10% regression; two windows seconds apart share the machine's state. And a gate whose versions
// started once carried an offset of its own through all its rounds (~3–4% SD, up to 8%, on an app
// that allocates a lot), most likely its two processes': fresh processes each round put it into
// the rounds' ratios, whose spread the interval is made of (verdicts/compare-side-by-side.ts),
// instead of into every round alike, where no interval of the rounds can see it.
// docs/measurement.md ("The gate").
import { between } from '../inspector/index.ts';
import { LoadRun, type PhaseResult, probe, probeFailureLine } from '../load/index.ts';
import { joinUrl, type LaunchSpec } from '../app/index.ts';
import { sequentialConfidence, type SideBySideFigures, type SideFigures } from '../verdicts/index.ts';
import { subWindowFigures, type SubWindowTaken } from './record.ts';
import { RunControl } from './run-control.ts';
import { appEdge, launch, portToLaunchOn } from './run-start.ts';
import type { StartedApp } from './started-app.ts';
import { InspectorCycle } from './closed-inspector.ts';
import {
  loadOptionsOf,
  probeOptionsOf,
  type Settings,
  subWindowPlan,
  validate,
  withDefaults,
  type LoadSettings,
} from './run-settings.ts';
import type { RunProgress } from './run-types.ts';
import { treeCpuMark, treeCpuMsPerRequest } from './tree-cpu.ts';
import { routeThreadTimes, withThreadTime, type RouteThreadTime } from './extras/route-thread-time.ts';
import { routeKey, routeOf, RunError } from '../common/index.ts';

export interface SideBySideOptions extends Omit<LoadSettings, 'samplingIntervalUs' | 'heap'> {
  base: LaunchSpec;
  current: LaunchSpec;
  /** Rounds of one window each (default: as a run cuts its windows, durationS ÷ ~2 s). */
  rounds?: number;
  /**
   * A sequential gate: after the rounds, while `decided` says no, as many rounds again, up to
   * `maxRounds` in all (the time cap).
   */
  extend?: {
    maxRounds: number;
    decided: (f: SideBySideFigures) => boolean;
    /**
     * The gate's time budget, s (its first start to its last window): the cap of rounds is then
     * what fits, as timed on the first round (roundsWithin), and no round starts past it.
     */
    maxTimeS?: number;
  };
  /**
   * Both versions started afresh for each round (default), so a round's ratio carries the offset
   * between two processes of the same code, which lasts as long as they run (~3% SD on an app
   * that allocates a lot, docs/measurement.md "The gate"); false: one start for all rounds, faster
   * for an app slow to start, and blind to that offset.
   */
  freshEachRound?: boolean;
  listenTimeoutS?: number;
  stopGraceS?: number;
  signal?: AbortSignal;
  onProgress?: (p: RunProgress) => void;
}

/**
 * Load before each window, not counted: the version was idle while the other one ran, and its
 * connections are new (the load runs in a fresh generator per window, so only one app is loaded).
 */
const WARM_IN_S = 1;
/** A paired interval needs 2 rounds; past this many a run takes long for little more precision. */
const MAX_ROUNDS = 100;
/** Shorter windows are mostly their edges. */
const MIN_WINDOW_S = 0.5;

export async function measureSideBySide(o: SideBySideOptions): Promise<SideBySideFigures> {
  const s = withDefaults(o);
  validate(s, o.stopGraceS);
  if (/^https?:\/\//.test(s.url))
    throw new RunError(
      'bad-options',
      'Side by side, --url must be a path (/login): the two versions listen on ports of their own.',
    );
  if (o.rounds !== undefined && !(Number.isInteger(o.rounds) && o.rounds >= 2 && o.rounds <= MAX_ROUNDS))
    throw new RunError('bad-options', `--rounds must be a whole number from 2 to ${MAX_ROUNDS} (got ${o.rounds}).`);
  const rounds = o.rounds ?? Math.max(2, subWindowPlan(s.durationS, false).count);
  const windowS = s.durationS / rounds;
  if (windowS < MIN_WINDOW_S)
    throw new RunError(
      'bad-options',
      `${rounds} rounds of ${s.durationS} s make windows of ${windowS.toFixed(2)} s: each needs at least ${MIN_WINDOW_S} s (fewer rounds or a longer --duration).`,
    );
  const taken = { base: [] as WindowTaken[], current: [] as WindowTaken[] };
  let maxRounds = Math.max(rounds, Math.min(MAX_ROUNDS, o.extend?.maxRounds ?? rounds));
  // Each look at the level that keeps the gate's error rates within 5% over all its looks. With a
  // time budget the looks are known after the first round (timed), before the first look.
  let confidence = o.extend ? sequentialConfidence(rounds, maxRounds) : 0.95;
  const maxTimeS = o.extend?.maxTimeS;
  const startedAt = performance.now();
  const elapsedS = (): number => (performance.now() - startedAt) / 1000;
  let sides: Record<'base' | 'current', Side> | undefined;
  // A mix of several routes: each round also takes a labelled window per version, the route
  // probe on (and nothing else of Hotline's), for each route's thread time per request. The
  // plain windows stay the plain app's, as the whole's figures need.
  const labelled = new Set((s.requests ?? []).map((q) => routeKey(q.method, routeOf(q.path)))).size > 1;
  try {
    let planned = rounds;
    for (let r = 0; r < planned; r++) {
      // Past the first look, a round that would end past the budget is not started.
      if (maxTimeS !== undefined && r >= rounds && elapsedS() + elapsedS() / r > maxTimeS) break;
      if (!sides || o.freshEachRound !== false) {
        if (sides) await stopBoth(sides);
        sides = { base: new Side(o, s, o.base, 'baseline'), current: new Side(o, s, o.current, 'current') };
        o.onProgress?.({
          phase: 'starting',
          message: `round ${r + 1}/${planned}: starting both versions`,
          second: r * windowS,
          of: s.durationS,
        });
        await startBoth(sides, s.warmupS);
      }
      const order = r % 2 === 0 ? (['base', 'current'] as const) : (['current', 'base'] as const);
      for (const which of order) {
        o.onProgress?.({
          phase: 'measuring',
          message: `round ${r + 1}/${planned}: the ${sides[which].role} version`,
          second: r * windowS,
          of: s.durationS,
        });
        taken[which].push(await sides[which].window(windowS));
      }
      if (labelled)
        for (const which of order) {
          o.onProgress?.({
            phase: 'measuring',
            message: `round ${r + 1}/${planned}: the ${sides[which].role} version, per route`,
            second: r * windowS,
            of: s.durationS,
          });
          taken[which][taken[which].length - 1].routeTimes = await sides[which].labelled(windowS);
        }
      const done = r + 1;
      if (done === 1 && maxTimeS !== undefined && o.extend) {
        maxRounds = roundsWithin(maxTimeS, elapsedS(), rounds, maxRounds);
        confidence = sequentialConfidence(rounds, maxRounds);
      }
      if (done === planned && done < maxRounds && o.extend && !o.extend.decided(soFar(done)))
        planned = Math.min(maxRounds, planned + rounds);
    }
  } finally {
    if (sides) await stopBoth(sides);
  }
  return soFar(taken.base.length);

  function soFar(done: number): SideBySideFigures {
    return {
      version: 1,
      rounds: done,
      windowS,
      ...(o.freshEachRound !== false ? { freshEachRound: true } : {}),
      ...(o.extend ? { confidence } : {}),
      base: figuresOf(o.base.cwd, taken.base),
      current: figuresOf(o.current.cwd, taken.current),
    };
  }
}

/** Both versions started on ports of their own, checked to answer, and warmed. */
async function startBoth(sides: Record<'base' | 'current', Side>, warmupS: number): Promise<void> {
  await sides.base.launch();
  await sides.current.launch().catch((err: unknown) => {
    const port = sides.base.port;
    if (err instanceof RunError && err.kind === 'port-in-use' && port !== undefined)
      throw new RunError(
        'port-in-use',
        `The two versions cannot run at once: the baseline listens on port ${port} and the current version could not open its port (EADDRINUSE). Make the app take its port from PORT (Hotline gives each version its own) or listen on port 0.`,
        err.output,
      );
    throw err;
  });
  for (const side of [sides.base, sides.current]) await side.probe();
  for (const side of [sides.base, sides.current]) await side.warm(warmupS);
}

async function stopBoth(sides: Record<'base' | 'current', Side>): Promise<void> {
  await Promise.all([sides.base.stop(), sides.current.stop()]);
}

function figuresOf(id: string, taken: WindowTaken[]): SideFigures {
  return {
    id,
    windows: taken.map((t) => {
      const f = subWindowFigures(t);
      return t.routeTimes
        ? { ...f, routes: withThreadTime(f.routes, t.routeTimes.times, f.durationS, t.routeTimes.cpuMs) }
        : f;
    }),
    latencyP90Ms: taken.map((t) => t.result.latencyMs.p90),
    latencyMaxMs: taken.map((t) => t.result.latencyMs.max),
    non2xx: taken.reduce((n, t) => n + t.result.non2xx, 0),
    ...(taken.every((t) => t.treeCpuMsPerRequest !== undefined)
      ? { treeCpuMsPerRequest: taken.map((t) => t.treeCpuMsPerRequest!) }
      : {}),
  };
}

/**
 * The cap of rounds a time budget allows: as many as fit at the first round's pace (it holds two
 * starts, as every fresh round does), never under `rounds` (the first look) nor over `cap`.
 */
export function roundsWithin(maxTimeS: number, firstRoundS: number, rounds: number, cap: number): number {
  if (!(firstRoundS > 0)) return cap;
  return Math.max(rounds, Math.min(cap, Math.floor(maxTimeS / firstRoundS)));
}

/** A window, with the CPU per request of the app's process tree read from /proc at its edges. */
type WindowTaken = SubWindowTaken & {
  treeCpuMsPerRequest?: number;
  /** The round's labelled window of the same version: each route's thread time (a request mix). */
  routeTimes?: { times: RouteThreadTime[]; cpuMs?: number };
};

/** One version: started as a run starts its app, loaded only in its own windows. */
class Side {
  private readonly run: RunControl;
  private cycle: InspectorCycle | undefined;
  private started: StartedApp | undefined;

  constructor(
    o: SideBySideOptions,
    private readonly s: Settings,
    target: LaunchSpec,
    readonly role: 'baseline' | 'current',
  ) {
    this.run = new RunControl(
      {
        ...s,
        target,
        listenTimeoutS: o.listenTimeoutS,
        stopGraceS: o.stopGraceS,
        signal: o.signal,
        onProgress: o.onProgress,
      },
      s,
    );
  }

  async launch(): Promise<void> {
    const run = this.run;
    try {
      run.throwIfCancelled();
      this.started = await launch(run, await portToLaunchOn(this.s.url));
      await run.race(run.inspector!.startLoopProbe());
      this.cycle = InspectorCycle.for(this.started.launched);
    } catch (err) {
      throw this.named(err);
    }
  }

  /** A URL that answers only failures stops the gate before the warm-up (load/probe.ts). */
  async probe(): Promise<void> {
    const o = probeOptionsOf(loadOptionsOf(this.s, joinUrl(this.s.url, this.started!.address), 0));
    const outcome = await this.run.race(probe(o));
    if (!outcome.ok) throw this.named(new RunError('load-failed', probeFailureLine(o, outcome)));
  }

  /** Load that is not counted, so both versions start their windows optimised. */
  async warm(seconds: number): Promise<void> {
    try {
      const load = await this.startLoad(seconds);
      try {
        await this.run.wait(seconds);
      } finally {
        await this.endLoad(load);
      }
    } catch (err) {
      throw this.named(err);
    }
  }

  /** One window of this version alone, its inspector closed as in a run's measured sub-window (sub-windows.ts). */
  async window(seconds: number): Promise<WindowTaken> {
    const run = this.run;
    const processes = this.started!.processes;
    try {
      const load = await this.startLoad(WARM_IN_S + seconds);
      try {
        await run.wait(WARM_IN_S);
        // The app's CPU and the load's requests are counted over the same span: the inspector's
        // close and reopen happen inside it (a reopen on a busy machine can take a second of
        // SIGUSR1 retries, which counted as CPU without its requests made a round worthless).
        await run.race(load.switchPhase('measured'));
        const pid = run.app?.pid;
        const t0 = treeCpuMark(pid);
        const m0 = await run.race(appEdge(run, processes, { open: 'measured' }));
        if (this.cycle && !(await run.race(this.cycle.close(run.inspector!)))) this.cycle = undefined;
        await run.race(processes?.closeInspectors() ?? Promise.resolve());
        await run.wait(seconds);
        if (this.cycle?.isClosed) run.inspector = await run.race(this.cycle.reopen());
        await run.race(processes?.reopenInspectors() ?? Promise.resolve());
        const m1 = await run.race(appEdge(run, processes, { close: 'measured' }));
        const t1 = treeCpuMark(pid);
        const result: PhaseResult = await run.race(load.switchPhase('warmup'));
        const tree = treeCpuMsPerRequest(t0, t1, { requests: result.requests.total, durationS: result.durationS });
        return { result, app: between(m0, m1), ...(tree !== undefined ? { treeCpuMsPerRequest: tree } : {}) };
      } finally {
        await this.endLoad(load);
      }
    } catch (err) {
      throw this.named(err);
    }
  }

  /**
   * A window of this version alone with the route probe on and nothing else of Hotline's: each
   * route's main-thread time per request (route-thread-time.ts). Its inspector stays open (the
   * probe is installed and read through it); its load figures are not kept.
   */
  async labelled(seconds: number): Promise<{ times: RouteThreadTime[]; cpuMs?: number } | undefined> {
    const run = this.run;
    try {
      const load = await this.startLoad(WARM_IN_S + seconds);
      try {
        await run.wait(WARM_IN_S);
        // Cancelled or failed in between, the app is stopped with its probe.
        await run.race(run.inspector!.startRouteProbe());
        const pid = run.app?.pid;
        const t0 = treeCpuMark(pid);
        await run.wait(seconds);
        const t1 = treeCpuMark(pid);
        const trace = await run.race(run.inspector!.takeRouteTrace());
        const times = trace ? routeThreadTimes(trace) : undefined;
        if (!trace || !times) return undefined;
        // The tree's CPU per second between the marks, over the probe's own span (a ratio of rates).
        const spanS = (trace.takenUs - trace.sinceUs) / 1e6;
        const cpuMs =
          t0 && t1 && t1.atS > t0.atS && spanS > 0
            ? ((t1.cpuS - t0.cpuS) / (t1.atS - t0.atS)) * spanS * 1000
            : undefined;
        return { times, ...(cpuMs !== undefined && cpuMs > 0 ? { cpuMs } : {}) };
      } finally {
        await this.endLoad(load);
      }
    } catch (err) {
      throw this.named(err);
    }
  }

  /** The port the version listens on, once started. */
  get port(): number | undefined {
    return this.started?.address.port;
  }

  async stop(): Promise<void> {
    await this.run.stopAll();
  }

  private async startLoad(seconds: number): Promise<LoadRun> {
    // Bounded whatever happens here: it stops by itself a while after its window.
    const starting = LoadRun.start(loadOptionsOf(this.s, joinUrl(this.s.url, this.started!.address), seconds + 60));
    try {
      this.run.load = await this.run.race(starting);
    } catch (err) {
      // Cancelled while it starts: it must still be stopped once it is up.
      void starting.then(
        (l) => l.kill(),
        () => undefined,
      );
      throw err;
    }
    return this.run.load;
  }

  private async endLoad(load: LoadRun): Promise<void> {
    load.kill();
    await load.exited;
    if (this.run.load === load) this.run.load = undefined;
  }

  /** Which version failed, in its error. */
  private named(err: unknown): Error {
    const e = this.run.explain(err);
    if (!(e instanceof RunError) || e.kind === 'cancelled') return e;
    return new RunError(e.kind, `The ${this.role} version (${this.run.opts.target.cwd}): ${e.message}`, e.output);
  }
}
