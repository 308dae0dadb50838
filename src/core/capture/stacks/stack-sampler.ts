// Exact frames for the profiled window. V8's CPU profile has a line only for the top frame of a
// sample, so the line in a caller that made the call is not in it. Node dispatches inspector
// messages from a V8 interrupt: an expression evaluated through the inspector runs on top of
// whatever JS is running, and Error.captureStackTrace inside it sees the interrupted stack with
// the line and column of every frame, inlined ones included. This module sends one capture per
// tick, at Poisson-distributed ticks, and records, for every tick, the sample of the CPU profile
// taken at that moment (same monotonic clock: V8's TimeTicks and process.hrtime are both
// CLOCK_MONOTONIC), so the analysis can split each stack's time among the lines that were on it
// (analysis/attribution/stacks.ts). A capture sent while the app is inside a long native call waits for it
// to return and lands in the caller, at the calling line, which is where that tick belongs.
// Every tick gets its own capture, sent at once: a tick that waited for an earlier capture's
// answer (a round trip) would be classified by whatever call runs a round trip later, and a
// short call loses more of its ticks that way than a long one (a 2:1 split of two pbkdf2Sync
// calls came out 71/29 on a loaded machine). Sent at once, a tick lands after the message's
// one-way transit, which shifts the ticks of every call alike. The ticks are drawn and sent by a
// thread of their own on a session of its own (capture-sender.ts), so that nothing the driver's
// event loop does moves them; Node's timers of this thread are the fallback.
import { CAPTURE_SLOT, CAPTURE_UNUSABLE, inAppCall, inAppUrl } from '../../in-app/index.ts';
import type { CdpChannel } from '../../inspector/index.ts';
import { senderSession, type SenderSession } from './capture-sender.ts';
import type { CpuProfile } from '../../profile/index.ts';

/**
 * Default rate. A line's share of an edge is a count of ticks, so its standard error is about
 * √(p(1−p)/n): 4000 ticks (10 s) give ±0.75 point of a 2:1 split, where 2000 gave ±1.05, and
 * that counting was most of a capture-decided split's spread (docs/attribution.md, "Precision").
 * A capture costs the app ~20–50 µs of CPU: 400 a second, 1–2% of a core, in the profiled
 * window only.
 */
export const DEFAULT_STACK_RATE_HZ = 400;

/** One distinct frame: where it was and which function it was in (all 1-based, as V8's CallSite gives them). */
export interface CapturedFrame {
  /** The script's URL or file name as V8 names it (file:///…, /abs/path.js, node:…); '' for native or eval code. */
  url: string;
  line: number;
  column: number;
  functionName: string;
}

export interface StackCapturesV1 {
  version: 1;
  thread: 'main';
  rateHz: number;
  /** What sent the captures: the sender thread (capture-sender.ts) alone, or this thread's timers (for some or all). */
  sentBy?: 'thread' | 'timers';
  frames: CapturedFrame[];
  /** Per capture: frame indices, innermost first. An empty list: the app ran no JS (idle). */
  captures: number[][];
  /** Per capture: [µs when it was sent, µs when it ran in the app], on the profile's clock. */
  timing: Array<[number, number]>;
  /** Per tick: [index of the profile sample taken nearest to it, capture index]. */
  ticks: Array<[number, number]>;
  /** How many samples the profile these ticks point into has (a check that they belong together). */
  sampleCount: number;
  /** Ticks in total, and those that fell outside every profiler segment (dropped). */
  tickCount: number;
  unmatchedTicks: number;
  /** Ticks whose capture came while V8 was formatting another stack trace (nothing to read). */
  unusableTicks?: number;
}

/**
 * The name of the scripts Hotline evaluates for captures: the profile then shows their cost under
 * this name, and the analysis counts it as the profiler's own (categories.ts: `hotline:` scripts).
 */
const SCRIPT_URL = inAppUrl('stack-capture');

/**
 * Called at every tick: the capture function the app holds while the window runs
 * (in-app/scripts/stack-capture.ts, installed once per window and removed at its end).
 */
