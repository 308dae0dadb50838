// Waits for libuv's threadpool on the lines that made them. The wait probe (inspector/
// wait-probe.ts) measured each request from the call (async_hooks init) to its callback (first
// `before`): that is the wait, measured. How much of it was queued for a thread is inferred:
// libuv's pool is one FIFO queue served by UV_THREADPOOL_SIZE threads, so replaying the requests
// in the order they were made, each starts when it is made or, with every thread taken, when the
// earliest running one ends. A request "ends" when its callback ran, which a busy event loop
// delays: the queued time is then an upper bound. Pure, no Node imports.
import type { Hint, ThreadpoolWait } from '../model.ts';

/** The probe's record of the profiled window (all sub-windows together). */
export interface WaitTraceInput {
  poolSize: number;
  cores: number;
  /** [file, line, column, function] */
  sites: ReadonlyArray<readonly [string, number, number, string]>;
  types: readonly string[];
  /** [site index or -1, type index, µs made, µs its callback ran] */
  requests: ReadonlyArray<readonly [number, number, number, number]>;
  /** How long the probe was on, µs. */
  activeUs?: number;
  /** Data-store exchanges that first waited for a pool's connection: [index in requests, µs queued, pool size]. */
  queued?: ReadonlyArray<readonly [number, number, number]>;
  /** Still waiting at a sub-window's end: [site, type, µs made, µs the probe was taken]. */
  pending?: ReadonlyArray<readonly [number, number, number, number]>;
  /** Loaded requests the app's servers began while the probe was on (counted in the app). */
  served?: number;
  /** Client sockets whose protocol was not recognised as a data store's. */
  unpairedSockets?: number;
  /** Per request: the id of the HTTP request the app served when it was made (0 none, -1 unknown; capture/extras/wait-labels.ts). */
  labels?: readonly number[];
}

/** The API a request type comes from, as the user calls it. */
const API_OF: Record<string, string> = {
  PBKDF2REQUEST: 'crypto.pbkdf2',
  SCRYPTREQUEST: 'crypto.scrypt',
  RANDOMBYTESREQUEST: 'crypto.randomBytes',
  RANDOMPRIMEREQUEST: 'crypto.generatePrime',
  CHECKPRIMEREQUEST: 'crypto.checkPrime',
  HKDFREQUEST: 'crypto.hkdf',
  KEYGENREQUEST: 'crypto.generateKeyPair',
  CIPHERREQUEST: 'crypto.subtle',
  DERIVEBITSREQUEST: 'crypto.subtle',
  SIGNREQUEST: 'crypto.subtle',
  HASHREQUEST: 'crypto.subtle',
  ZLIB: 'zlib',
  FSREQCALLBACK: 'fs',
  FSREQPROMISE: 'fs/promises',
  STATWATCHER: 'fs.watchFile',
  GETADDRINFOREQWRAP: 'dns.lookup',
  GETNAMEINFOREQWRAP: 'dns.lookupService',
};

/**
 * Outgoing calls the probe noted as `kind:target`: HTTP (`http:GET host:port`, `fetch:GET
 * host:port`) and data stores (`pg:host:port SELECT …`, likewise mysql, redis, mongodb).
 */
const OUTGOING_KINDS: Record<string, string> = {
  http: 'http.request',
  fetch: 'fetch',
  pg: 'pg',
  mysql: 'mysql',
  redis: 'redis',
  mongodb: 'mongodb',
};

/** `{ api, target }` of an outgoing call's type, or undefined for threadpool work. */
export function outgoingCallOfType(type: string): { api: string; target: string } | undefined {
  const colon = type.indexOf(':');
  const api = colon > 0 ? OUTGOING_KINDS[type.slice(0, colon)] : undefined;
  return api ? { api, target: type.slice(colon + 1) } : undefined;
}

export const apiOfType = (type: string): string => outgoingCallOfType(type)?.api ?? API_OF[type] ?? type.toLowerCase();

