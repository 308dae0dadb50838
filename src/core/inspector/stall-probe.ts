// The stall probe: a 10 ms interval timer inside the app, on only in the profiled sub-windows,
// that notes every gap between two of its runs of at least the stall threshold (a timer cannot
// run while the event loop is blocked, so a gap is a measured stall). Its code, and why it never
// clears its timer from an evaluation: in-app/scripts/stall-probe.ts.
import { inAppCall, type TakenStalls } from '../in-app/index.ts';
import type { Evaluate } from './loop-probe.ts';

/** A gap the probe's timer could not run in: [last run, next run], µs of process.hrtime. */
export type StallGap = [number, number];

export interface StallGaps {
  gaps: StallGap[];
  /** Stalls under way when the probe started or was taken: their length is not known. */
  clipped: number;
}

/** The timer's period: the finest start a gap can give (the profile's samples refine it). */
export const STALL_PROBE_PERIOD_MS = 10;

/** Starts noting gaps of at least `thresholdMs`; a probe left from before is replaced. */
export async function startStallProbe(evaluate: Evaluate, thresholdMs: number): Promise<void> {
  await evaluate(inAppCall('stall-probe', 'start', thresholdMs, STALL_PROBE_PERIOD_MS));
}

/** Stops the probe and returns its gaps. Idempotent: no probe, no gaps. */
export async function takeStallGaps(evaluate: Evaluate): Promise<StallGaps> {
  const taken = JSON.parse(String(await evaluate(inAppCall('stall-probe', 'take')))) as TakenStalls;
  const gaps: StallGap[] = [];
  for (let i = 0; i + 1 < taken.gaps.length; i += 2) gaps.push([taken.gaps[i], taken.gaps[i + 1]]);
  return { gaps, clipped: taken.clipped };
}