const CALL = `globalThis[Symbol.for(${JSON.stringify(CAPTURE_SLOT)})]()\n//# sourceURL=${SCRIPT_URL}`;
const CALL_PARAMS = { expression: CALL, returnByValue: true, silent: true };

/** The capture threw inside the app (not a lost connection). */
class CaptureThrew extends Error {}

/** Captures that throw in the app in a row before they are stopped for the run. */
const MAX_THROWN = 20;

interface RawTick {
  /** µs on the monotonic clock (process.hrtime), the clock of the profile's timestamps. */
  atUs: number;
  capture: number;
}

export class StackSampler {
  private readonly frames: CapturedFrame[] = [];
  private readonly frameIndex = new Map<string, number>();
  private readonly captures: number[][] = [];
  private readonly timing: Array<[number, number]> = [];
  private readonly ticks: RawTick[] = [];
  /** Ticks whose capture could not read the app's stack (tickCount counts them, `ticks` does not). */
  private unusable = 0;
  private threw = 0;
  /** Captures sent and not yet answered. */
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private disposed = false;
  private failure: string | undefined;
  /** The sender thread, while it works; without it (not built, or it failed) this thread's timers send. */
  private sender: SenderSession | undefined;
  /** The sender's session is open (a failure then stops the captures, as a lost connection does). */
  private senderOpen = false;
  /** Which sent captures in this run (both, when the thread failed in a later window). */
  private sentByThread = false;
  private sentByTimers = false;

  private constructor(
    private channel: CdpChannel,
    private readonly rateHz: number,
  ) {}

  /** Installs the capture function in the app and starts ticking (or, `paused`, waits for `resume`). */
  static async start(
    channel: CdpChannel,
    rateHz = DEFAULT_STACK_RATE_HZ,
    opts: { paused?: boolean } = {},
  ): Promise<StackSampler> {
    const sampler = new StackSampler(channel, rateHz);
    await sampler.evaluate(inAppCall('stack-capture', 'install'));
    if (channel.url !== undefined) {
      const sender = senderSession(rateHz, CALL_PARAMS, {
        answer: (sentUs, reply) => sampler.answered(reply, sentUs),
        failed: (message) => sampler.senderFailed(message),
      });
      if (!('missing' in sender)) sampler.sender = sender;
    }
    if (opts.paused) sampler.stopped = true;
    else sampler.schedule();
    return sampler;
  }

  /** Why captures stopped early, if they did (the app went away, the session closed). */
  get error(): string | undefined {
    return this.failure;
  }

  private schedule(): void {
    if (this.stopped) return;
    if (this.sender) return this.openSender(this.sender);
    // Exponential gaps: ticks at random moments, never in step with a periodic task of the app.
    const gapMs = -Math.log(1 - Math.random()) * (1000 / this.rateHz);
    this.timer = setTimeout(() => {
      this.tick();
      this.schedule();
    }, gapMs);
  }

  /** Opens the sender's session on the app's inspector of the moment; on failure, timers send instead. */
  private openSender(sender: SenderSession): void {
    sender.open(this.channel.url!).then(
      () => {
        if (this.stopped) return void sender.pause(0);
        this.senderOpen = true;
        this.sentByThread = true;
      },
      () => {
        this.sender = undefined;
        void sender.dispose();
        this.schedule();
      },
    );
  }

  private senderFailed(message: string): void {
    if (this.senderOpen) this.missed(new Error(message));
  }

  private tick(): void {
    this.sentByTimers = true;
    const atUs = Number(process.hrtime.bigint() / 1000n);
    const done = this.channel.send('Runtime.evaluate', CALL_PARAMS).then(
      (reply) => this.answered(reply, atUs),
      (err: unknown) => this.missed(err),
    );
    this.inFlight.add(done);
    void done.finally(() => this.inFlight.delete(done));
  }

  /** A capture's answer, sent at `atUs`. */
  private answered(reply: unknown, atUs: number): void {
    let value: unknown;
    try {
      value = valueOf(reply);
    } catch (err) {
      return this.missed(err);
    }
    this.landed(typeof value === 'string' ? value : '', atUs);
  }

