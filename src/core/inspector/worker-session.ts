// One worker thread's CDP session, carried over the main thread's connection (NodeWorker messages):
// its commands and replies, its profiler, and the hold at its exit that lets its profile be taken.
import type { CpuProfile } from '../profile/index.ts';
import type { CdpChannel } from './cdp-channel.ts';
import { inAppCall } from '../in-app/index.ts';

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
  /** It started at the app's boot, before the app first listened (boot-threads.ts). */
  startedAtBoot?: boolean;
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
const EXIT_HOLD_MS = 1000;

interface Pending {
  resolve(result: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export class WorkerSession {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  profiling = false;
  detached = false;
  /**
   * It started while the app's inspector was closed (a measured sub-window): V8's profiler started
   * in it later sees none of its JavaScript (every sample "(program)", measured on Node 20 for an
   * app started with --inspect-brk), so it is not profiled.
   */
  bornUnwatched = false;
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
        this.send('Runtime.evaluate', { expression: inAppCall('exit-hold', 'release') }).catch(() => undefined);
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
    const r = (await this.send('Runtime.evaluate', {
      expression: inAppCall('exit-hold', 'install', EXIT_BINDING, EXIT_HOLD_MS),
      returnByValue: true,
    })) as {
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
      expression: inAppCall('exit-hold', 'watch', false, true),
    }).catch(() => undefined);
  }

  /**
   * In a profiled sub-window: the Runtime domain on (its context's end is the fallback moment to
   * salvage the profile) and the exit hold armed. Outside: both off, the worker runs alone.
   */
  async watchExit(on: boolean): Promise<void> {
    await this.send(on ? 'Runtime.enable' : 'Runtime.disable');
    await this.send('Runtime.evaluate', {
      expression: inAppCall('exit-hold', 'watch', on),
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
      // As on the main thread (session.ts): deoptimise code optimised on-stack, which the
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
