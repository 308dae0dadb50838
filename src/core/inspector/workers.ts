// Worker threads profiled together with the main thread, over the main thread's inspector
// connection (Node's NodeWorker domain): each worker gets its own CPU profiler, started, restarted
// and stopped in step with the main thread's profiler segments (run.ts). Workers that start during
// the profiled window join when they start (they wait for us before running their first line);
// a worker that exits before the end keeps its segments and the profile up to its exit.
// Outside the profiled sub-windows a worker runs as it would alone: no profiler, no Runtime
// domain (which would serialise its console calls to us), no hold at its exit.
import type { CpuProfile } from '../analysis/index.ts';

/** A raw CDP connection: commands and events by name (see InspectorSession.channel). */
export interface CdpChannel {
  send(method: string, params?: object): Promise<unknown>;
  /** Subscribes to an event; returns the unsubscribe function. */
  on(event: string, handler: (params: never) => void): () => void;
}

export interface WorkerInfo {
  /** Node's threadId (worker_threads.threadId), as a number. */
  threadId: number;
  /** e.g. "[worker 1] hasher" (the `name` option of new Worker()). */
  title: string;
  /** The worker's script, file://… */
  url: string;
}

export interface WorkerCapture {
  info: WorkerInfo;
  /** Profiler segments, in order; merge them with mergeProfiles. */
  segments: CpuProfile[];
  /** It started after the profiled window began. */
  joinedLate: boolean;
  /** It exited before the window ended: its profile ends there. */
  exitedEarly: boolean;
  /** Why some of its time could not be kept, if so. */
  lost?: string;
}

export class WorkerProfileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkerProfileError';
  }
}

/** One message to a worker takes at most this long (a worker stuck in native code may not answer). */
const WORKER_REPLY_TIMEOUT_MS = 10_000;

/**
 * A worker whose script ends tears down its inspector at once: a Profiler.stop sent when its
 * context goes away is usually not answered (measured on Node 20). So each worker gets an 'exit'
 * handler that tells us through a binding and holds the thread (a JS loop, in which the
 * inspector still answers) until we have its profile, at most EXIT_HOLD_MS. worker.terminate()
 * runs no handlers: such a worker keeps only its finished segments.
 */
const EXIT_BINDING = '__hotlineWorkerExit';
const EXIT_HOLD = `globalThis[Symbol.for('hotline.exitHold')]`;
const EXIT_HOLD_MS = 1000;
const INSTALL_EXIT_HOLD = `(() => {
  if (${EXIT_HOLD}) return;
  const state = ${EXIT_HOLD} = { watching: false, released: false };
  const report = globalThis[${JSON.stringify(EXIT_BINDING)}];
  process.on('exit', () => {
    if (!state.watching) return;
    try { report(''); } catch { return; }
    const end = Date.now() + ${EXIT_HOLD_MS};
    while (!state.released && Date.now() < end) { /* the inspector's messages are served here */ }
  });
})()`;

interface Pending {
  resolve(result: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

class WorkerSession {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  profiling = false;
  detached = false;
  /** The profile taken as the worker's context went away (its exit). */
  salvage: Promise<CpuProfile | undefined> | undefined;

  constructor(
    private readonly channel: CdpChannel,
    readonly sessionId: string,
    public capture: WorkerCapture,
  ) {}

  send(method: string, params: object = {}): Promise<unknown> {
    if (this.detached) return Promise.reject(new WorkerProfileError(`worker ${this.capture.info.threadId} has exited`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new WorkerProfileError(
            `worker ${this.capture.info.threadId} did not answer ${method} within ${WORKER_REPLY_TIMEOUT_MS / 1000} s`,
          ),
        );
      }, WORKER_REPLY_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      this.channel
        .send('NodeWorker.sendMessageToWorker', {
          sessionId: this.sessionId,
          message: JSON.stringify({ id, method, params }),
        })
        .catch((err: Error) => {
          clearTimeout(timer);
          this.pending.delete(id);
          reject(new WorkerProfileError(`cannot reach worker ${this.capture.info.threadId}: ${err.message}`));
        });
    });
  }

