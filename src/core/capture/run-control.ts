// The state of one run and its waiting and stopping: every wait gives way when the run must stop
// (the app exited, the user cancelled, the load died), and whatever happens everything is stopped.
import { type AttachedApp, describeExit, LaunchError, type RunApp } from '../app/index.ts';
import type { InspectorSession } from '../inspector/index.ts';
import { RunError } from '../common/index.ts';
import { type ExternalLoad, LoadError, type LoadRun } from '../load/index.ts';
import { whyFailed, windowClock, type WindowClock } from './waits.ts';
import { RUN_DEFAULTS, type Settings } from './settings.ts';
import { PHASE_NAMES, type RunOptions, type RunPhase, type RunProgress } from './run-types.ts';

export abstract class RunControl {
  protected app: RunApp | undefined;
  /** Set when the run attached to a running app: it owns the inspector session and is never stopped. */
  protected attached: AttachedApp | undefined;
  protected inspector: InspectorSession | undefined;
  protected load: LoadRun | ExternalLoad | undefined;
  protected phase: RunPhase = 'starting';
  protected loadFinished = false;
  /** Set once we stop the app ourselves: its exit is then no failure. */
  private stoppedByUs = false;
  protected readonly disposers: Array<() => void> = [];
  protected releaseLock: (() => void) | undefined;
  protected readonly output: string[] = [];
  /** Seconds of the measured (or profiled) window before the current sub-window, for progress. */
  protected windowSecond = 0;
  protected lastTickRps = 0;
  /** Rejects when the run can't go on: the app exited, the user cancelled, the load died. */
  protected stopReason: Promise<never> | undefined;

  constructor(
    protected readonly opts: RunOptions,
    protected readonly s: Settings,
  ) {}

  // ---- waiting and stopping ------------------------------------------------------------------

  protected windowClock(seconds: number): WindowClock {
    return windowClock(
      this.load,
      seconds,
      (sec) => this.wait(sec),
      (p) => this.race(p),
    );
  }

  protected watch(app: RunApp): Promise<never> {
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
  protected race<T>(work: Promise<T>): Promise<T> {
    const stop = this.stopReason;
    if (!stop) return work;
    return Promise.race([work.catch((err: unknown) => whyFailed(err, this.inspector, stop)), stop]);
  }

  /**
   * Waits for `starting` as race() does, and has the stop dispose of what it gives even when the
   * run is cancelled while it is still starting.
   */
  protected owned<T>(starting: Promise<T>, dispose: (started: T) => unknown): Promise<T> {
    this.disposers.push(
      () =>
        void starting.then(
          (started) => dispose(started),
          () => undefined,
        ),
    );
    return this.race(starting);
  }

  protected wait(seconds: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const done = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, seconds * 1000);
    });
    return this.race(done).finally(() => clearTimeout(timer));
  }

  protected throwIfCancelled(): void {
    if (this.opts.signal?.aborted) throw new RunError('cancelled', 'Cancelled before the app started.');
  }

  protected async stopAll(): Promise<void> {
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

  protected explain(err: unknown): Error {
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

  protected progress(phase: RunPhase, message: string, extra: Partial<RunProgress> = {}): void {
    this.phase = phase;
    this.opts.onProgress?.({ phase, message, ...extra });
  }
}
