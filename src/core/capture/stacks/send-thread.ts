// The capture sender's thread (bundled to dist/capture-sender.js; started by capture-sender.ts).
// For every stack sampler it keeps a session of its own on that process's inspector and sends each
// capture at its drawn moment, sleeping until then on a futex (Atomics.wait), which no I/O cuts
// short. A timer of the driver's event loop cannot do that: libuv runs every timer of the current
// millisecond whenever the loop wakes, capture answers wake it when the app leaves a native call,
// and timer-sent captures crowd in at the start of the next call (docs/attribution.md, "Where
// the captures are sent from"). Answers are read in the loop turn after each send.
import { parentPort, workerData } from 'node:worker_threads';
import WebSocket from 'ws';
import type { SenderCommand, SenderEvent, SenderSetup } from './sender-protocol.ts';

const port = parentPort!;
/** Bumped by the main thread with every command: wakes the futex sleep so the command is read. */
const wake = new Int32Array((workerData as SenderSetup).wake);
/** A moment missed by more than this (the thread was descheduled) is skipped, not sent late in a pile. */
const LATE_MS = 1;

interface Session {
  ws: WebSocket | undefined;
  sending: boolean;
  rateHz: number;
  params: object;
  /** The next moment, on performance.now()'s clock. */
  next: number;
  /** Message id → µs it was sent (process.hrtime, the profile's clock). */
  sent: Map<number, number>;
  pausing: NodeJS.Timeout | undefined;
}

const sessions = new Map<number, Session>();
let nextId = 1;
let stepping = false;

const post = (e: SenderEvent): void => port.postMessage(e);
const gapMs = (s: Session): number => -Math.log(1 - Math.random()) * (1000 / s.rateHz);

port.on('message', (c: SenderCommand) => {
  if (c.kind === 'open') open(c.key, c.url, c.rateHz, c.params);
  else pause(c.key, c.waitMs);
});

function open(key: number, url: string, rateHz: number, params: object): void {
  const old = sessions.get(key);
  if (old) {
    clearTimeout(old.pausing);
    drop(old);
  }
  const ws = new WebSocket(url, { perMessageDeflate: false });
  const s: Session = { ws, sending: false, rateHz, params, next: 0, sent: new Map(), pausing: undefined };
  sessions.set(key, s);
  ws.on('open', () => {
    if (s.ws !== ws) return;
    s.sending = true;
    s.next = performance.now() + gapMs(s);
    post({ kind: 'opened', key });
    kick();
  });
  ws.on('message', (data) => answered(key, s, String(data)));
  ws.on('error', (err) => {
    if (s.ws === ws) post({ kind: 'failed', key, message: err.message });
  });
  ws.on('close', () => {
    if (s.ws !== ws) return;
    // Closed under us (the process exited or closed its inspector) while captures were wanted.
    if (s.sending) post({ kind: 'failed', key, message: 'the capture session closed' });
    s.sending = false;
    if (s.pausing) finishPause(key, s);
    else drop(s);
  });
}

function kick(): void {
  if (stepping) return;
  stepping = true;
  setImmediate(step);
}

/** Sleeps until the next moment of any session, sends, and returns to the loop (which reads answers). */
function step(): void {
  stepping = false;
  let s: Session | undefined;
  for (const c of sessions.values()) if (c.sending && c.ws && (!s || c.next < s.next)) s = c;
  if (!s) return;
  const generation = Atomics.load(wake, 0);
  const now = performance.now();
  if (s.next < now - LATE_MS) {
    while (s.next < now - LATE_MS) s.next += gapMs(s);
    return kick(); // another session's moment may come first now
  }
  const left = s.next - now;
  if (left > 0 && Atomics.wait(wake, 0, generation, left) !== 'timed-out') return kick(); // a command: read it first
  const id = nextId++;
  s.sent.set(id, Number(process.hrtime.bigint() / 1000n));
  s.ws!.send(JSON.stringify({ id, method: 'Runtime.evaluate', params: s.params }));
  s.next += gapMs(s);
  kick();
}

function answered(key: number, s: Session, text: string): void {
  let m: { id?: number; result?: unknown; error?: { message?: string } };
  try {
    m = JSON.parse(text) as typeof m;
  } catch {
    return;
  }
  const sentUs = m.id === undefined ? undefined : s.sent.get(m.id);
  if (sentUs === undefined) return;
  s.sent.delete(m.id!);
  post({ kind: 'answer', key, sentUs, reply: m.result ?? { error: m.error?.message ?? 'no result' } });
  if (s.pausing && s.sent.size === 0) finishPause(key, s);
}

function pause(key: number, waitMs: number): void {
  const s = sessions.get(key);
  if (!s) return post({ kind: 'paused', key });
  s.sending = false;
  if (!s.ws || s.sent.size === 0) return finishPause(key, s);
  s.pausing ??= setTimeout(() => finishPause(key, s), waitMs);
}

/** Closes the session: a process's `inspector.close()` waits for every session to end. */
function finishPause(key: number, s: Session): void {
  clearTimeout(s.pausing);
  s.pausing = undefined;
  drop(s);
  if (sessions.get(key) === s) sessions.delete(key);
  post({ kind: 'paused', key });
}

function drop(s: Session): void {
  const ws = s.ws;
  s.ws = undefined;
  s.sending = false;
  s.sent.clear();
  ws?.terminate();
}
