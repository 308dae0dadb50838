// Hints on the lines that wait on data stores (their waits: time/threadpool-waits.ts). Pure.
import type { Hint, ThreadpoolWait } from '../model.ts';
import { queuedMostly } from './threadpool-waits.ts';

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
    ...onWaitLine(w, 'repeated-query', nonIdleMs),
    message: `This line sends ${n} ${w.api} statements per request (${w.target ?? ''}): ${fmtMs(perRequestMs)} of waiting per request, ${share}% of its ${fmtMs(latencyMs)} (p50), one round trip each.`,
    fix: `Fetch the rows in one statement (a join, or \`WHERE id = ANY($1)\` / \`IN (…)\` over the ids the loop walks), or, when the statements are independent, send them together (Promise.all over a pool, or a pipeline) instead of awaiting each in turn.`,
  };
}

/**
 * A line whose statements mostly waited for a connection of the app's pool (measured in the app:
 * in-app/scripts/pool-probe.ts): the pool's size, the queued and the answered parts. Raising the
 * pool helps only while the database answers as fast with more connections at once: the hint
 * gives the answer time so the user can tell, and says so.
 */
export function dbPoolQueueHint(w: ThreadpoolWait, nonIdleMs: number): Hint | undefined {
  if (!DATA_STORE_APIS.has(w.api) || !w.poolSize || !queuedMostly(w)) return undefined;
  const share = Math.round((w.queuedMs.p50 / Math.max(w.waitMs.p50, 1e-9)) * 100);
  const answered = Math.max(0, w.waitMs.p50 - w.queuedMs.p50);
  // The pool may be the driver's or a query builder's (Knex's tarn): both settings are named.
  const knex = ' or `pool: { max }` in a Knex config';
  const setting =
    w.api === 'mysql' ? `\`connectionLimit\`${knex}` : w.api === 'pg' ? `\`max\` of pg's Pool${knex}` : 'its size';
  return {
    ...onWaitLine(w, 'db-pool-queue', nonIdleMs),
    message: `This line's ${w.api} statements wait ${fmtMs(w.waitMs.p50)} a call (p50), ${fmtMs(w.queuedMs.p50)} of it (${share}%) for one of its pool's ${w.poolSize} connections; the database answered in about ${fmtMs(answered)}. The pool, not the database's answer, is what requests wait for here.`,
    fix: `Give the pool more connections (${setting}, now ${w.poolSize}) if the database has connections and CPU to spare — profile again to check its answers do not slow down as much — or hold each connection for less time (no other awaits while a client is checked out; release it as soon as its statements are done).`,
  };
}

/** A hint's place and weight: the waiting line, its waits' total and their share of the busy time. */
function onWaitLine(w: ThreadpoolWait, rule: string, nonIdleMs: number): Omit<Hint, 'message' | 'fix'> {
  return {
    rule,
    file: w.file,
    line: w.line,
    api: w.api,
    function: w.function,
    totalMs: w.waitMs.total,
    totalPct: nonIdleMs > 0 ? Math.round((w.waitMs.total / nonIdleMs) * 10000) / 100 : 0,
  };
}

const fmtMs = (v: number): string => (v >= 10 ? `${Math.round(v)} ms` : `${v.toFixed(1)} ms`);