/**
 * When each request got a thread (µs), by replaying the FIFO pool: request i starts at the
 * later of when it was made and when a thread was free (the earliest callback among the ones
 * still running once all `poolSize` threads are taken); never after its own callback.
 */
export function inferStarts(requests: WaitTraceInput['requests'], poolSize: number): Float64Array {
  const order = requests.map((_, i) => i).sort((a, b) => requests[a][2] - requests[b][2]);
  const starts = new Float64Array(requests.length);
  const running = new MinHeap();
  let lastStart = -Infinity;
  for (const i of order) {
    const [, , made, done] = requests[i];
    let at = Math.max(made, lastStart);
    while (running.size > 0 && running.peek() <= at) running.pop();
    if (running.size >= poolSize) at = Math.max(at, running.pop());
    at = Math.min(at, done);
    starts[i] = at;
    lastStart = at;
    running.push(done);
  }
  return starts;
}

/** Per calling line and API: the waits and the inferred queueing, most waited first. */
export function threadpoolWaits(trace: WaitTraceInput, requestsServed: number | undefined): ThreadpoolWait[] {
  const pending = trace.pending ?? [];
  // Only threadpool work queues for the pool; an outgoing call waits on the other side, not queued.
  const http = trace.types.map((type) => outgoingCallOfType(type));
  const pooled = (r: readonly [number, number, number, number]): boolean => http[r[1]] === undefined;
  // The ones still waiting at a sub-window's end held their threads at least until then.
  const poolRequests = [...trace.requests.filter(pooled), ...pending.filter(pooled)];
  const poolStarts = inferStarts(poolRequests, trace.poolSize);
  const startOf = new Map(poolRequests.map((r, i) => [r, poolStarts[i]]));
  // A data store's pool queue was measured in the app (pool-probe.ts), not inferred.
  const poolQueued = new Map((trace.queued ?? []).map(([index, us, size]) => [trace.requests[index], { us, size }]));
  type Group = {
    site: number;
    api: string;
    target?: string;
    waits: number[];
    queued: number[];
    pending: number;
    /** The largest size of the pools its calls waited for (data stores). */
    poolSize: number;
  };
  const groups = new Map<string, Group>();
  const groupOf = (site: number, type: number): Group => {
    const [file, line] = trace.sites[site];
    const api = apiOfType(trace.types[type]);
    const key = `${file}\u0000${line}\u0000${api}`;
    let g = groups.get(key);
    if (!g)
      groups.set(key, (g = { site, api, target: http[type]?.target, waits: [], queued: [], pending: 0, poolSize: 0 }));
    return g;
  };
  for (const r of trace.requests) {
    const [site, type, made, done] = r;
    if (site < 0) continue; // made by Node or a dependency with no line of the user's code on the stack
    const g = groupOf(site, type);
    g.waits.push((done - made) / 1000);
    const pool = poolQueued.get(r);
    if (pool) g.poolSize = Math.max(g.poolSize, pool.size);
    g.queued.push(pool ? Math.min(pool.us, done - made) / 1000 : ((startOf.get(r) ?? made) - made) / 1000);
  }
  // Per HTTP request: the calls made in the window, ended or not (about as many of the requests
  // served began before the window as end after it).
  for (const [site, type] of pending) if (site >= 0) groupOf(site, type).pending++;
  const out: ThreadpoolWait[] = [];
  for (const g of groups.values()) {
    if (g.waits.length === 0) continue;
    const [file, line, , fn] = trace.sites[g.site];
    const waits = [...g.waits].sort((a, b) => a - b);
    const queued = [...g.queued].sort((a, b) => a - b);
    const total = waits.reduce((t, w) => t + w, 0);
    out.push({
      file,
      line,
      function: fn,
      api: g.api,
      ...(g.target ? { target: g.target } : {}),
      count: waits.length,
      perRequest: requestsServed && requestsServed > 0 ? round2((waits.length + g.pending) / requestsServed) : 0,
      waitMs: { p50: round2(pct(waits, 50)), p99: round2(pct(waits, 99)), total: round2(total) },
      queuedMs: { p50: round2(pct(queued, 50)), p99: round2(pct(queued, 99)) },
      ...(g.poolSize > 0 ? { poolSize: g.poolSize } : {}),
    });
  }
  return out.sort((a, b) => b.waitMs.total - a.waitMs.total);
}

