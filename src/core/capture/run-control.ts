// The state of one run and its waiting and stopping: every wait gives way when the run must stop
// (the app exited, the user cancelled, the load died), and whatever happens everything is stopped.
// The run's steps (run-start.ts, start-command.ts, sub-windows.ts, run.ts) are functions and
// objects that hold one of these; it owns what they start.
import { type AttachedApp, describeExit, LaunchError, type RunApp } from '../app/index.ts';
import type { InspectorSession } from '../inspector/index.ts';
import { RunError } from '../common/index.ts';
import { type ExternalLoad, LoadError, type LoadRun } from '../load/index.ts';
import { windowClock, type WindowClock } from './window-clock.ts';
import { RUN_DEFAULTS, type Settings } from './run-settings.ts';
import { PHASE_NAMES, type RunOptions, type RunPhase, type RunProgress } from './run-types.ts';

export class RunControl {
  app: RunApp | undefined;
  /** Set when the run attached to a running app: it owns the inspector session and is never stopped. */
  attached: AttachedApp | undefined;
  /** The session of the moment: a closed inspector is reopened with a new one (closed-inspector.ts). */
  inspector: InspectorSession | undefined;
  load: LoadRun | ExternalLoad | undefined;
  phase: RunPhase = 'starting';
  /** Set once the load's end is the run's own doing: its exit is then no failure. */
  loadFinished = false;
  /** Set once we stop the app ourselves: its exit is then no failure. */
  private stoppedByUs = false;
  /** Run by stopAll(), whatever happens: what the run's steps started. */
  /** Run at the stop; a promise returned is awaited (a while at most) before the app is let go. */
  readonly disposers: Array<() => void | Promise<void>> = [];
  releaseLock: (() => void) | undefined;
  /** Rejects when the run can't go on: the app exited, the user cancelled, the load died. */
  stopReason: Promise<never> | undefined;

  constructor(
    readonly opts: RunOptions,
    readonly s: Settings,
  ) {}

  /** From now on the run stops when the app exits or the user cancels (and on what stopReason held). */
  watchApp(app: RunApp): void {
    this.app = app;
    this.stopOn(this.watch(app));
  }

  /** Adds a reason to stop; every wait from now on gives way to it. */
  stopOn(reason: Promise<never>): void {
    this.stopReason = this.stopReason ? Promise.race([this.stopReason, reason]) : reason;
    this.stopReason.catch(() => undefined); // observed by every wait
  }

  windowClock(seconds: number): WindowClock {
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
  race<T>(work: Promise<T>): Promise<T> {
    const stop = this.stopReason;
    if (!stop) return work;
    return Promise.race([work.catch((err: unknown) => whyFailed(err, this.inspector, stop)), stop]);
  }

  /**
   * Waits for `starting` as race() does, and has the stop dispose of what it gives even when the
   * run is cancelled while it is still starting.
   */
  owned<T>(starting: Promise<T>, dispose: (started: T) => unknown): Promise<T> {
    this.disposers.push(
      () =>
        void starting.then(
          (started) => dispose(started),
          () => undefined,
        ),
    );
    return this.race(starting);
  }

  wait(seconds: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const done = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, seconds * 1000);
    });
    return this.race(done).finally(() => clearTimeout(timer));
  }

  throwIfCancelled(): void {
    if (this.opts.signal?.aborted) throw new RunError('cancelled', 'Cancelled before the app started.');
  }

  async stopAll(): Promise<void> {
    this.stoppedByUs = true;
    const disposing: Array<Promise<void>> = [];
    for (const dispose of this.disposers.splice(0)) {
      const done = dispose();
      if (done) disposing.push(done.catch(() => undefined));
    }
    this.load?.kill();
    // What the disposers take out of the app (the capture function of an attached app) is out
    // before its session closes; a disposer that hangs holds the stop up for a moment only.
    if (disposing.length > 0) await settledWithin(Promise.all(disposing), DISPOSE_TIMEOUT_MS);
    // An attached app undoes what the run installed before its session closes (in stop()).
    const closing = this.attached ? undefined : this.inspector?.close();
    await this.app?.stop((this.opts.stopGraceS ?? RUN_DEFAULTS.stopGraceS) * 1000);
    // Only once the app is gone may another run of it start.
    this.releaseLock?.();
    this.releaseLock = undefined;
    await closing;
    await this.load?.exited;
  }

  explain(err: unknown): Error {
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

  progress(phase: RunPhase, message: string, extra: Partial<RunProgress> = {}): void {
    this.phase = phase;
    this.opts.onProgress?.({ phase, message, ...extra });
  }
}

/**
 * A command to the app that failed because the app just went away (its socket closed under
 * it) fails with the run's stop reason, which says so, rather than a WebSocket error. That
 * reason can come a moment after the socket error.
 */
async function whyFailed(err: unknown, inspector: InspectorSession | undefined, stop: Promise<never>): Promise<never> {
  if (err instanceof RunError || !inspector) throw err;
  const within = <T>(ms: number, value: T): { promise: Promise<T>; clear(): void } => {
    let timer: NodeJS.Timeout | undefined;
    return {
      promise: new Promise<T>((resolve) => {
        timer = setTimeout(resolve, ms, value);
      }),
      clear: () => clearTimeout(timer),
    };
  };
  const soon = within(500, false);
  const gone = await Promise.race([inspector.closed.then(() => true), soon.promise]);
  soon.clear();
  if (gone) {
    const grace = within(3000, undefined);
    await Promise.race([stop, grace.promise]).finally(() => grace.clear());
  }
  throw err;
}

/** How long the stop waits for the disposers' work in the app. */
const DISPOSE_TIMEOUT_MS = 2000;

async function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([work, late]);
  clearTimeout(timer);
}
