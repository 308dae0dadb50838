// Hints on the lines that wait on data stores (their waits: time/threadpool-waits.ts). Pure.
import type { Hint, ThreadpoolWait } from '../model.ts';

/** The data stores the wait probe recognises (their `api` in a wait). */
export const DATA_STORE_APIS: ReadonlySet<string> = new Set(['pg', 'mysql', 'redis', 'mongodb']);

/** Calls per request from one line from which they are a loop's, not a one-off's. */
const REPEATED_PER_REQUEST = 3;
/** …and the share of a request's latency their waits must be to be worth a hint. */
const REPEATED_SHARE = 0.2;

/**
 * A line that sends many statements per request (an N+1 loop): how many, how long they wait in
 * all per request, and what that is of the request's latency (`latencyMs`: the profiled p50).
 */
export function repeatedQueryHint(
  w: ThreadpoolWait,
  latencyMs: number | undefined,
  nonIdleMs: number,
): Hint | undefined {
  if (!DATA_STORE_APIS.has(w.api) || w.perRequest < REPEATED_PER_REQUEST || w.count === 0) return undefined;
  const perRequestMs = (w.waitMs.total / w.count) * w.perRequest;
  if (!latencyMs || perRequestMs < latencyMs * REPEATED_SHARE) return undefined;
  const n = Math.round(w.perRequest);
  const share = Math.min(100, Math.round((perRequestMs / latencyMs) * 100));
  return {
    rule: 'repeated-query',
    file: w.file,
    line: w.line,
    api: w.api,
    function: w.function,
    totalMs: w.waitMs.total,
    totalPct: nonIdleMs > 0 ? Math.round((w.waitMs.total / nonIdleMs) * 10000) / 100 : 0,
    message: `This line sends ${n} ${w.api} statements per request (${w.target ?? ''}): ${fmtMs(perRequestMs)} of waiting per request, ${share}% of its ${fmtMs(latencyMs)} (p50), one round trip each.`,
    fix: `Fetch the rows in one statement (a join, or \`WHERE id = ANY($1)\` / \`IN (…)\` over the ids the loop walks), or, when the statements are independent, send them together (Promise.all over a pool, or a pipeline) instead of awaiting each in turn.`,
  };
}

const fmtMs = (v: number): string => (v >= 10 ? `${Math.round(v)} ms` : `${v.toFixed(1)} ms`);
