// The wait probe, inside the app (host side: inspector/wait-probe.ts). An async_hooks hook, on
// only in the profiled sub-windows, notes every request the app hands to libuv's threadpool
// (crypto, zlib, fs, dns.lookup): when it was made (`init`), the calling line of the user's code,
// and when its callback ran (the first `before`). Outgoing HTTP calls (http/https through an
// Agent, and fetch) are noted too, from the call to the response (startHttpProbe), and the
// exchanges with data stores over client sockets (socket-probe.ts), from the asking when a full
// pool queued them first (pool-probe.ts). `take` turns it all off,
// removes it and returns what it noted; the app is left as it was found.
import type { AsyncHook } from 'node:async_hooks';
import { builtin } from './shared/builtins.ts';
import { newSiteTable, userSite, type Site, type SiteTable } from './shared/call-site.ts';
import { nowUs } from './shared/clock.ts';
import { clearSlot, readSlot, writeSlot } from './shared/state.ts';
import { startSocketProbe } from './socket-probe.ts';
import { deferredSites } from './shared/deferred-site.ts';
import { startPoolProbe, type PoolGrant } from './pool-probe.ts';

/** What `take` returns (as JSON): the host's WaitTrace, its quadruples flat. */
export interface TakenWaits {
  poolSize: number;
  cores: number;
  sites: Site[];
  types: string[];
  /** Per request, 4 numbers: site index or -1, type index, µs made, µs its callback ran. */
  requests: number[];
  /** Per request still waiting when taken, 4 numbers: site, type, µs made, µs taken. */
  pending: number[];
  /**
   * Per data-store exchange that first waited for a pool's connection, 3 numbers: its index in
   * `requests`, µs queued (from the asking to the handing over, part of its wait), the pool's size.
   */
  queued: number[];
  dropped: number;
  activeUs: number;
  /** Client sockets whose protocol the socket probe did not recognise (not timed). */
  unpairedSockets: number;
  /** Loaded HTTP requests the app's servers began while the probe was on (the calls' denominator). */
  served: number;
}

/** A request under way: [site index, type index, µs made, µs queued for a pool's connection, the pool's size]. */
type Open = [number, number, number, number, number];

interface Probe extends SiteTable {
  poolSize: number;
  cores: number;
  types: string[];
  typeIndex: Map<string, number>;
  /** Keyed by async id (pool requests) or by the request object (HTTP calls). */
  open: Map<unknown, Open>;
  requests: number[];
  queued: number[];
  dropped: number;
  unpairedSockets: number;
  served: number;
  since: number;
  hook: AsyncHook;
  waiting: AsyncHook;
  /** Outgoing calls under way (HTTP, data stores), by the key their end is known by. */
  calls: WeakMap<object, Open>;
  unhttp: () => void;
  unsocket: () => void;
}

const SLOT = 'hotline.waits';
/** Requests noted per sub-window at most (4 numbers each). */
const MAX_REQUESTS = 200_000;

/**
 * libuv threadpool work as async_hooks names it. Each is one request to the pool; ZLIB is a
 * stream whose every write is one (its first write is what a one-shot zlib call makes).
 */
const POOL_TYPES = new Set([
  'PBKDF2REQUEST',
  'SCRYPTREQUEST',
  'RANDOMBYTESREQUEST',
  'RANDOMPRIMEREQUEST',
  'CHECKPRIMEREQUEST',
  'HKDFREQUEST',
  'KEYGENREQUEST',
  'CIPHERREQUEST',
  'DERIVEBITSREQUEST',
  'SIGNREQUEST',
  'HASHREQUEST',
  'ZLIB',
  'FSREQCALLBACK',
  'FSREQPROMISE',
  'STATWATCHER',
  'GETADDRINFOREQWRAP',
  'GETNAMEINFOREQWRAP',
]);

/**
 * Turns off a probe's hooks by an immediate: outside any hook's callback, and never by
 * process.nextTick from a script served by an interrupt (see `start`).
 */
const hooksOffLater = (p: Probe): void => {
  setImmediate(() => {
    p.hook.disable();
    p.waiting.disable();
  });
};

function typeIndexOf(p: Probe, type: string): number {
  let t = p.typeIndex.get(type);
  if (t === undefined) {
    t = p.types.length;
    p.typeIndex.set(type, t);
    p.types.push(type);
  }
  return t;
}

function note(p: Probe, o: Open): void {
  if (p.requests.length >= MAX_REQUESTS * 4) {
    p.dropped++;
    return;
  }
  if (o[3] > 0) p.queued.push(p.requests.length / 4, o[3], o[4]);
  p.requests.push(o[0], o[1], o[2], nowUs());
}

