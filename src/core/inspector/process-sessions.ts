// The app's child processes (cluster workers, forks), each over its own inspector connection,
// profiled in step with the main process: their profilers start, restart and stop with the main
// thread's segments (capture/sub-windows.ts via ProfiledExtras). A child that reports during the
// profiled window joins at once; one that exits keeps the profile up to its exit (Node waits for
// us to let go).
// Outside the profiled sub-windows a child runs with nothing of ours switched on, and so does its
// companion (capture/'s stack captures, which this module runs without knowing them: inspector/
// cannot import capture/): it ticks only while the child's profiler runs.
import type { CpuProfile } from '../profile/index.ts';
import type { CdpChannel } from './cdp-channel.ts';
import { InspectorSession } from './session.ts';
import { inAppCall } from '../in-app/index.ts';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  kind: 'cluster' | 'fork' | 'spawn';
  url: string;
  argv: string[];
}

/**
 * What runs in a child beside its profiler, only while the profiler runs (the stack captures).
 * Made by the owner of the ProcessProfilers when the child is first profiled.
 */
export interface ProfilerCompanion {
  /** The child's profiler has just started; `channel` is its session of the moment (a new one after a reopen). */
  resume(channel: CdpChannel): void;
  /** The child's profiler is about to stop; waits at most `waitMs` for what is under way. */
  stop(waitMs?: number): Promise<void>;
  /** After the last profiled sub-window: undoes what it installed in the child. */
  dispose(): Promise<void>;
}

/** Makes a child's companion through its session (installed, not yet running). */
export type CompanionFactory<C extends ProfilerCompanion> = (channel: CdpChannel) => Promise<C>;

export interface ProcessCapture<C extends ProfilerCompanion = ProfilerCompanion> {
  info: ProcessInfo;
  /** Profiler segments, in order; merge them with mergeProfiles. */
  segments: CpuProfile[];
  joinedLate: boolean;
  exitedEarly: boolean;
  /** Why some or all of its time could not be kept. */
  lost?: string;
  /** Its companion, once it was profiled (it ran in the same sub-windows as these segments). */
  companion?: C;
  /** Why its companion could not be made (the child is profiled without it). */
  companionFailed?: string;
}

/** A child that does not tell its CPU time within this is left out of the sub-window's figure. */
const CPU_MARK_TIMEOUT_MS = 2000;

/** Child processes kept per run (an app may start one per job). */
export const MAX_CHILD_PROCESSES = 64;

class ProcessSession<C extends ProfilerCompanion> {
  session: InspectorSession | undefined;
  profiling = false;
  /** Its inspector is closed for a measured sub-window (closeInspectors), to be reopened. */
  closedByUs = false;
  /** Its console's printing methods are swapped for the profiled window (console-swap.ts). */
  consoleSwapped = false;
  constructor(public capture: ProcessCapture<C>) {}
}

/** How long a child may take to reopen its inspector after SIGUSR1. */
const REOPEN_TIMEOUT_MS = 5000;

export class ProcessProfilers<C extends ProfilerCompanion = ProfilerCompanion> {
  private readonly procs = new Map<number, ProcessSession<C>>();
  private captures: ProcessCapture<C>[] = [];
  private readonly connecting = new Set<Promise<void>>();
  private intervalUs: number | undefined;
  private everOpened = false;
  private closed = false;
  /** Children that reported after the cap was reached. */
  skipped = 0;

  /** `companionOf`: what runs in each child beside its profiler (none: the profiler alone). */
  constructor(private readonly companionOf?: CompanionFactory<C>) {}

  /** A child reported its inspector: connect now (it runs meanwhile), profile it if a window is open. */
  add(info: ProcessInfo): void {
    if (this.closed || this.procs.has(info.pid)) return;
    if (this.procs.size >= MAX_CHILD_PROCESSES) {
      this.skipped++;
      return;
    }
    const p = new ProcessSession<C>({ info, segments: [], joinedLate: false, exitedEarly: false });
    this.procs.set(info.pid, p);
    const work = this.connect(p);
    this.connecting.add(work);
    void work.finally(() => this.connecting.delete(work));
  }

  get count(): number {
    return this.procs.size;
  }

