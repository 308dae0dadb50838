// One Chrome DevTools Protocol session with the app (chrome-remote-interface): it learns where
// the app listens, samples the event loop, and drives V8's CPU profiler.
import CDP from 'chrome-remote-interface';
import type { CpuProfile, SamplingHeapProfile } from '../profile/index.ts';
import { isLoopback, type ListenAddress } from '../common/index.ts';
import type { CdpChannel } from './cdp-channel.ts';
import { WorkerProfilers } from './workers.ts';
import { inAppCall } from '../in-app/index.ts';
import {
  type AppMark,
  edge,
  type LoopDelay,
  readLoopDelay,
  startLoopProbe,
  stopLoopProbe,
  type WindowKind,
} from './loop-probe.ts';
import { type StallGaps, startStallProbe, takeStallGaps } from './stall-probe.ts';
import { recordConsole, restoreConsole, swapConsole } from './console-swap.ts';
import { startWaitProbe, takeWaitTrace, type WaitTrace } from './wait-probe.ts';
import { type RouteTrace, startRouteProbe, takeRouteTrace } from './route-probe.ts';

export interface StackFrame {
  functionName: string;
  /** The script's URL as V8 gives it (file://…, node:…). */
  url: string;
  /** 1-based */
  line: number;
  column: number;
}

export class InspectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InspectorError';
  }
}

const BINDING = '__hotlineListening';