/** `loadedPath`: the loaded URL's path and query, the requests `served` counts (null: every request). */
export function start(loadedPath: string | null): void {
  const old = readSlot<Probe>(SLOT);
  if (old) {
    hooksOffLater(old);
    old.unhttp();
    old.unsocket();
  }
  const ah = builtin('async_hooks');
  const os = builtin('os');
  const p = {
    ...newSiteTable(),
    poolSize: Math.max(1, Math.min(1024, Number(process.env.UV_THREADPOOL_SIZE) || 4)),
    cores: os.availableParallelism ? os.availableParallelism() : os.cpus().length,
    types: [],
    typeIndex: new Map(),
    open: new Map(),
    requests: [],
    queued: [],
    dropped: 0,
    unpairedSockets: 0,
    served: 0,
    since: nowUs(),
    calls: new WeakMap(),
    unhttp: () => undefined,
    unsocket: () => undefined,
  } as unknown as Probe;
  const where = (depth?: number): number => userSite(p, where, depth);
  // The before hook runs for every callback of the app (each socket read, each promise
  // reaction): it is on only while a pool request waits for its callback (3 points of CPU per
  // request on a JSON API that never uses the pool, bench/profiler-cost.ts).
  // A hook turned on or off inside another hook's callback leaves Node a copy of the hook list
  // to restore when that callback's emit ends; an inspector message served in that gap (a probe
  // that makes a timer or a histogram) restores it first, and the emit's own restore then reads
  // null and the app dies (TypeError in copyHooks, node:internal/async_hooks). So every turn is
  // made later, outside any hook's callback (bench/JOURNAL.md, "two faults found in CI"): on the
  // next tick from the hooks' own callbacks (ordinary app code), but never by process.nextTick
  // from this script or any other served from an interrupt: landing between Node's last look at
  // an empty tick queue and its clearing of "a tick is scheduled", it strands the queue, and no
  // nextTick callback of the app runs again (the app stops serving). From here, setImmediate (its
  // queue has no such gap).
  const later = (f: () => void): void => process.nextTick(f);
  const settleWaiting = (): void => {
    if (p.open.size > 0) p.waiting.enable();
    else p.waiting.disable();
  };
  p.waiting = ah.createHook({
    before(id) {
      const o = p.open.get(id);
      if (o === undefined) return;
      p.open.delete(id);
      note(p, o);
      if (p.open.size === 0) later(settleWaiting);
    },
  });
  // Ticks' stacks, for the line of a write a library deferred (socket-probe.ts), noted by the same
  // init hook: one callback per async resource, not two.
  const deferred = deferredSites(p);
  p.hook = ah.createHook({
    init(id, type, _trigger, resource) {
      if (type === 'TickObject') return deferred.tickMade(resource);
      if (!POOL_TYPES.has(type)) return;
      p.open.set(id, [where(), typeIndexOf(p, type), nowUs(), 0, 0]);
      if (p.open.size === 1) later(settleWaiting);
    },
    // No destroy hook: it would make V8 track every promise's death, a cost on all the app's code.
  });
  setImmediate(() => {
    if (readSlot<Probe>(SLOT) !== p) return;
    p.hook.enable();
  });
  writeSlot(SLOT, p);
  p.unhttp = startHttpProbe(p, where, loadedPath);
  // A driver's write is ~10–30 frames below the line that called it (a pool, a promise, a queue).
  const pools = startPoolProbe(() => where(48));
  const unsocket = startSocketProbe(
    {
      begin: (key, type, socket) => {
        const g = pools.claim(socket);
        // Written by a pool's own query for the line that called it: that line, no stack walk.
        if (g && !g.queued) return beginCall(p, key, type, g.site);
        const site = where(48);
        // Written by the pool (no line of the user's code), or from the line that asked, or asked
        // for with no line and written from one (a query builder's pool, Knex's tarn, asks from
        // the builder's own async code; V8's async stack finds the line at the write): one wait,
        // from the asking, on the line known.
        if (g && (site < 0 || g.site < 0 || site === g.site))
          return beginCall(p, key, type, site >= 0 ? site : g.site, g.askedUs, g);
        // Written by the user's code once it had the connection: the queue was a wait of its own.
        if (g) notePoolWait(p, g, type);
        // A write with no line: a library deferred it; ticks' stacks are kept from now on.
        if (site < 0) deferred.keep();
        beginCall(p, key, type, site >= 0 ? site : deferred.site());
      },
      end: (key) => endCall(p, key),
    },
    () => p.unpairedSockets++,
  );
  p.unsocket = () => {
    unsocket();
    pools.stop();
  };
}

/** A wait for a pool's connection on the line that asked for it (`pg:host:port (a pool connection)`). */
function notePoolWait(p: Probe, g: PoolGrant, exchangeType: string): void {
  const type = `${exchangeType.split(' ')[0]} (a pool connection)`;
  const queued = g.grantedUs - g.askedUs;
  if (p.requests.length >= MAX_REQUESTS * 4) {
    p.dropped++;
    return;
  }
  p.queued.push(p.requests.length / 4, queued, g.size);
  p.requests.push(g.site, typeIndexOf(p, type), g.askedUs, g.grantedUs);
}