  private missed(err: unknown): void {
    // Unanswered because we stopped and closed the session meanwhile: no failure of the app's.
    if (this.stopped) return;
    // A capture that threw in the app costs that tick; many in a row stop the captures.
    if (err instanceof CaptureThrew && ++this.threw < MAX_THROWN) {
      this.unusable++;
      return;
    }
    // The app went away or refused: stop asking (the window itself goes on).
    this.failure ??= (err as Error).message;
    this.stopped = true;
    clearTimeout(this.timer);
    this.senderOpen = false;
    void this.sender?.pause(0);
  }

  private landed(text: string, atUs: number): void {
    this.threw = 0;
    if (text === CAPTURE_UNUSABLE) {
      this.unusable++;
      return;
    }
    const frames: number[] = [];
    const lines = text.split('\n');
    const landUs = Number(lines[0]) || 0;
    for (let i = 1; i < lines.length; i++) {
      const parts = lines[i].split('\u0001');
      if (parts.length !== 4) continue;
      // The evaluated expression's own frame: not the app's.
      if (parts[0] === SCRIPT_URL) continue;
      frames.push(this.intern(parts));
    }
    const capture = this.captures.length;
    this.captures.push(frames);
    this.timing.push([atUs, landUs]);
    this.ticks.push({ atUs, capture });
  }

  private intern(parts: string[]): number {
    const key = parts.join('\u0001');
    let index = this.frameIndex.get(key);
    if (index === undefined) {
      index = this.frames.length;
      this.frameIndex.set(key, index);
      this.frames.push({
        url: parts[0],
        line: Number(parts[1]) || 0,
        column: Number(parts[2]) || 0,
        functionName: parts[3],
      });
    }
    return index;
  }

  /**
   * Stops ticking and waits (briefly: an app stuck in native code may never answer) for the
   * capture in flight. `resume` starts again (a window taken in several parts).
   */
  async stop(waitMs = 1000): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.senderOpen = false;
    // The sender's session closes too: the app's inspector, closed for a measured window, waits for every session.
    if (this.sender) await this.sender.pause(waitMs);
    if (this.inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(this.inFlight),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, waitMs);
      }),
    ]);
    clearTimeout(timer);
  }

  /**
   * Ticks again after `stop` (unless the app stopped answering), through `channel` when the
   * session was replaced meanwhile (the function stays installed in the app: it is not the session's).
   */
  resume(channel?: CdpChannel): void {
    if (channel) this.channel = channel;
    if (!this.stopped || this.failure !== undefined || this.disposed) return;
    this.stopped = false;
    this.schedule();
  }

  /**
   * The captures, every tick matched to the sample of `segments` (the profiler segments of the
   * window, in order, as mergeProfiles concatenates them) taken nearest to it.
   */
  result(segments: readonly CpuProfile[]): StackCapturesV1 {
    const { ticks, unmatched } = matchTicks(this.ticks, segments);
    const sampleCount = segments.reduce((n, s) => n + (s.samples?.length ?? 0), 0);
    return {
      version: 1,
      thread: 'main',
      rateHz: this.rateHz,
      sentBy: this.sentByThread && !this.sentByTimers ? 'thread' : 'timers',
      frames: this.frames,
      captures: this.captures,
      timing: this.timing,
      ticks,
      sampleCount,
      tickCount: this.ticks.length + this.unusable,
      unmatchedTicks: unmatched,
      unusableTicks: this.unusable,
    };
  }

  /** Removes the capture function from the app (an attached app is left as it was found). */
  async dispose(): Promise<void> {
    this.disposed = true;
    this.stopped = true;
    clearTimeout(this.timer);
    this.senderOpen = false;
    const sender = this.sender;
    this.sender = undefined;
    // Side by side: the thread's end can take seconds on a busy machine, and the run's stop waits
    // for its disposers a moment only before it lets an attached app go (run-control.ts). A
    // capture the thread still sends after the uninstall throws in its own evaluate, unseen.
    await Promise.all([
      sender?.dispose(),
      this.evaluate(inAppCall('stack-capture', 'uninstall')).catch(() => undefined),
    ]);
  }

  private async evaluate(expression: string): Promise<unknown> {
    return valueOf(await this.channel.send('Runtime.evaluate', { expression, returnByValue: true, silent: true }));
  }
}

