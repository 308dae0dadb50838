// The moments stack captures are sent at, from a thread of their own. Node's timers cannot give
// them: libuv keeps its clock in whole milliseconds and runs every timer due in the current
// millisecond whenever its loop wakes, so a capture timer fired as soon as the driver woke for a
// capture's answer, which arrives when the app leaves a native call: on a loaded machine 5% of the
// sends fell in the 0.2 ms after such an answer, against 2% by chance, and they fall at the start
// of the app's next call whatever its length, pulling a 2:1 split towards even
// (docs/attribution.md, "Late captures"; bench/send-moments.ts). This thread sleeps on a futex with
// a sub-millisecond timeout (Atomics.wait), which no I/O of the driver's can cut short, and posts
// one message per moment; the driver sends the capture when the message arrives. Where no thread
// can run, Node's timers are the fallback: coupled as above, but captures go on.
import { Worker } from 'node:worker_threads';

/** The shared word's states. */
const RUN = 0;
const PAUSE = 1;
const QUIT = 2;

/**
 * A paused clock that is neither resumed nor disposed for this long ends its thread (a child
 * process that exited leaves its sampler paused); `resume` starts a new one.
 */
const IDLE_END_MS = 30_000;

// Plain JavaScript evaluated as the worker's script: no file to find once bundled.
const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const state = new Int32Array(workerData.shared);
const { meanMs, idleEndMs } = workerData;
for (;;) {
  const now = Atomics.load(state, 0);
  if (now === ${QUIT}) break;
  if (now === ${PAUSE}) {
    // Ends itself only if nobody asked it to run meanwhile (the driver then starts another).
    if (Atomics.wait(state, 0, ${PAUSE}, idleEndMs) === 'timed-out' && Atomics.compareExchange(state, 0, ${PAUSE}, ${QUIT}) === ${PAUSE}) break;
    continue;
  }
  // Exponential gaps: moments at random, never in step with a periodic task of the app.
  const gapMs = -Math.log(1 - Math.random()) * meanMs;
  if (Atomics.wait(state, 0, ${RUN}, gapMs) === 'timed-out') parentPort.postMessage(0);
}
`;

export interface PoissonClockOptions {
  /** How long a paused thread waits before it ends itself (IDLE_END_MS). */
  idleEndMs?: number;
  /** false: Node's timers only (what the clock falls back to when its thread cannot run). */
  thread?: boolean;
}

export class PoissonClock {
  /** The running thread and its shared state word (a new pair for each thread). */
  private thread: { worker: Worker; state: Int32Array } | undefined;
  /** The thread could not start or died: Node's timers give the moments, coupled as above but working. */
  private timersOnly: boolean;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private readonly idleEndMs: number;

  /** `onTick` runs on the caller's thread at each moment, `rateHz` of them a second on average, while running. */
  constructor(
    private readonly rateHz: number,
    private readonly onTick: () => void,
    opts: PoissonClockOptions = {},
  ) {
    this.idleEndMs = opts.idleEndMs ?? IDLE_END_MS;
    this.timersOnly = opts.thread === false;
  }

  /** Starts (or starts again) the moments. */
  run(): void {
    this.running = true;
    if (this.timersOnly) return this.nextTimer();
    const t = this.thread;
    // A thread that ended itself while paused has left QUIT in its word: start another.
    if (t && Atomics.compareExchange(t.state, 0, PAUSE, RUN) !== QUIT) {
      Atomics.notify(t.state, 0);
      return;
    }
    try {
      this.thread = this.startThread();
    } catch {
      this.fallBack();
    }
  }

  /** No moment until `run` again; moments already posted are ignored. */
  pause(): void {
    this.running = false;
    clearTimeout(this.timer);
    const t = this.thread;
    if (t && Atomics.compareExchange(t.state, 0, RUN, PAUSE) === RUN) Atomics.notify(t.state, 0);
  }

  /** Ends the thread. */
  end(): void {
    this.running = false;
    clearTimeout(this.timer);
    const t = this.thread;
    this.thread = undefined;
    if (!t) return;
    Atomics.store(t.state, 0, QUIT);
    Atomics.notify(t.state, 0);
  }

  private startThread(): { worker: Worker; state: Int32Array } {
    const state = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(SOURCE, {
      eval: true,
      workerData: { shared: state.buffer, meanMs: 1000 / this.rateHz, idleEndMs: this.idleEndMs },
    });
    worker.on('message', () => {
      if (this.running && Atomics.load(state, 0) === RUN) this.onTick();
    });
    worker.on('error', () => {
      if (this.thread?.worker === worker) this.fallBack();
    });
    // After the listeners (adding one refs the thread again): it never keeps the driver alive.
    worker.unref();
    return { worker, state };
  }

  private fallBack(): void {
    this.thread = undefined;
    this.timersOnly = true;
    if (this.running) this.nextTimer();
  }

  private nextTimer(): void {
    clearTimeout(this.timer);
    const gapMs = -Math.log(1 - Math.random()) * (1000 / this.rateHz);
    this.timer = setTimeout(() => {
      if (!this.running) return;
      this.onTick();
      this.nextTimer();
    }, gapMs);
  }
}