  /** A raw message from the worker: a reply to one of ours, or an event. */
  receive(text: string): void {
    let m: { id?: number; result?: unknown; error?: { message?: string }; method?: string };
    try {
      m = JSON.parse(text) as typeof m;
    } catch {
      return; // not CDP: nothing of ours
    }
    if (typeof m.id === 'number') {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      clearTimeout(p.timer);
      if (m.error)
        p.reject(new WorkerProfileError(`worker ${this.capture.info.threadId}: ${m.error.message ?? 'error'}`));
      else p.resolve(m.result);
      return;
    }
    // The worker is exiting and waits for us in its 'exit' handler: take its profile, let it go.
    const params = (m as { params?: { name?: string } }).params;
    if (m.method === 'Runtime.bindingCalled' && params?.name === EXIT_BINDING) {
      const profiling = this.profiling;
      if (profiling) {
        this.capture.exitedEarly = true;
        this.salvage = this.stopProfiler().catch(() => undefined);
      }
      void (this.salvage ?? Promise.resolve()).finally(() => {
        this.send('Runtime.evaluate', { expression: `${EXIT_HOLD}.released = true` }).catch(() => undefined);
      });
      return;
    }
    // Exited without the handler (process.exit in an 'exit' listener of its own, or no binding yet).
    if (m.method === 'Runtime.executionContextDestroyed' && this.profiling) {
      this.salvage = this.stopProfiler().catch(() => undefined);
      this.capture.exitedEarly = true;
    }
  }

  /** Before the worker's first line (or now, if it runs): the exit handler above. */
  async installExitHold(): Promise<void> {
    await this.send('Runtime.addBinding', { name: EXIT_BINDING });
    const r = (await this.send('Runtime.evaluate', { expression: INSTALL_EXIT_HOLD, returnByValue: true })) as {
      exceptionDetails?: { text?: string };
    };
    if (r.exceptionDetails)
      throw new WorkerProfileError(
        `worker ${this.capture.info.threadId}: cannot watch its exit (${r.exceptionDetails.text ?? 'exception'})`,
      );
  }

  /** We stop watching: the worker exits without waiting for us. */
  releaseExitHold(): void {
    if (this.detached) return;
    void this.send('Runtime.evaluate', {
      expression: `(() => { const s = ${EXIT_HOLD}; if (s) { s.watching = false; s.released = true; } })()`,
    }).catch(() => undefined);
  }

  /**
   * In a profiled sub-window: the Runtime domain on (its context's end is the fallback moment to
   * salvage the profile) and the exit hold armed. Outside: both off, the worker runs alone.
   */
  async watchExit(on: boolean): Promise<void> {
    await this.send(on ? 'Runtime.enable' : 'Runtime.disable');
    await this.send('Runtime.evaluate', {
      expression: `(() => { const s = ${EXIT_HOLD}; if (s) s.watching = ${on}; })()`,
    });
  }

  detach(): void {
    this.detached = true;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new WorkerProfileError(`worker ${this.capture.info.threadId} exited`));
      this.pending.delete(id);
    }
  }

  async startProfiler(intervalUs: number, flush: boolean): Promise<void> {
    await this.send('Profiler.enable');
    if (flush) {
      // As on the main thread (inspector.ts): deoptimise code optimised on-stack, which the
      // profiler would otherwise not attribute.
      await this.send('Profiler.startPreciseCoverage', { callCount: false, detailed: false });
      await this.send('Profiler.stopPreciseCoverage');
    }
    await this.send('Profiler.setSamplingInterval', { interval: intervalUs });
    await this.send('Profiler.start');
    this.profiling = true;
  }

  async stopProfiler(): Promise<CpuProfile> {
    this.profiling = false;
    const r = (await this.send('Profiler.stop')) as { profile: CpuProfile };
    return r.profile;
  }
}

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

  private constructor(private readonly channel: CdpChannel) {}

  /**
   * Attaches to every worker the app has and starts, each before it runs its first line (which
   * it waits for us to allow). Call before the app's own first line: with `--inspect-brk`, V8's
   * profiler started later in a worker that was already running sees none of its JavaScript
   * (every sample is "(program)", measured on Node 20), while one attached at its start works.
   */
  static async watch(channel: CdpChannel): Promise<WorkerProfilers> {
    const w = new WorkerProfilers(channel);
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
    const windowOpen = this.intervalUs !== undefined;
    const session = new WorkerSession(this.channel, sessionId, {
      info: workerInfo(info),
      segments: [],
      joinedLate: windowOpen,
      exitedEarly: false,
    });
    this.sessions.set(sessionId, session);
    try {
      await session.send('Runtime.enable'); // the binding of the exit hold is added with it
      await session.installExitHold();
      await session.watchExit(windowOpen);
      if (windowOpen) {
        this.captures.push(session.capture);
        await session.startProfiler(this.intervalUs!, !waiting);
      } else if (this.everOpened) {
        // Born between two profiled sub-windows: it joins at the next one.
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
    if (first) this.captures = [];
    this.everOpened = true;
    await Promise.all(
      [...this.sessions.values()]
        .filter((s) => !s.detached)
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

  private everOpened = false;
  private finished = false;

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