/** The value of a `Runtime.evaluate` reply; throws what the app threw, or the protocol's error. */
function valueOf(reply: unknown): unknown {
  const r = reply as {
    result?: { value?: unknown };
    exceptionDetails?: { text?: string; exception?: { description?: string } };
    error?: string;
  };
  if (r.exceptionDetails) {
    const d = r.exceptionDetails;
    throw new CaptureThrew(
      `stack capture failed in the app: ${d.exception?.description?.split('\n')[0] ?? d.text ?? 'exception'}`,
    );
  }
  if (r.error !== undefined) throw new Error(r.error);
  return r.result?.value;
}

/**
 * How far (in sampling intervals) a tick may lie from the nearest sample. V8 bunches its samples
 * (a 20 ms stretch of a busy loop holds 17–23 at 1 kHz), so gaps of a few intervals are ordinary
 * and their ticks belong; a thread descheduled on a busy machine leaves gaps of 50 ms and more.
 */
const GAP_REACH_INTERVALS = 10;

/**
 * Each tick → the index (in the concatenation of `segments`' samples) of the sample nearest in
 * time, if the tick fell inside a segment. A sample's timestamp is when V8 took it.
 * A tick farther than GAP_REACH_INTERVALS sampling intervals from every sample fell in a gap the
 * app's thread did not run in (a busy machine descheduled it): the profile counts next to nothing
 * for that time (a sample weighs at most MAX_SAMPLE_WEIGHT intervals, analysis/profile.ts), and
 * such a gap's captures all land at once, on the one call the app resumes in. Kept, they
 * outweighed the rest: a child process starved for 500 ms put 87 ticks on the second of two
 * pbkdf2Sync calls, and a 2:1 split came out 62/38. So they are dropped (counted as unmatched).
 */
export function matchTicks(
  raw: readonly RawTick[],
  segments: readonly CpuProfile[],
): { ticks: Array<[number, number]>; unmatched: number } {
  const sorted = [...raw].sort((a, b) => a.atUs - b.atUs);
  const out: Array<[number, number]> = [];
  const reach = GAP_REACH_INTERVALS * medianInterval(segments);
  let offset = 0;
  let k = 0;
  for (const segment of segments) {
    const samples = segment.samples ?? [];
    const deltas = segment.timeDeltas ?? [];
    const count = samples.length;
    if (count === 0) continue;
    const times = new Float64Array(count);
    let t = segment.startTime;
    for (let i = 0; i < count; i++) {
      t += deltas[i] ?? 0;
      times[i] = t;
    }
    const first = times[0];
    const last = times[count - 1];
    // Ticks before this segment's first sample fell in the gap between two segments.
    while (k < sorted.length && sorted[k].atUs < first) k++;
    let s = 0;
    while (k < sorted.length && sorted[k].atUs <= last) {
      const at = sorted[k].atUs;
      while (s + 1 < count && times[s + 1] <= at) s++;
      const nearest = s + 1 < count && times[s + 1] - at < at - times[s] ? s + 1 : s;
      if (Math.abs(times[nearest] - at) <= reach) out.push([offset + nearest, sorted[k].capture]);
      k++;
    }
    offset += count;
  }
  return { ticks: out, unmatched: raw.length - out.length };
}

/** The median time between two samples of the segments (the sampling interval V8 achieved); Infinity without any. */
function medianInterval(segments: readonly CpuProfile[]): number {
  const deltas: number[] = [];
  for (const s of segments) {
    const d = s.timeDeltas ?? [];
    // The first delta is from the segment's start, not from a sample.
    for (let i = 1; i < d.length; i++) deltas.push(d[i]);
  }
  if (deltas.length === 0) return Infinity;
  deltas.sort((a, b) => a - b);
  return deltas[deltas.length >> 1];
}
