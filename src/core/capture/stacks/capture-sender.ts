// The handle of the capture sender's thread (send-thread.ts, bundled to dist/capture-sender.js).
// One thread for the whole driver process, started with its first session and ended with its
// last: each stack sampler (the app's, each child process's) has a session of it, opened on its
// process's inspector at each profiled sub-window's start and paused (closed) at its end; the
// thread sends captures at Poisson moments of its own and hands back every answer with the
// moment it was sent.
import { Worker } from 'node:worker_threads';
import { bundledScript } from '../../common/index.ts';
import type { SenderCommand, SenderEvent, SenderSetup } from './sender-protocol.ts';

/** How long a session may take to open (a TCP connect and an HTTP upgrade on this machine). */
const OPEN_TIMEOUT_MS = 5000;

type Waiter = (e: SenderEvent | Error | undefined) => void;

/** One sampler's session of the sender thread. */
export interface SenderSession {
  /** Opens a session at the inspector's `url` and starts sending (unless paused meanwhile); rejects when it cannot. */
  open(url: string): Promise<void>;
  /** Stops sending and closes the session once the answers in flight are in (at most `waitMs`). */
  pause(waitMs: number): Promise<void>;
  /** Ends the session (and the thread with the last one). */
  dispose(): Promise<void>;
}

export interface SessionHandlers {
  answer(sentUs: number, reply: unknown): void;
  /** The open session failed (the process exited, its inspector closed under it). */
  failed(message: string): void;
}

class SenderThread {
  private readonly wake = new Int32Array(new SharedArrayBuffer(4));
  private readonly worker: Worker;
  readonly handlers = new Map<number, SessionHandlers>();
  readonly waiters = new Map<number, Set<Waiter>>();
  gone: Error | undefined;

  constructor(script: string) {
    const setup: SenderSetup = { wake: this.wake.buffer as SharedArrayBuffer };
    // No execArgv: the thread needs neither tsx (it is a bundle) nor the driver's inspector flags.
    this.worker = new Worker(script, { workerData: setup, execArgv: [] });
    this.worker.on('message', (e: SenderEvent) => {
      const h = this.handlers.get(e.key);
      if (e.kind === 'answer') h?.answer(e.sentUs, e.reply);
      else if (e.kind === 'failed') h?.failed(e.message);
      for (const w of [...(this.waiters.get(e.key) ?? [])]) w(e);
    });
    const end = (err: Error): void => {
      this.gone ??= err;
      for (const set of this.waiters.values()) for (const w of [...set]) w(this.gone);
    };
    this.worker.on('error', end);
    this.worker.on('exit', () => end(new Error('the capture sender stopped')));
    // After the listeners, which would ref it again: the thread never keeps the driver alive.
    this.worker.unref();
  }

  post(c: SenderCommand): void {
    this.worker.postMessage(c);
    Atomics.add(this.wake, 0, 1);
    Atomics.notify(this.wake, 0);
  }

  async end(): Promise<void> {
    await this.worker.terminate();
  }
}

let thread: SenderThread | undefined;
let lastKey = 0;

/** A session of the sender thread for one sampler, or why there is none (its bundle is not built). */
export function senderSession(
  rateHz: number,
  params: object,
  handlers: SessionHandlers,
): SenderSession | { missing: string } {
  // A thread that died (its error ends every session it had) is replaced, not reused.
  if (!thread || thread.gone) {
    const found = bundledScript('capture-sender.js', __dirname);
    if (!('path' in found)) return found;
    thread = new SenderThread(found.path);
  }
  const t = thread;
  const key = ++lastKey;
  t.handlers.set(key, handlers);

  /** Posts `c` and waits for the first event of this session that `done` accepts (undefined after `timeoutMs`). */
  const command = (c: SenderCommand, done: (e: SenderEvent) => boolean, timeoutMs: number) =>
    new Promise<SenderEvent | undefined>((resolve, reject) => {
      if (t.gone) return reject(t.gone);
      const set = t.waiters.get(key) ?? new Set<Waiter>();
      t.waiters.set(key, set);
      const finish: Waiter = (e) => {
        if (e !== undefined && !(e instanceof Error) && !done(e)) return;
        clearTimeout(timer);
        set.delete(finish);
        if (e instanceof Error) reject(e);
        else resolve(e);
      };
      const timer = setTimeout(() => finish(undefined), timeoutMs);
      set.add(finish);
      t.post(c);
    });

  const session: SenderSession = {
    async open(url) {
      const e = await command({ kind: 'open', key, url, rateHz, params }, (e) => e.kind !== 'answer', OPEN_TIMEOUT_MS);
      if (e?.kind === 'opened' || e?.kind === 'paused') return;
      throw new Error(e?.kind === 'failed' ? e.message : 'the capture session did not open');
    },
    async pause(waitMs) {
      await command({ kind: 'pause', key, waitMs }, (e) => e.kind === 'paused', waitMs + 1000).catch(() => undefined);
    },
    async dispose() {
      if (!t.handlers.has(key)) return;
      if (!t.gone) await session.pause(0);
      t.handlers.delete(key);
      t.waiters.delete(key);
      if (t.handlers.size > 0) return;
      if (thread === t) thread = undefined;
      await t.end();
    },
  };
  return session;
}