/**
 * Queued for this share of the wait or more (and at least a few ms): the pool is the limit. With
 * C requests in flight on N threads a request queues for about 1 − N/C of its wait: 0.6 means
 * 2.5 times more requests in the pool than threads.
 */
const POOL_LIMIT_SHARE = 0.6;
const POOL_LIMIT_MIN_MS = 5;

/** A line's calls spent most of their wait queued (for a thread, or a pool's connection). */
export const queuedMostly = (w: ThreadpoolWait): boolean =>
  w.queuedMs.p50 >= POOL_LIMIT_MIN_MS && w.queuedMs.p50 >= w.waitMs.p50 * POOL_LIMIT_SHARE;
/** The app's CPU from which all its cores count as busy. */
const CORES_BUSY = 0.85;

/**
 * The hint on a line whose threadpool requests spent most of their wait queued: it names
 * UV_THREADPOOL_SIZE with the measured figures, and says when raising it would not help
 * because the app already keeps every core busy (`appCpu`: CPU seconds per wall second).
 */
export function poolLimitHint(
  w: ThreadpoolWait,
  pool: { size: number; cores: number },
  appCpu: number | undefined,
  nonIdleMs: number,
): Hint | undefined {
  // An outgoing call's queue is its own pool's (data-store-hints.ts), not the threadpool's.
  if (w.target !== undefined) return undefined;
  if (!queuedMostly(w)) return undefined;
  const coresBusy = appCpu !== undefined && appCpu >= pool.cores * CORES_BUSY;
  const queuedShare = Math.round((w.queuedMs.p50 / Math.max(w.waitMs.p50, 1e-9)) * 100);
  const fix = coresBusy
    ? `Raising UV_THREADPOOL_SIZE would not help: the app already keeps its ${pool.cores} cores busy (${appCpu!.toFixed(1)} CPU s per s), so more threads would only share them. Make fewer or cheaper ${w.api} calls (cache the result, lower the cost), or add machines.`
    : `Start the app with a larger pool, e.g. UV_THREADPOOL_SIZE=${Math.min(1024, Math.max(pool.size * 2, pool.cores))} (it must be set before the app starts), or make fewer ${w.api} calls.`;
  return {
    rule: 'threadpool-queue',
    file: w.file,
    line: w.line,
    api: w.api,
    function: w.function,
    totalMs: w.waitMs.total,
    totalPct: nonIdleMs > 0 ? round2((w.waitMs.total / nonIdleMs) * 100) : 0,
    message: `\`${w.api}\` waits ${fmtMs(w.waitMs.p50)} a call (p50), ${fmtMs(w.queuedMs.p50)} of it (${queuedShare}%) queued for one of the threadpool's ${pool.size} threads (UV_THREADPOOL_SIZE=${pool.size}): the pool, not the CPU of your code, is the limit.`,
    fix,
  };
}

const round2 = (v: number): number => Math.round(v * 100) / 100;
const fmtMs = (v: number): string => (v >= 10 ? `${Math.round(v)} ms` : `${v.toFixed(1)} ms`);

/** The nearest-rank percentile of sorted values. */
function pct(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

class MinHeap {
  private readonly a: number[] = [];
  get size(): number {
    return this.a.length;
  }
  peek(): number {
    return this.a[0];
  }
  push(v: number): void {
    const a = this.a;
    a.push(v);
    for (let i = a.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (a[parent] <= a[i]) break;
      [a[parent], a[i]] = [a[i], a[parent]];
      i = parent;
    }
  }
  pop(): number {
    const a = this.a;
    const top = a[0];
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l] < a[m]) m = l;
        if (r < a.length && a[r] < a[m]) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i], a[m]];
        i = m;
      }
    }
    return top;
  }
}