  private async connect(p: ProcessSession<C>): Promise<void> {
    try {
      const session = await InspectorSession.connect(p.capture.info.url);
      if (this.closed) {
        await session.close();
        return;
      }
      p.session = session;
      // Its console calls must not be sent to us (InspectorSession.quiet).
      await session.quiet();
      if (this.intervalUs !== undefined) {
        p.capture.joinedLate = true;
        this.captures.push(p.capture);
        await this.start(p, this.intervalUs, true);
      } else if (this.everOpened) p.capture.joinedLate = true;
    } catch (err) {
      p.capture.lost = (err as Error).message;
    }
  }

  private async start(p: ProcessSession<C>, intervalUs: number, flush: boolean): Promise<void> {
    if (!p.session || p.session.isClosed) return;
    await p.session.startProfiler(intervalUs, { flush });
    p.profiling = true;
    // Its console out of the open inspector's sight for the window (console-swap.ts; a child's
    // originals are noted by its preload). A failure costs only that.
    if (!p.consoleSwapped) p.consoleSwapped = (await p.session.swapConsole().catch(() => 0)) > 0;
    await this.startCompanion(p, p.session.channel());
  }

  /**
   * Its companion runs from its profiler's start to its stop. One that cannot be made leaves the
   * child profiled without it (capture/ says so in the report: a refinement lost, not the run).
   */
  private async startCompanion(p: ProcessSession<C>, channel: CdpChannel): Promise<void> {
    if (!this.companionOf || p.capture.companionFailed !== undefined) return;
    if (!p.capture.companion) {
      try {
        p.capture.companion = await this.companionOf(channel);
      } catch (err) {
        p.capture.companionFailed = (err as Error).message;
        return;
      }
      // Stopped (or the run let go) while it was being made.
      if (!p.profiling || this.closed) return;
    }
    p.capture.companion.resume(channel);
  }

  /** Stops its profiler, keeping the segment (or the one taken as it exited). */
  private async stop(p: ProcessSession<C>): Promise<void> {
    if (!p.profiling || !p.session) return;
    p.profiling = false;
    await p.capture.companion?.stop();
    try {
      p.capture.segments.push(await p.session.stopProfiler());
    } catch (err) {
      const salvaged = await p.session.salvagedProfile();
      if (salvaged) p.capture.segments.push(salvaged);
      else if (!p.session.isClosed) p.capture.lost = (err as Error).message;
    }
  }

  private live(): ProcessSession<C>[] {
    return [...this.procs.values()].filter((p) => p.session && !p.session.isClosed);
  }

