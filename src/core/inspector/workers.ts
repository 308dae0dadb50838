// Worker threads profiled together with the main thread, over the main thread's inspector
// connection (Node's NodeWorker domain): each worker gets its own CPU profiler, started, restarted
// and stopped in step with the main thread's profiler segments (run.ts). Workers that start during
// the profiled window join when they start (they wait for us before running their first line);
// a worker that exits before the end keeps its segments and the profile up to its exit.
// Outside the profiled sub-windows a worker runs as it would alone: no profiler, no Runtime
// domain (which would serialise its console calls to us), no hold at its exit.
import { isNodeInternalThread } from '../common/index.ts';
import { inAppCall } from '../in-app/index.ts';
import type { CdpChannel } from './cdp-channel.ts';
import { type WorkerCapture, type WorkerInfo, WorkerSession } from './worker-session.ts';

/**
 * The worker threads of one app, profiled in step with its main thread. Owned by the inspector
 * session (it must watch from the app's first line, see `watch`); run.ts drives the window.
 */
export class WorkerProfilers {
  private readonly sessions = new Map<string, WorkerSession>();
  private captures: WorkerCapture[] = [];
  private readonly unsubscribe: Array<() => void> = [];
  private intervalUs: number | undefined;
  /** Attach work in flight (a worker being set up), awaited before a segment ends. */
  private readonly attaching = new Set<Promise<void>>();

  /** Captures of an earlier session's profilers, by threadId, continued by the same worker here. */
  private readonly carried = new Map<number, WorkerCapture>();

  private constructor(private readonly channel: CdpChannel) {}

  /**
   * Attaches to every worker the app has and starts, each before it runs its first line (which
   * it waits for us to allow). Call before the app's own first line: with `--inspect-brk`, V8's
   * profiler started later in a worker that was already running sees none of its JavaScript
   * (every sample is "(program)", measured on Node 20), while one attached at its start works.
   */
  static async watch(
    channel: CdpChannel,
    o: {
      /**
       * Watching again through a new session, the app's inspector having been closed meanwhile
       * (closed-inspector.ts): what the earlier sessions took. A worker found here continues its
       * capture; one not in it started while the inspector was closed.
       */
      carried?: readonly WorkerCapture[];
      /** Whether the app is still booting (it has not listened yet): a worker that starts now is a boot one. */
      booting?: () => boolean;
    } = {},
  ): Promise<WorkerProfilers> {
    const w = new WorkerProfilers(channel);
    w.booting = o.booting;
    if (o.carried) {
      for (const c of o.carried) w.carried.set(c.info.threadId, c);
      w.everOpened = true;
      w.again = true;
    }
    w.unsubscribe.push(
      channel.on(
        'NodeWorker.attachedToWorker',
        (p: {
          sessionId: string;
          workerInfo: { workerId: string; title: string; url: string };
          waitingForDebugger: boolean;
        }) => {
          const work = w.attach(p.sessionId, p.workerInfo, p.waitingForDebugger);
          w.attaching.add(work);
          void work.finally(() => w.attaching.delete(work));
        },
      ),
      channel.on('NodeWorker.receivedMessageFromWorker', (p: { sessionId: string; message: string }) => {
        w.sessions.get(p.sessionId)?.receive(p.message);
      }),
      channel.on('NodeWorker.detachedFromWorker', (p: { sessionId: string }) => {
        const s = w.sessions.get(p.sessionId);
        s?.detach();
        // Gone between two profiled sub-windows: its profile ends at the last one.
        if (s && w.everOpened && !w.finished && w.captures.includes(s.capture)) s.capture.exitedEarly = true;
        // Outside the window nothing of it is kept: an app that starts a worker per job must not grow this map.
        if (s && w.intervalUs === undefined && !s.salvage) w.sessions.delete(p.sessionId);
      }),
    );
    await channel.send('NodeWorker.enable', { waitForDebuggerOnStart: true });
    return w;
  }

  private async attach(
    sessionId: string,
    info: { workerId: string; title: string; url: string },
    waiting: boolean,
  ): Promise<void> {
    if (isNodeInternalThread(info.url)) {
      // Node's own (its loader-hooks thread): let go of it untouched, nothing of it is the app's.
      if (waiting)
        await this.channel
          .send('NodeWorker.sendMessageToWorker', {
            sessionId,
            message: JSON.stringify({ id: 1, method: 'Runtime.runIfWaitingForDebugger' }),
          })
          .catch(() => undefined);
      await this.channel.send('NodeWorker.detach', { sessionId }).catch(() => undefined);
      return;
    }
    const windowOpen = this.intervalUs !== undefined;
    const about = workerInfo(info);
    const earlier = this.carried.get(about.threadId);
    const session = new WorkerSession(
      this.channel,
      sessionId,
      earlier ?? {
        info: about,
        segments: [],
        joinedLate: windowOpen || this.everOpened,
        exitedEarly: false,
        ...(this.booting?.() ? { startedAtBoot: true } : {}),
      },
    );
    this.sessions.set(sessionId, session);
    if (this.again && !earlier && !waiting) {
      session.bornUnwatched = true;
      session.capture.lost =
        'it started while the inspector was closed (a measured sub-window), and a worker is profiled only when watched from its start';
      this.captures.push(session.capture);
      return;
    }
    try {
      await session.send('Runtime.enable'); // the binding of the exit hold is added with it
      await session.installExitHold();
      await session.watchExit(windowOpen);
      if (windowOpen) {
        this.captures.push(session.capture);
        await session.startProfiler(this.intervalUs!, !waiting);
      } else if (this.everOpened && !earlier) {
        // Born between two profiled sub-windows: it joins at the next one. (One carried from an
        // earlier session was there before: it continues as it was.)
        session.capture.joinedLate = true;
      }
    } catch (err) {
      session.capture.lost = (err as Error).message;
    } finally {
      if (waiting) await session.send('Runtime.runIfWaitingForDebugger').catch(() => undefined);
    }
  }

