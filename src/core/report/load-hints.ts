// What the load figures say about the app, in one sentence each. Pure: a report in, text out.
import type { ReportV1 } from './schema.ts';

/** A loop busy this share of the measured window counts as the bottleneck. */
const BUSY = 0.8;

/**
 * Why requests timed out: the app's own event loop was busy (requests queue behind its
 * JavaScript), or it was mostly idle (the requests waited on something it awaits). Decided by
 * the loop's utilisation in the measured window, with the profile's idle share beside it.
 */
export function timeoutHint(r: ReportV1, load: string): string {
  const n = r.load?.timeouts ?? 0;
  const busy = r.eventLoop?.utilization;
  const total = r.categories.idle + r.nonIdleMs;
  const idlePct = total > 0 ? Math.round((r.categories.idle / total) * 100) : undefined;
  if (busy === undefined) return `${n} requests timed out under ${load}.`;
  const busyPct = Math.round(busy * 100);
  if (busy >= BUSY) {
    return `${n} requests timed out: the app's event loop was busy ${busyPct}% of the window, so it could not keep up with ${load} (requests queue behind each other; the hot lines below are where its time went).`;
  }
  const workers =
    r.workers && r.workers.nonIdleMs > 0
      ? `, or on its worker threads (${Math.round(r.workers.nonIdleMs)} ms busy in the profiled window)`
      : '';
  return `${n} requests timed out while the app's event loop was busy only ${busyPct}% of the window${idlePct !== undefined ? ` (${idlePct}% of the profile idle)` : ''}: they waited on something outside its JavaScript — an awaited call (a downstream service, a database, a timer), a pool or a lock${workers} — not on its CPU. Look at what the slow path awaits; the hot lines below cannot show waiting.`;
}