/**
 * An outgoing call made at `site` (its type: `kind:target`), until endCall with the same key;
 * `g`: it first waited for a pool's connection from `madeUs`.
 */
function beginCall(p: Probe, key: object, type: string, site: number, madeUs = nowUs(), g?: PoolGrant): void {
  const o: Open = [site, typeIndexOf(p, type), madeUs, g ? g.grantedUs - g.askedUs : 0, g ? g.size : 0];
  p.calls.set(key, o);
  p.open.set(o, o);
}

function endCall(p: Probe, key: object): void {
  const o = p.calls.get(key);
  if (o === undefined) return;
  p.calls.delete(key);
  p.open.delete(o);
  note(p, o);
}

/**
 * Outgoing HTTP calls. Node 20's diagnostics channels say when a call ended but not who made it:
 * `http.client.request.start` runs a tick after `http.request` (no line of the caller on the
 * stack). So the call is noted where it is made — `http.Agent.prototype.addRequest`, which every
 * http/https call through an agent runs synchronously (wrapped while the probe is on, put back at
 * `take`) — and ends at `http.client.response.finish` (the response's head has come: what
 * `http.get`'s callback and awaiting the response wait for). fetch (undici) is made synchronously
 * at `undici:request:create` and ends at `undici:request:trailers` (its body read to the end);
 * errors end either. Returns what removes it.
 */
function startHttpProbe(p: Probe, where: (depth?: number) => number, loadedPath: string | null): () => void {
  const dc = builtin('diagnostics_channel');
  const http = builtin('http');
  const hostOf = (host: unknown, port: unknown): string => String(host || 'localhost') + (port ? `:${port}` : '');
  // fetch's request is made under ~30 frames of undici's own dispatchers.
  const begin = (key: object, kind: 'http' | 'fetch', method: string, host: string): void =>
    beginCall(p, key, `${kind}:${method} ${host}`, where(kind === 'fetch' ? 80 : 24));
  const end = (key: object): void => endCall(p, key);
  type AddRequest = (this: unknown, req: { method?: string }, options?: Record<string, unknown>) => unknown;
  const agent = http.Agent.prototype as unknown as { addRequest: AddRequest };
  const addRequest = agent.addRequest;
  agent.addRequest = function (this: unknown, req, options, ...rest: unknown[]) {
    try {
      begin(
        req,
        'http',
        req.method || 'GET',
        hostOf(options && (options.host || options.hostname), options && options.port),
      );
    } catch {
      // never the app's problem: this call is not noted
    }
    return (addRequest as (...a: unknown[]) => unknown).call(this, req, options, ...rest);
  } as AddRequest;
  type Message = { request: { method?: string; origin?: unknown } };
  const subs: Array<[string, (m: unknown) => void]> = [
    ['http.client.response.finish', (m) => end((m as Message).request)],
    ['http.client.request.error', (m) => end((m as Message).request)],
    [
      'undici:request:create',
      (m) => {
        try {
          const r = (m as Message).request;
          begin(r, 'fetch', r.method || 'GET', String(r.origin || '').replace(/^[a-z]+:\/\//, ''));
        } catch {
          // not noted
        }
      },
    ],
    ['undici:request:trailers', (m) => end((m as Message).request)],
    ['undici:request:error', (m) => end((m as Message).request)],
    // The loaded requests the app serves meanwhile (not the app's calls to itself, nor other
    // traffic): calls per request are counted against these.
    [
      'http.server.request.start',
      (m) => {
        if (loadedPath === null || (m as { request?: { url?: string } }).request?.url === loadedPath) p.served++;
      },
    ],
  ];
  for (const [name, fn] of subs) dc.subscribe(name, fn);
  return () => {
    if (agent.addRequest !== addRequest) agent.addRequest = addRequest;
    for (const [name, fn] of subs) dc.unsubscribe(name, fn);
  };
}

/** Turns the probe off and removes it; what it noted as JSON, or '' when none was installed. */
export function take(): string {
  const p = readSlot<Probe>(SLOT);
  if (!p) return '';
  // What the hooks note until they are off is not read.
  hooksOffLater(p);
  p.unhttp();
  p.unsocket();
  clearSlot(SLOT);
  const taken = nowUs();
  const pending: number[] = [];
  for (const o of p.open.values()) pending.push(o[0], o[1], o[2], taken);
  const out: TakenWaits = {
    poolSize: p.poolSize,
    cores: p.cores,
    sites: p.sites,
    types: p.types,
    requests: p.requests,
    queued: p.queued,
    pending,
    dropped: p.dropped,
    activeUs: taken - p.since,
    unpairedSockets: p.unpairedSockets,
    served: p.served,
  };
  return JSON.stringify(out);
}