  /**
   * process.cpuUsage() (user + system, µs) of every child that answers within CPU_MARK_TIMEOUT_MS,
   * for the app's CPU at a sub-window's edge (AppMark.children).
   */
  async cpuMark(): Promise<Record<number, number>> {
    const out: Record<number, number> = {};
    await Promise.all(
      this.live().map(async (p) => {
        let timer: NodeJS.Timeout | undefined;
        const asking = p.session!.channel().send('Runtime.evaluate', {
          expression: inAppCall('loop-probe', 'cpuUs'),
          returnByValue: true,
          silent: true,
        }) as Promise<{ result?: { value?: unknown } }>;
        const timeout = new Promise<undefined>((resolve) => {
          timer = setTimeout(() => resolve(undefined), CPU_MARK_TIMEOUT_MS);
        });
        try {
          const r = await Promise.race([asking, timeout]);
          if (typeof r?.result?.value === 'number') out[p.capture.info.pid] = r.result.value;
        } catch {
          // gone: it is left out of this window's CPU
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    return out;
  }

  /** Right after the main process's profiler started; `first`: the window's first sub-window. */
  async startWindow(intervalUs: number, first: boolean): Promise<void> {
    await Promise.all([...this.connecting]);
    this.intervalUs = intervalUs;
    this.everOpened = true;
    if (first) this.captures = [];
    await Promise.all(
      this.live().map(async (p) => {
        if (first) p.capture = { ...p.capture, segments: [], joinedLate: false, exitedEarly: false, lost: undefined };
        if (!this.captures.includes(p.capture)) this.captures.push(p.capture);
        try {
          await this.start(p, intervalUs, first);
        } catch (err) {
          p.capture.lost = (err as Error).message;
        }
      }),
    );
  }

  async nextSegment(): Promise<void> {
    await Promise.all([...this.connecting]);
    const intervalUs = this.intervalUs;
    if (intervalUs === undefined) return;
    await Promise.all(
      [...this.procs.values()]
        .filter((p) => p.profiling)
        .map(async (p) => {
          await this.stop(p);
          try {
            await this.start(p, intervalUs, false);
          } catch (err) {
            if (!p.session?.isClosed) p.capture.lost = (err as Error).message;
          }
        }),
    );
  }

  async pauseWindow(): Promise<void> {
    await Promise.all([...this.connecting]);
    this.intervalUs = undefined;
    await Promise.all(
      [...this.procs.values()].map(async (p) => {
        await this.stop(p);
        if (!p.consoleSwapped) return;
        p.consoleSwapped = false;
        if (p.session && !p.session.isClosed) await p.session.restoreConsole().catch(() => undefined);
      }),
    );
  }

  /** Stops every child's profiler; returns what each gave, in the order they joined. */
  async finish(): Promise<ProcessCapture<C>[]> {
    await this.pauseWindow();
    // Its connection is gone while the app still runs: it exited in the window.
    for (const p of this.procs.values())
      if (this.captures.includes(p.capture) && (!p.session || p.session.isClosed)) p.capture.exitedEarly = true;
    await Promise.all(this.live().map((p) => p.capture.companion?.dispose()));
    return this.captures;
  }

  /** The main process died: whatever the children gave up to now (they die with it). */
  async salvage(): Promise<ProcessCapture<C>[]> {
    this.intervalUs = undefined;
    await Promise.all(
      [...this.procs.values()].map(async (p) => {
        if (!p.profiling || !p.session) return;
        p.profiling = false;
        await p.capture.companion?.stop(0);
        const salvaged = await p.session.salvagedProfile();
        if (salvaged) p.capture.segments.push(salvaged);
      }),
    );
    return this.captures;
  }

  /**
   * Closes every child's inspector for a measured sub-window, as the main process's is
   * (closed-inspector.ts): an open inspector makes each console call cost ~3.7× (Node 20). A
   * child that handles SIGUSR1 itself keeps its inspector (it could not be reopened).
   */
  async closeInspectors(): Promise<void> {
    await Promise.all([...this.connecting]);
    await Promise.all(
      this.live().map(async (p) => {
        try {
          p.closedByUs = (await p.session!.closeAppInspector()) === 'closed';
        } catch {
          p.closedByUs = false; // it keeps its inspector (and its session) for this window
        }
      }),
    );
  }

  /**
   * Reopens what closeInspectors closed: SIGUSR1 (process._debugProcess), after which Node opens
   * the inspector again on the host and port it had, where /json/list gives the new session's URL.
   */
  async reopenInspectors(): Promise<void> {
    await Promise.all(
      [...this.procs.values()]
        .filter((p) => p.closedByUs)
        .map(async (p) => {
          p.closedByUs = false;
          try {
            p.session = await InspectorSession.connect(await reopened(p.capture.info), { quiet: true });
          } catch (err) {
            p.session = undefined;
            if (!this.captures.includes(p.capture)) return;
            // Gone while its inspector was closed: it exited between two profiled sub-windows.
            if ((err as NodeJS.ErrnoException).code === 'ESRCH') p.capture.exitedEarly = true;
            else p.capture.lost ??= (err as Error).message;
          }
        }),
    );
  }

  /** Closes every connection; children that report later are ignored. */
  async dispose(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.procs.values()].map((p) => p.capture.companion?.stop(0)));
    await Promise.all([...this.procs.values()].map((p) => p.session?.close()));
  }
}

/** SIGUSR1 to the child until its inspector answers on its old port again; the new WebSocket URL. */
async function reopened(info: ProcessInfo): Promise<string> {
  const { hostname, port } = new URL(info.url);
  const end = Date.now() + REOPEN_TIMEOUT_MS;
  let signalled = 0;
  for (;;) {
    if (Date.now() - signalled >= 1000) {
      // Again each second: a signal that came while it was still closing is not acted on.
      (process as unknown as { _debugProcess(pid: number): void })._debugProcess(info.pid); // throws once it is gone
      signalled = Date.now();
    }
    try {
      const list = (await (await fetch(`http://${hostname}:${port}/json/list`)).json()) as Array<{
        webSocketDebuggerUrl?: string;
      }>;
      const url = list[0]?.webSocketDebuggerUrl;
      if (url) return url;
    } catch {
      // not listening yet
    }
    if (Date.now() > end)
      throw new Error(`child process ${info.pid} did not reopen its inspector within ${REOPEN_TIMEOUT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
