// The wait probe inside the app: an async_hooks hook, on only in the profiled sub-windows, that
// notes every request the app hands to libuv's threadpool (crypto, zlib, fs, dns.lookup): when it
// was made (`init`), the calling line of the user's code (the first frame outside Node and
// node_modules), and when its callback ran (the first `before`). What the pool did in between is
// not visible from JavaScript: the analysis infers it (analysis/time/threadpool-waits.ts). Outgoing HTTP calls
// (http/https through an Agent, and fetch) are noted too, from the call to the response: see
// HTTP_PROBE. `take` disables and removes it all and returns what it noted; the app is left as it
// was found.
import type { Evaluate } from './loop-probe.ts';

/** What the probe noted over one sub-window. */
export interface WaitTrace {
  /** UV_THREADPOOL_SIZE as the app sees it (libuv's default 4, at most 1024). */
  poolSize: number;
  /** Cores the app may use (os.availableParallelism). */
  cores: number;
  /** Calling lines: [file, line, column, function]. */
  sites: Array<[string, number, number, string]>;
  /** Resource types (PBKDF2REQUEST, FSREQCALLBACK, …), or `http:METHOD host:port` / `fetch:METHOD host:port`. */
  types: string[];
  /** Per request: [site index or -1 (no line of the user's code), type index, µs made, µs its callback ran]. */
  requests: Array<[number, number, number, number]>;
  /**
   * Requests still waiting when the probe was taken: [site, type, µs made, µs taken]. Their wait
   * is unknown (not counted), but they held threads until then and count per HTTP request.
   */
  pending: Array<[number, number, number, number]>;
  /** Requests not noted because the probe's buffer was full. */
  dropped: number;
  /** How long the probe was on, µs (all sub-windows together). */
  activeUs: number;
}

const PROBE = `globalThis[Symbol.for('hotline.waits')]`;
/** Its code shows in the profile under this name: the analysis counts it as Hotline's own. */
export const WAIT_PROBE_URL = 'hotline:wait-probe';
/** Requests noted per sub-window at most (4 numbers each). */
const MAX_REQUESTS = 200_000;

/**
 * Script text turning off the hooks of the probe `p` (an expression) by an immediate: outside any
 * hook's callback, and never by process.nextTick from a script served by an interrupt (see
 * startWaitProbe).
 */
const hooksOffLater = (p: string): string => `setImmediate(() => { ${p}.hook.disable(); ${p}.waiting?.disable(); })`;

/**
 * libuv threadpool work as async_hooks names it. Each is one request to the pool; ZLIB is a
 * stream whose every write is one (its first write is what a one-shot zlib call makes).
 */
const POOL_TYPES = [
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
];

/**
 * Outgoing HTTP calls, from inside the probe's IIFE (it uses `p`, `where`, `nowUs`, `note`).
 * Node 20's diagnostics channels say when a call ended but not who made it: `http.client.request.
 * start` runs a tick after `http.request` (no line of the caller on the stack). So the call is
 * noted where it is made — `http.Agent.prototype.addRequest`, which every http/https call through
 * an agent runs synchronously (wrapped while the probe is on, put back at `take`) — and ends at
 * `http.client.response.finish` (the response's head has come: what `http.get`'s callback and
 * awaiting the response wait for). fetch (undici) is made synchronously at `undici:request:create`
 * and ends at `undici:request:trailers` (its body read to the end); errors end either.
 */
const HTTP_PROBE = `
    const dc = process.getBuiltinModule ? process.getBuiltinModule('diagnostics_channel') : require('diagnostics_channel');
    const http = process.getBuiltinModule ? process.getBuiltinModule('http') : require('http');
    const calls = new WeakMap();
    const hostOf = (host, port) => String(host || 'localhost') + (port ? ':' + port : '');
    // fetch's request is made under ~30 frames of undici's own dispatchers.
    const begin = (key, kind, method, host) => {
      let t = p.typeIndex.get(kind + ':' + method + ' ' + host);
      if (t === undefined) { t = p.types.length; p.typeIndex.set(kind + ':' + method + ' ' + host, t); p.types.push(kind + ':' + method + ' ' + host); }
      const o = [where(kind === 'fetch' ? 80 : 24), t, nowUs()];
      calls.set(key, o);
      p.open.set(o, o);
    };
    const end = (key) => {
      const o = calls.get(key);
      if (o === undefined) return;
      calls.delete(key);
      p.open.delete(o);
      note(o);
    };
    const addRequest = http.Agent.prototype.addRequest;
    http.Agent.prototype.addRequest = function (req, options) {
      try { begin(req, 'http', req.method || 'GET', hostOf(options && (options.host || options.hostname), options && options.port)); } catch {}
      return addRequest.apply(this, arguments);
    };
    const subs = [
      ['http.client.response.finish', (m) => end(m.request)],
      ['http.client.request.error', (m) => end(m.request)],
      ['undici:request:create', (m) => { try { begin(m.request, 'fetch', m.request.method || 'GET', String(m.request.origin || '').replace(/^[a-z]+:\\/\\//, '')); } catch {} }],
      ['undici:request:trailers', (m) => end(m.request)],
      ['undici:request:error', (m) => end(m.request)],
    ];
    for (const [name, fn] of subs) dc.subscribe(name, fn);
    p.unhttp = () => {
      if (http.Agent.prototype.addRequest !== addRequest) http.Agent.prototype.addRequest = addRequest;
      for (const [name, fn] of subs) dc.unsubscribe(name, fn);
    };
`;

