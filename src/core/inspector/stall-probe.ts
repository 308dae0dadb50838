// The stall probe inside the app: a 10 ms interval timer that notes every gap between two of its
// runs of at least the stall threshold. A timer cannot run while the event loop is blocked, so a
// gap is a measured stall: the loop was stuck from (at the latest) the earlier run to the later
// one. Only the gaps are kept (µs of the monotonic clock V8's profiles use), so it stores next to
// nothing. It runs only in the profiled sub-windows; `take` removes it (its timer goes at its next run).
// Inspector commands run from a V8 interrupt, even inside a blocked loop: a stall under way when
// the probe starts or is taken is seen only in part, so it is counted as clipped, not listed.
// For the same reason the probe never clears its timer from an evaluation: an interrupt can land
// inside Node's timer loop between its check that a timer is still set and the call of it, and a
// clearInterval there made the app die with "timer._onTimeout is not a function" (seen once in a
// few hundred runs). Taking the probe marks it stopped; its timer clears itself when it next runs.
import type { Evaluate } from './loop-probe.ts';

/** A gap the probe's timer could not run in: [last run, next run], µs of process.hrtime. */
export type StallGap = [number, number];

export interface StallGaps {
  gaps: StallGap[];
  /** Stalls under way when the probe started or was taken: their length is not known. */
  clipped: number;
}

/** Where the probe keeps its state inside the app, out of the way of the app's own globals. */
const PROBE = `globalThis[Symbol.for('hotline.stalls')]`;
/** Its timer shows in the profile under this name: the analysis counts it as Hotline's own. */
const STALL_PROBE_URL = 'hotline:stall-probe';
/** The timer's period: the finest start a gap can give (the profile's samples refine it). */
export const STALL_PROBE_PERIOD_MS = 10;
/** Gaps kept per sub-window at most: a loop blocked all the time has few, long ones anyway. */
const MAX_GAPS = 10_000;

/** Starts noting gaps of at least `thresholdMs`; a probe left from before is replaced. */
export async function startStallProbe(evaluate: Evaluate, thresholdMs: number): Promise<void> {
  await evaluate(`(() => {
    const old = ${PROBE};
    if (old) old.stopped = true;
    const nowUs = () => Number(process.hrtime.bigint() / 1000n);
    const since = nowUs();
    const p = { gaps: [], clipped: 0, last: since, thresholdUs: ${Math.round(thresholdMs * 1000)}, timer: undefined, stopped: false };
    p.timer = setInterval(() => {
      if (p.stopped) return clearInterval(p.timer);
      const now = nowUs();
      if (now - p.last >= p.thresholdUs) {
        if (p.last === since) p.clipped++;
        else if (p.gaps.length < ${MAX_GAPS * 2}) p.gaps.push(p.last, now);
      }
      p.last = now;
    }, ${STALL_PROBE_PERIOD_MS});
    // Never what keeps the app alive.
    p.timer.unref();
    ${PROBE} = p;
  })()
//# sourceURL=${STALL_PROBE_URL}`);
}

/** Stops the probe and returns its gaps. Idempotent: no probe, no gaps. */
export async function takeStallGaps(evaluate: Evaluate): Promise<StallGaps> {
  const json = await evaluate(`(() => {
    const p = ${PROBE};
    if (!p) return '{"gaps":[],"clipped":0}';
    p.stopped = true;
    delete ${PROBE};
    const open = Number(process.hrtime.bigint() / 1000n) - p.last >= p.thresholdUs ? 1 : 0;
    return JSON.stringify({ gaps: p.gaps, clipped: p.clipped + open });
  })()`);
  const taken = JSON.parse(String(json)) as { gaps: number[]; clipped: number };
  const gaps: StallGap[] = [];
  for (let i = 0; i + 1 < taken.gaps.length; i += 2) gaps.push([taken.gaps[i], taken.gaps[i + 1]]);
  return { gaps, clipped: taken.clipped };
}