  /**
   * Starts every worker's profiler (right after the main thread's); workers born later join.
   * `first`: the profiled window's first sub-window (captures start afresh, code is flushed, see
   * InspectorSession.startProfiler); later sub-windows add segments to the same captures.
   */
  async startWindow(intervalUs: number, first = true): Promise<void> {
    await Promise.all([...this.attaching]);
    this.intervalUs = intervalUs;
    if (first) {
      this.captures = [];
      await this.noteBootThreads();
    }
    this.everOpened = true;
    await Promise.all(
      [...this.sessions.values()]
        .filter((s) => !s.detached && !s.bornUnwatched)
        .map(async (s) => {
          if (first) s.capture = { ...s.capture, segments: [], joinedLate: false, exitedEarly: false, lost: undefined };
          if (!this.captures.includes(s.capture)) this.captures.push(s.capture);
          try {
            await s.watchExit(true);
            await s.startProfiler(intervalUs, first);
          } catch (err) {
            s.capture.lost = (err as Error).message;
          }
        }),
    );
  }

  /** Ends a profiled sub-window: every worker's profiler stops (its segment kept) and it runs alone. */
  async pauseWindow(): Promise<void> {
    await Promise.all([...this.attaching]);
    this.intervalUs = undefined;
    await Promise.all(
      [...this.sessions.values()]
        .filter((s) => !s.detached)
        .map(async (s) => {
          try {
            if (s.profiling) s.capture.segments.push(await s.stopProfiler());
            await s.watchExit(false);
          } catch (err) {
            await keepSalvage(s, err as Error);
          }
        }),
    );
  }

  /**
   * Marks the workers the app made before it first listened (boot-threads.ts), as the app noted
   * them; the ones attached while it booted are marked already.
   */
  private async noteBootThreads(): Promise<void> {
    const r = (await this.channel
      .send('Runtime.evaluate', { expression: inAppCall('boot-threads', 'read'), returnByValue: true })
      .catch(() => undefined)) as { result?: { value?: unknown } } | undefined;
    const boot = r?.result?.value;
    if (typeof boot !== 'number') return;
    for (const s of this.sessions.values()) if (s.capture.info.threadId <= boot) s.capture.startedAtBoot = true;
  }

  private booting: (() => boolean) | undefined;
  private everOpened = false;
  private finished = false;
  /** Watching through a session after the first (the inspector was closed and reopened). */
  private again = false;
  private disposed = false;

  /** What this watch took for the profiled window, in the order workers joined (continued captures included). */
  get taken(): readonly WorkerCapture[] {
    return this.captures;
  }

  /** Every worker watched from its start, by this watch or an earlier one: what a later watch carries on. */
  get watchedFromStart(): WorkerCapture[] {
    const own = [...this.sessions.values()].filter((s) => !s.bornUnwatched).map((s) => s.capture);
    const ids = new Set(own.map((c) => c.info.threadId));
    return [...[...this.carried.values()].filter((c) => !ids.has(c.info.threadId)), ...own];
  }

  /** Ends one segment in every worker and starts the next (the main thread does the same). */
  async nextSegment(): Promise<void> {
    await Promise.all([...this.attaching]);
    const intervalUs = this.intervalUs;
    if (intervalUs === undefined) return;
    await Promise.all(
      [...this.sessions.values()]
        .filter((s) => s.profiling && !s.detached)
        .map(async (s) => {
          try {
            s.capture.segments.push(await s.stopProfiler());
            await s.startProfiler(intervalUs, false);
          } catch (err) {
            await keepSalvage(s, err as Error);
          }
        }),
    );
  }

  /** Stops every worker's profiler; returns what each worker gave, in the order they joined. */
  async stop(): Promise<WorkerCapture[]> {
    this.intervalUs = undefined;
    this.finished = true;
    await Promise.all([...this.attaching]);
    await Promise.all(
      [...this.sessions.values()].map(async (s) => {
        if (s.profiling && !s.detached) {
          try {
            s.capture.segments.push(await s.stopProfiler());
            return;
          } catch (err) {
            await keepSalvage(s, err as Error);
            return;
          }
        }
        await keepSalvage(s, undefined);
      }),
    );
    return this.captures;
  }

  /** The app died: keep the segments and whatever the exiting workers gave. */
  async salvage(): Promise<WorkerCapture[]> {
    this.intervalUs = undefined;
    this.finished = true;
    for (const s of this.sessions.values()) await keepSalvage(s, undefined);
    return this.captures;
  }

  /** Stops watching (the session is closing). Workers waiting for us are let go first. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const s of this.sessions.values()) s.releaseExitHold();
    void this.channel.send('NodeWorker.disable').catch(() => undefined);
    for (const off of this.unsubscribe.splice(0)) off();
    for (const s of this.sessions.values()) s.detach();
  }
}

async function keepSalvage(s: WorkerSession, err: Error | undefined): Promise<void> {
  const salvaged = s.salvage ? await s.salvage : undefined;
  s.salvage = undefined;
  if (salvaged) s.capture.segments.push(salvaged);
  else if (err) s.capture.lost = err.message;
}

/** Node gives the worker's threadId in its title ("[worker 3] name"); workerId is a session counter. */
function workerInfo(info: { workerId: string; title: string; url: string }): WorkerInfo {
  const m = /^\[worker (\d+)\]/.exec(info.title);
  return { threadId: m ? Number(m[1]) : Number(info.workerId), title: info.title, url: info.url };
}
