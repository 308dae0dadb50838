// The stall probe, inside the app (host side: inspector/stall-probe.ts): a 10 ms interval timer
// that notes every gap between two of its runs of at least the stall threshold. A timer cannot run
// while the event loop is blocked, so a gap is a measured stall. Only the gaps are kept (µs of the
// monotonic clock V8's profiles use). Inspector commands run from a V8 interrupt, even inside a
// blocked loop: a stall under way when the probe starts or is taken is seen only in part, so it is
// counted as clipped, not listed. For the same reason the probe never clears its timer from an
// evaluation: an interrupt can land inside Node's timer loop between its check that a timer is
// still set and the call of it, and a clearInterval there made the app die with
// "timer._onTimeout is not a function" (seen once in a few hundred runs). `take` marks it
// stopped; its timer clears itself when it next runs.
import { nowUs } from './shared/clock.ts';
import { clearSlot, readSlot, writeSlot } from './shared/state.ts';

interface Probe {
  /** [last run, next run] pairs, flat. */
  gaps: number[];
  clipped: number;
  last: number;
  thresholdUs: number;
  stopped: boolean;
}

/** What `take` returns (as JSON). */
export interface TakenStalls {
  gaps: number[];
  clipped: number;
}

const SLOT = 'hotline.stalls';
/** Gaps kept per sub-window at most: a loop blocked all the time has few, long ones anyway. */
const MAX_GAPS = 10_000;

/** Starts noting gaps of at least `thresholdMs`, with a timer of `periodMs`; a probe left from before is replaced. */
export function start(thresholdMs: number, periodMs: number): void {
  const old = readSlot<Probe>(SLOT);
  if (old) old.stopped = true;
  const since = nowUs();
  const p: Probe = { gaps: [], clipped: 0, last: since, thresholdUs: Math.round(thresholdMs * 1000), stopped: false };
  const timer = setInterval(() => {
    if (p.stopped) return clearInterval(timer);
    const now = nowUs();
    if (now - p.last >= p.thresholdUs) {
      if (p.last === since) p.clipped++;
      else if (p.gaps.length < MAX_GAPS * 2) p.gaps.push(p.last, now);
    }
    p.last = now;
  }, periodMs);
  // Never what keeps the app alive.
  timer.unref();
  writeSlot(SLOT, p);
}

/** Stops the probe; its gaps as JSON. Idempotent: no probe, no gaps. */
export function take(): string {
  const p = readSlot<Probe>(SLOT);
  if (!p) return JSON.stringify({ gaps: [], clipped: 0 } satisfies TakenStalls);
  p.stopped = true;
  clearSlot(SLOT);
  const open = nowUs() - p.last >= p.thresholdUs ? 1 : 0;
  return JSON.stringify({ gaps: p.gaps, clipped: p.clipped + open } satisfies TakenStalls);
}