export async function startWaitProbe(evaluate: Evaluate): Promise<void> {
  await evaluate(`(() => {
    const old = ${PROBE};
    if (old) { ${hooksOffLater('old')}; old.unhttp?.(); }
    const ah = process.getBuiltinModule ? process.getBuiltinModule('async_hooks') : require('async_hooks');
    const os = process.getBuiltinModule ? process.getBuiltinModule('os') : require('os');
    const TYPES = new Set(${JSON.stringify(POOL_TYPES)});
    const nowUs = () => Number(process.hrtime.bigint() / 1000n);
    const p = {
      poolSize: Math.max(1, Math.min(1024, Number(process.env.UV_THREADPOOL_SIZE) || 4)),
      cores: os.availableParallelism ? os.availableParallelism() : os.cpus().length,
      sites: [], siteIndex: new Map(), types: [], typeIndex: new Map(),
      open: new Map(), requests: [], dropped: 0, hook: undefined, waiting: undefined, since: nowUs(),
    };
    // The calling line: the first frame that is neither Node's nor a dependency's.
    const callSite = (CallSites) => {
      for (const s of CallSites) {
        const file = s.getFileName();
        if (!file || file.startsWith('node:') || file.startsWith('${WAIT_PROBE_URL}') || file.includes('/node_modules/') || file.includes('\\\\node_modules\\\\')) continue;
        const key = file + ':' + s.getLineNumber() + ':' + s.getColumnNumber();
        let i = p.siteIndex.get(key);
        if (i === undefined) {
          i = p.sites.length;
          p.siteIndex.set(key, i);
          p.sites.push([file, s.getLineNumber(), s.getColumnNumber(), s.getFunctionName() || '']);
        }
        return i;
      }
      return -1;
    };
    const where = (depth = 24) => {
      const E = Error;
      const limit = E.stackTraceLimit;
      const prepare = E.prepareStackTrace;
      try {
        E.stackTraceLimit = depth;
        E.prepareStackTrace = (_, sites) => sites;
        const holder = {};
        E.captureStackTrace(holder, where);
        return callSite(holder.stack);
      } finally {
        E.stackTraceLimit = limit;
        E.prepareStackTrace = prepare;
      }
    };
    const note = (o) => {
      if (p.requests.length >= ${MAX_REQUESTS * 4}) { p.dropped++; return; }
      p.requests.push(o[0], o[1], o[2], nowUs());
    };
    // The before hook runs for every callback of the app (each socket read, each promise
    // reaction): it is on only while a pool request waits for its callback (3 points of CPU per
    // request on a JSON API that never uses the pool, bench/profiler-cost.ts).
    // A hook turned on or off inside another hook's callback leaves Node a copy of the hook list
    // to restore when that callback's emit ends; an inspector message served in that gap (a probe
    // that makes a timer or a histogram) restores it first, and the emit's own restore then reads
    // null and the app dies (TypeError in copyHooks, node:internal/async_hooks). So every turn is
    // made later, outside any hook's callback (docs/reliability.md): on the next tick from the
    // hooks' own callbacks (ordinary app code), but never by process.nextTick from this script or
    // any other served from an interrupt: landing between Node's last look at an empty tick queue
    // and its clearing of "a tick is scheduled", it strands the queue, and no nextTick callback of
    // the app runs again (the app stops serving). From here, setImmediate (its queue has no such gap).
    const later = (f) => process.nextTick(f);
    const settleWaiting = () => { if (p.open.size > 0) waiting.enable(); else waiting.disable(); };
    const waiting = ah.createHook({
      before(id) {
        const o = p.open.get(id);
        if (o === undefined) return;
        p.open.delete(id);
        note(o);
        if (p.open.size === 0) later(settleWaiting);
      },
    });
    p.hook = ah.createHook({
      init(id, type) {
        if (!TYPES.has(type)) return;
        let t = p.typeIndex.get(type);
        if (t === undefined) { t = p.types.length; p.typeIndex.set(type, t); p.types.push(type); }
        p.open.set(id, [where(), t, nowUs()]);
        if (p.open.size === 1) later(settleWaiting);
      },
      // No destroy hook: it would make V8 track every promise's death, a cost on all the app's code.
    });
    p.waiting = waiting;
    setImmediate(() => { if (${PROBE} === p) p.hook.enable(); });
    ${PROBE} = p;
    ${HTTP_PROBE}
  })()
//# sourceURL=${WAIT_PROBE_URL}`);
}

/** Disables and removes the probe; what it noted, or undefined when none was installed. */
export async function takeWaitTrace(evaluate: Evaluate): Promise<WaitTrace | undefined> {
  const json = await evaluate(`(() => {
    const p = ${PROBE};
    if (!p) return '';
    // What the hooks note until they are off is not read.
    ${hooksOffLater('p')};
    p.unhttp?.();
    delete ${PROBE};
    const taken = Number(process.hrtime.bigint() / 1000n);
    const pending = [];
    for (const o of p.open.values()) pending.push(o[0], o[1], o[2], taken);
    return JSON.stringify({ poolSize: p.poolSize, cores: p.cores, sites: p.sites, types: p.types,
      requests: p.requests, pending, dropped: p.dropped, activeUs: taken - p.since });
  })()`);
  if (!json) return undefined;
  const raw = JSON.parse(String(json)) as Omit<WaitTrace, 'requests' | 'pending'> & {
    requests: number[];
    pending: number[];
  };
  return { ...raw, requests: quads(raw.requests), pending: quads(raw.pending) };
}

function quads(flat: number[]): Array<[number, number, number, number]> {
  const out: Array<[number, number, number, number]> = [];
  for (let i = 0; i + 3 < flat.length; i += 4) out.push([flat[i], flat[i + 1], flat[i + 2], flat[i + 3]]);
  return out;
}