/** Whether `promise` settles within `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const done = await Promise.race([
    promise.then(() => true),
    new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]);
  clearTimeout(timer);
  return done;
}

export class InspectorSession {
  private closedFlag = false;
  readonly closed: Promise<void>;
  private readonly listeners: Array<(a: ListenAddress) => void> = [];
  readonly listening: ListenAddress[] = [];

  private constructor(
    private readonly client: CDP.Client,
    /** The inspector's WebSocket address (another session may be opened there: capture-sender.ts). */
    readonly url: string,
  ) {
    this.closed = new Promise((resolve) => {
      client.on('disconnect', () => {
        this.closedFlag = true;
        resolve();
      });
    });
    // When the app's script ends while we are attached, Node waits for the debugger to
    // disconnect and would hang: let it go as soon as it says so. NodeRuntime's notice comes
    // without the Runtime domain (which serialises every console call of the app to us, see
    // quiet()); the main context's end is the fallback for a Node without it.
    client.on('NodeRuntime.waitingForDisconnect', () => this.appExiting());
    // Only the main context: an app's own vm contexts come and go.
    let mainContext: number | undefined;
    client.on(
      'Runtime.executionContextCreated',
      (p: { context: { id: number; auxData?: { isDefault?: boolean } } }) => {
        if (mainContext === undefined || p.context.auxData?.isDefault) mainContext ??= p.context.id;
      },
    );
    client.on('Runtime.executionContextDestroyed', (p: { executionContextId: number }) => {
      if (p.executionContextId === mainContext) this.appExiting();
    });
    client.on('Runtime.bindingCalled', (p: { name: string; payload: string }) => {
      if (p.name !== BINDING) return;
      const address = parseAddress(p.payload);
      if (!address) return;
      this.listening.push(address);
      for (const l of this.listeners) l(address);
    });
  }

  /**
   * The app is exiting (process.exit or an uncaught exception) and Node waits for us to
   * disconnect, so the profile of the time up to here can still be taken.
   */
  private appExiting(): void {
    if (this.salvage) return;
    this.salvage = this.profiling ? this.stopProfiler().catch(() => undefined) : Promise.resolve(undefined);
    this.heapSalvage = this.heapSampling ? this.stopHeapSampling().catch(() => undefined) : Promise.resolve(undefined);
    void Promise.all([this.salvage, this.heapSalvage]).finally(() => this.close());
  }

  /**
   * `allowRemote`: the user opted in to a non-loopback inspector (attach only; it gives code execution).
   * `quiet`: the Runtime domain is never enabled (a session reopened between sub-windows: the app
   * already runs, and enabling it would replay the console messages V8 kept meanwhile).
   */
  static async connect(
    wsUrl: string,
    opts: { allowRemote?: boolean; quiet?: boolean } = {},
  ): Promise<InspectorSession> {
    const url = new URL(wsUrl);
    if (!isLoopback(url.hostname) && opts.allowRemote !== true)
      throw new InspectorError(
        `Refusing to connect to an inspector on ${url.hostname}: only loopback addresses are allowed.`,
      );
    // No `local: true`: the bundled protocol lacks Node's own domains.
    const client = await CDP({ host: url.hostname, port: Number(url.port), target: wsUrl });
    const session = new InspectorSession(client, wsUrl);
    try {
      if (!opts.quiet) await client.Runtime.enable();
      try {
        await session.channel().send('NodeRuntime.notifyWhenWaitingForDisconnect', { enabled: true });
        session.exitNoticeWithoutRuntime = true;
      } catch {
        // A Node without the notice: the Runtime domain stays on to learn of the app's exit.
        if (opts.quiet) await client.Runtime.enable();
      }
    } catch (err) {
      await client.close().catch(() => undefined);
      throw err;
    }
    return session;
  }

  /**
   * Closes the app's inspector altogether (this session ends with it), so that the app runs as
   * without `--inspect`: while an inspector is open, Node hands every console call to V8's
   * inspector console too, whatever domains are on (3.7 µs instead of 1.0 µs per console.log,
   * measured on Node 20). The close runs on the app's event loop (closing from inside the
   * session's own message could not answer it). Not done, and said why, when the app handles
   * SIGUSR1 itself (the inspector could not be reopened, AppProcess.reopenInspector) or its loop
   * does not come round within `timeoutMs` (an app stuck in a loop: the close is called off).
   */
  async closeAppInspector(timeoutMs = 3000): Promise<'closed' | 'handles-sigusr1' | 'loop-blocked'> {
    const closing = await this.evaluate(inAppCall('app-hooks', 'closeInspectorSoon'));
    if (closing !== true) return 'handles-sigusr1';
    if (!(await within(this.closed, timeoutMs))) {
      // Called off (the evaluation still runs: V8 serves it between two instructions of the loop).
      await this.evaluate(inAppCall('app-hooks', 'cancelClose')).catch(() => undefined);
      if (!this.closedFlag) return 'loop-blocked';
    }
    this.workerProfilers?.dispose();
    return 'closed';
  }

  private exitNoticeWithoutRuntime = false;

  /**
   * Stops intercepting the app's own work: the Runtime domain sends every console call of the
   * app (arguments serialised) and every exception to us, which slowed an app that logs each
   * request to 0.58–0.89 of its plain speed. Commands (evaluate, bindings already added) still
   * work without it. Called once the app listens, before anything is measured.
   */
  async quiet(): Promise<void> {
    if (this.exitNoticeWithoutRuntime) await this.client.Runtime.disable();
  }

  get isClosed(): boolean {
    return this.closedFlag;
  }

  onListening(listener: (a: ListenAddress) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /**
   * Before the app's first line runs (it waits under --inspect-brk): report every server that
   * starts listening through a binding (an event, so no polling), then let it run.
   */
  async release(): Promise<void> {
    await this.client.Runtime.addBinding({ name: BINDING });
    await this.evaluate(inAppCall('app-hooks', 'watchListening', BINDING));
    await recordConsole((e) => this.evaluate(e));
    try {
      // Until the app listens, the workers that start are its boot's (boot-threads.ts says why not only this).
      this.workerProfilers = await WorkerProfilers.watch(this.channel(), {
        booting: () => this.listening.length === 0,
      });
    } catch {
      // No NodeWorker domain (an old Node): the main thread is profiled alone (profiled-extras notes it).
    }
    await this.client.Runtime.runIfWaitingForDebugger();
  }

  /** The app's worker threads, watched from its first line (see WorkerProfilers.watch). */
  get workers(): WorkerProfilers | undefined {
    return this.workerProfilers;
  }

  private workerProfilers: WorkerProfilers | undefined;

  /**
   * Makes the app exit if its parent (this process) dies without stopping it. Installed once the
   * app runs: at the --inspect-brk pause Node's timers are not initialised yet.
   */
  async exitWithParent(parentPid: number): Promise<void> {
    await this.evaluate(inAppCall('app-hooks', 'exitWithParent', parentPid));
  }

  /**
   * For an app started by a command line (command.ts), whose parent is a watcher or a shell:
   * once `ownerPid` (Hotline) is gone without stopping it, the app ends its whole process group
   * (the shell, the watcher, itself), which a watcher would otherwise restart.
   */
  async endGroupWithOwner(ownerPid: number): Promise<void> {
    await this.evaluate(inAppCall('app-hooks', 'endGroupWithOwner', ownerPid));
  }

  /** Servers already listening (for an app that was running before we attached). */
  async listeningServers(): Promise<ListenAddress[]> {
    const json = await this.evaluate(inAppCall('app-hooks', 'listeningServers'));
    const list = typeof json === 'string' ? (JSON.parse(json) as unknown[]) : [];
    return list.map((a) => parseAddress(JSON.stringify(a))).filter((a): a is ListenAddress => a !== undefined);
  }

  /** Who the app is, asked from inside (for an app Hotline attached to rather than started). */
  async appProcess(): Promise<{ pid: number; argv: string[]; execArgv: string[]; cwd: string }> {
    const json = await this.evaluate(inAppCall('app-hooks', 'whoAmI'));
    return JSON.parse(String(json)) as { pid: number; argv: string[]; execArgv: string[]; cwd: string };
  }

  /**
   * Leaves an app that keeps running as it was before the run: the loop probe removed, the
   * profiler and coverage off. (The listen hook and the parent watchdog are installed only in
   * apps Hotline launched.) Each step is tried even if one before failed.
   */
  async restore(): Promise<string[]> {
    const failed: string[] = [];
    const step = async (what: string, work: () => Promise<unknown>): Promise<void> => {
      try {
        await work();
      } catch (err) {
        failed.push(`${what}: ${(err as Error).message}`);
      }
    };
    await step('loop probe', () => this.stopLoopProbe());
    await step('stall probe', () => this.takeStallGaps());
    await step('wait probe', () => this.takeWaitTrace());
    await step('route probe', () => this.takeRouteTrace());
    if (this.profiling) await step('profiler', () => this.stopProfiler());
    await step('coverage', () => this.client.Profiler.stopPreciseCoverage());
    await step('profiler domain', () => this.client.Profiler.disable());
    return failed;
  }

  /** Closes the app's inspector port once this session has gone (for a port Hotline opened). */
  async closeInspectorAfterDetach(): Promise<void> {
    await this.evaluate(inAppCall('app-hooks', 'closeInspectorAfter', 200));
  }

  /** Installs the event-loop probe (loop-probe.ts). */
  async startLoopProbe(): Promise<void> {
    await startLoopProbe((e) => this.evaluate(e));
  }

  /** A sub-window's edge: the probe's histograms switched and the app's CPU and loop use marked (loop-probe.ts). */
  async edge(o: { open?: WindowKind; close?: WindowKind }): Promise<AppMark> {
    return edge((e) => this.evaluate(e), o);
  }

  /** The loop delay over every window of one kind (loop-probe.ts). */
  async readLoopDelay(kind: WindowKind, wallS: number): Promise<LoopDelay> {
    return readLoopDelay((e) => this.evaluate(e), kind, wallS);
  }

  async stopLoopProbe(): Promise<void> {
    await stopLoopProbe((e) => this.evaluate(e));
  }

  /** The console's printing methods out of the open inspector's sight (console-swap.ts); how many. */
  async swapConsole(): Promise<number> {
    return swapConsole((e) => this.evaluate(e));
  }

  async restoreConsole(): Promise<void> {
    await restoreConsole((e) => this.evaluate(e));
  }

  /** Starts noting event-loop stalls of at least `thresholdMs` (stall-probe.ts). */
  async startStallProbe(thresholdMs: number): Promise<void> {
    await startStallProbe((e) => this.evaluate(e), thresholdMs);
  }

  /** Starts noting the app's threadpool requests (wait-probe.ts). */
  async startWaitProbe(loadedPath?: string): Promise<void> {
    await startWaitProbe((e) => this.evaluate(e), loadedPath);
  }

  /** Removes the wait probe and returns what it noted (wait-probe.ts). */
  async takeWaitTrace(): Promise<WaitTrace | undefined> {
    return takeWaitTrace((e) => this.evaluate(e));
  }

  /** Starts labelling the main thread's work with the HTTP request it serves (route-probe.ts). */
  async startRouteProbe(): Promise<void> {
    await startRouteProbe((e) => this.evaluate(e));
  }

  /** Removes the route probe and returns what it noted (route-probe.ts). */
  async takeRouteTrace(): Promise<RouteTrace | undefined> {
    return takeRouteTrace((e) => this.evaluate(e));
  }

  /** Removes the stall probe and returns the gaps it noted (stall-probe.ts). */
  async takeStallGaps(): Promise<StallGaps> {
    return takeStallGaps((e) => this.evaluate(e));
  }

  /**
   * Where the main thread is right now: the debugger pauses it (between two JS instructions,
   * even in an endless loop), reads the stack and lets it go. For a loop that never yields the
   * profiler can only show the caller (its code was optimised on the stack), this names it.
   */
  async stackNow(timeoutMs = 3000): Promise<StackFrame[]> {
    const { Debugger } = this.client;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new InspectorError('the app did not pause')), timeoutMs);
    });
    const paused = Debugger.paused();
    // Call frames name their script by id; enabling the debugger replays every script's URL.
    const urls = new Map<string, string>();
    const unsubscribe = Debugger.scriptParsed((s) => urls.set(s.scriptId, s.url));
    await Debugger.enable();
    try {
      await Debugger.pause();
      const p = await Promise.race([paused, timedOut]);
      return p.callFrames.slice(0, 12).map((f) => ({
        functionName: f.functionName || '(anonymous)',
        url: urls.get(f.location.scriptId) ?? f.url ?? '',
        line: f.location.lineNumber + 1,
        column: (f.location.columnNumber ?? 0) + 1,
      }));
    } finally {
      clearTimeout(timer);
      unsubscribe();
      await Debugger.resume().catch(() => undefined);
      await Debugger.disable().catch(() => undefined);
    }
  }

  /**
   * Starts the CPU profiler. Precise coverage is switched on and off first: that deoptimises
   * code V8 had optimised on-stack (OSR), which the profiler would otherwise not attribute.
   */
  async startProfiler(intervalUs: number, opts: { flush?: boolean } = {}): Promise<void> {
    const { Profiler } = this.client;
    await Profiler.enable();
    if (opts.flush !== false) {
      await Profiler.startPreciseCoverage({ callCount: false, detailed: false });
      await Profiler.stopPreciseCoverage();
    }
    await Profiler.setSamplingInterval({ interval: intervalUs });
    await Profiler.start();
    this.profiling = true;
  }

  /** Stops the profiler and its domain: nothing of it stays on between profiled sub-windows. */
  async stopProfiler(): Promise<CpuProfile> {
    this.profiling = false;
    const { profile } = await this.client.Profiler.stop();
    // An exiting app may not answer this one: the profile is kept either way.
    await this.client.Profiler.disable().catch(() => undefined);
    return profile as unknown as CpuProfile;
  }

  /**
   * Raw access to this session's connection for the domains this class does not wrap (NodeWorker
   * for worker threads, see workers.ts). The session stays the connection's one owner.
   */
  channel(): CdpChannel {
    // At run time the client is an EventEmitter with a promise-returning send (its typings only
    // know Chrome's domains, not Node's NodeWorker).
    const client = this.client as unknown as {
      send(method: string, params: object): Promise<unknown>;
      on(event: string, handler: (params: never) => void): void;
      removeListener(event: string, handler: (params: never) => void): void;
    };
    return {
      url: this.url,
      send: (method, params = {}) => client.send(method, params),
      on: (event, handler) => {
        client.on(event, handler);
        return () => client.removeListener(event, handler);
      },
    };
  }

  /**
   * Starts V8's allocation sampling on the main thread: one sample about every `intervalBytes`
   * allocated, kept even once the object is collected (so the profile is what was allocated,
   * not what is still alive).
   */
  async startHeapSampling(intervalBytes: number): Promise<void> {
    // The include flags are newer than chrome-remote-interface's typings.
    await this.channel().send('HeapProfiler.startSampling', {
      samplingInterval: intervalBytes,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    this.heapSampling = true;
  }

  async stopHeapSampling(): Promise<SamplingHeapProfile> {
    this.heapSampling = false;
    const { profile } = (await this.channel().send('HeapProfiler.stopSampling')) as { profile: SamplingHeapProfile };
    return profile;
  }

  /** The allocation profile taken as the app exited while sampling ran, if it exited that way. */
  salvagedHeapProfile(): Promise<SamplingHeapProfile | undefined> {
    return this.heapSalvage ?? Promise.resolve(undefined);
  }

  private heapSampling = false;
  private heapSalvage: Promise<SamplingHeapProfile | undefined> | undefined;

  /** The profile taken as the app exited while the profiler ran, if it exited that way. */
  salvagedProfile(): Promise<CpuProfile | undefined> {
    return this.salvage ?? Promise.resolve(undefined);
  }

  private profiling = false;
  private salvage: Promise<CpuProfile | undefined> | undefined;

  /**
   * Closes the session. If the app died first, chrome-remote-interface's close() can wait for a
   * close event that already happened: the socket's own end (or a second) is enough.
   */
  async close(): Promise<void> {
    if (this.closedFlag) return;
    this.workerProfilers?.dispose();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.client.close().catch(() => undefined), // the app already went away: closed either way
      this.closed,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, 1000);
      }),
    ]);
    clearTimeout(timer);
    this.closedFlag = true;
  }

  private async evaluate(expression: string): Promise<unknown> {
    const result = await this.client.Runtime.evaluate({
      expression,
      includeCommandLineAPI: true,
      returnByValue: true,
      silent: true,
    });
    if (result.exceptionDetails) {
      const text = result.exceptionDetails.exception?.description ?? result.exceptionDetails.text;
      throw new InspectorError(`Evaluating in the app failed: ${text}`);
    }
    return result.result.value;
  }
}

function parseAddress(payload: string): ListenAddress | undefined {
  try {
    const a = JSON.parse(payload) as Partial<ListenAddress> | string | null;
    if (a && typeof a === 'object' && typeof a.port === 'number')
      return { address: String(a.address), family: String(a.family), port: a.port };
  } catch {
    // a pipe or a malformed payload: not a TCP server we can load
  }
  return undefined;
}
