// The route probe, inside the app (host side: inspector/route-probe.ts). It labels the main
// thread's work with the HTTP request it serves, on only in the profiled sub-windows:
//
// - `http.server.request.start` gives each request an id and puts it on the async resource that
//   runs the request's handler (the connection's parser); an async_hooks `init` copies the running
//   label onto every resource made under it (promises, timers, sockets' writes, threadpool
//   requests), as AsyncLocalStorage does, so the request's later callbacks carry it too.
// - `before`/`after` of every callback note what the thread serves now: a label change is one
//   entry of a timeline (µs of the monotonic clock V8's profile timestamps use, and the label).
//   Only changes are kept, in typed arrays; a detour through "no request" shorter than MERGE_US
//   between two callbacks of one request (the loop's own code between two promise reactions) is
//   merged into the request, and counted (`merged`), so the analysis can say how much of a
//   request's time was such a gap.
// - `http.server.response.finish` notes the request's status, its end and the route pattern the
//   framework left on the raw request: Express/Nest (`req.baseUrl + req.route.path`) and Fastify
//   (its `tracing:fastify.request.handler:start` channel names the route); Koa's routers keep it
//   on their ctx only, so its paths are folded at analysis time (common/routes.ts).
//
// AsyncLocalStorage would propagate the label with the same init hook (in Node 20 it is one) but
// gives no moment when the thread changes requests: the before/after hooks are what make the
// timeline exact to the callback. `take` turns it off, removes it and returns what it noted.
import type { AsyncHook } from 'node:async_hooks';
import { builtin } from './shared/builtins.ts';
import { clearSlot, readSlot, writeSlot } from './shared/state.ts';

/** What `take` returns (as JSON). */
export interface TakenRoutes {
  /** Label changes, flat pairs: µs (monotonic clock), request id (0: no request). Time order. */
  changes: number[];
  /**
   * Per request begun while the probe was on, 7 numbers: id, µs begun, µs finished (-1: not
   * finished when taken), status (0: none), method, path, route pattern (indices into `strings`;
   * route -1: the framework named none).
   */
  requests: number[];
  strings: string[];
  /** Short detours through "no request" merged into the request around them: how many, µs. */
  merged: [number, number];
  /** µs at which the timeline's buffer filled: changes after it were not noted (0: it did not). */
  fullAtUs: number;
  /** Requests not noted (buffer full). */
  droppedRequests: number;
  sinceUs: number;
  takenUs: number;
}

const SLOT = 'hotline.routes';
/** Ids stay unique over the sub-windows (a label left on a long-lived resource is not mistaken). */
const ID_SLOT = 'hotline.routes.nextId';
/** Label changes noted per sub-window at most (12 bytes each). */
export const MAX_CHANGES = 1 << 20;
/** Requests noted per sub-window at most. */
export const MAX_REQUESTS = 200_000;
/** A detour through "no request" shorter than this between two callbacks of one request is the request's. */
export const MERGE_US = 20;
/** Nested callbacks followed (deeper ones keep their parent's label). */
const MAX_DEPTH = 256;
const PATH_CHARS = 200;

interface Probe {
  times: Float64Array;
  labels: Int32Array;
  n: number;
  cur: number;
  depth: number;
  stackIds: Float64Array;
  stackLabels: Int32Array;
  mergedCount: number;
  mergedUs: number;
  fullAtUs: number;
  // requests
  firstId: number;
  nextId: number;
  reqStart: Float64Array;
  reqEnd: Float64Array;
  reqInts: Int32Array; // per request: status, method, path, route
  droppedRequests: number;
  strings: string[];
  stringIndex: Map<string, number>;
  /** The resource each open request's handler ran on (its label is cleared at the finish). */
  open: Map<number, Labelled>;
  sinceUs: number;
  hook: AsyncHook;
  unsubscribe: () => void;
  stopped: boolean;
}

/** µs of the monotonic clock, as a float (process.hrtime: no BigInt made per call). */
const nowUs = (): number => {
  const t = process.hrtime();
  return t[0] * 1e6 + t[1] / 1e3;
};

const LABEL = Symbol.for('hotline.route.label');
const REQ = Symbol.for('hotline.route.request');
type Labelled = { [LABEL]?: number };

/**
 * A label on an object the app owns. An exception thrown in an async hook ends the process, and
 * one in a channel's subscriber is rethrown as uncaught: a frozen resource or a Proxy that throws
 * is left unlabelled instead.
 */
function label(o: object, id: number, key: symbol = LABEL): void {
  try {
    (o as Record<symbol, number>)[key] = id;
  } catch {
    // not labelled
  }
}

function labelOf(o: object): number {
  try {
    const l = (o as Labelled)[LABEL];
    return typeof l === 'number' ? l : 0;
  } catch {
    return 0;
  }
}

function intern(p: Probe, s: string): number {
  let i = p.stringIndex.get(s);
  if (i === undefined) {
    i = p.strings.length;
    p.strings.push(s);
    p.stringIndex.set(s, i);
  }
  return i;
}

/** The thread serves `label` from now. */
function set(p: Probe, label: number): void {
  if (label === p.cur || p.fullAtUs > 0 || p.stopped) return;
  const t = nowUs();
  const n = p.n;
  // Back to the request of two changes ago after a short detour through no request: merged.
  if (n >= 2 && p.cur === 0 && p.labels[n - 2] === label && t - p.times[n - 1] < MERGE_US) {
    p.mergedCount++;
    p.mergedUs += t - p.times[n - 1];
    p.n = n - 1;
    p.cur = label;
    return;
  }
  if (n >= p.times.length) {
    if (n >= MAX_CHANGES) {
      p.fullAtUs = t;
      return;
    }
    const times = new Float64Array(Math.min(MAX_CHANGES, n * 2));
    times.set(p.times);
    const labels = new Int32Array(times.length);
    labels.set(p.labels);
    p.times = times;
    p.labels = labels;
  }
  p.times[n] = t;
  p.labels[n] = label;
  p.n = n + 1;
  p.cur = label;
}

/** Starts labelling; a probe left from before is replaced. */
export function start(): void {
  const old = readSlot<Probe>(SLOT);
  if (old) stop(old);
  const ah = builtin('async_hooks');
  const since = nowUs();
  const firstId = readSlot<number>(ID_SLOT) ?? 1;
  const p = {
    times: new Float64Array(1 << 14),
    labels: new Int32Array(1 << 14),
    n: 0,
    cur: 0,
    depth: 0,
    stackIds: new Float64Array(MAX_DEPTH),
    stackLabels: new Int32Array(MAX_DEPTH),
    mergedCount: 0,
    mergedUs: 0,
    fullAtUs: 0,
    firstId,
    nextId: firstId,
    reqStart: new Float64Array(1024),
    reqEnd: new Float64Array(1024),
    reqInts: new Int32Array(4 * 1024),
    droppedRequests: 0,
    strings: [],
    stringIndex: new Map(),
    open: new Map(),
    sinceUs: since,
    unsubscribe: () => undefined,
    stopped: false,
  } as unknown as Probe;
  // The timeline starts with "no request": a callback under way now began before the probe.
  p.times[0] = since;
  p.labels[0] = 0;
  p.n = 1;
  p.hook = ah.createHook({
    init(_id, _type, _trigger, resource) {
      if (p.cur !== 0) label(resource, p.cur);
    },
    before(id) {
      const d = p.depth;
      if (d < MAX_DEPTH) {
        p.stackIds[d] = id;
        p.stackLabels[d] = p.cur;
      }
      p.depth = d + 1;
      set(p, labelOf(ah.executionAsyncResource()));
    },
    after(id) {
      // Beyond the depth followed: one level up, the label kept.
      if (p.depth > MAX_DEPTH) {
        p.depth--;
        return;
      }
      // Unwound to this callback's entry (one whose after never came, an exception, is left too);
      // a callback entered before the probe was on leaves it at the top: no request.
      for (let d = p.depth - 1; d >= 0; d--)
        if (p.stackIds[d] === id) {
          p.depth = d;
          return set(p, p.stackLabels[d]);
        }
      p.depth = 0;
      set(p, 0);
    },
  });
  p.unsubscribe = subscribe(p, ah);
  writeSlot(SLOT, p);
  writeSlot(ID_SLOT, firstId);
  // Hooks are turned on and off by an immediate, never from the evaluation itself: it may be
  // served inside another hook's emit (the wait probe's start explains the fault that causes).
  setImmediate(() => {
    if (readSlot<Probe>(SLOT) === p) p.hook.enable();
  });
}

type Request = { method?: string; url?: string; route?: { path?: unknown }; baseUrl?: unknown; [REQ]?: number };
type Response = { statusCode?: number };

function subscribe(p: Probe, ah: ReturnType<typeof builtin<'async_hooks'>>): () => void {
  const dc = builtin('diagnostics_channel');
  const fastifyRoutes = new WeakMap<object, string>();
  const subs: Array<[string, (m: unknown) => void]> = [
    [
      'http.server.request.start',
      (m) => {
        const req = (m as { request?: Request }).request;
        if (!req || p.stopped) return;
        const i = p.nextId - p.firstId;
        if (i >= MAX_REQUESTS) {
          p.droppedRequests++;
          return;
        }
        const id = p.nextId++;
        writeSlot(ID_SLOT, p.nextId);
        if (i >= p.reqStart.length) grow(p);
        const url = String(req.url ?? '');
        const q = url.search(/[?#]/);
        p.reqStart[i] = nowUs();
        p.reqEnd[i] = -1;
        p.reqInts[4 * i] = 0;
        p.reqInts[4 * i + 1] = intern(p, String(req.method ?? 'GET'));
        p.reqInts[4 * i + 2] = intern(p, (q >= 0 ? url.slice(0, q) : url).slice(0, PATH_CHARS));
        p.reqInts[4 * i + 3] = -1;
        label(req, id, REQ);
        // The handler runs on this resource (the connection's parser) from here on.
        const resource = ah.executionAsyncResource() as Labelled;
        label(resource, id);
        p.open.set(id, resource);
        set(p, id);
      },
    ],
    [
      'http.server.response.finish',
      (m) => {
        const { request: req, response: res } = m as { request?: Request; response?: Response };
        const id = req?.[REQ];
        if (!req || id === undefined || id < p.firstId) return;
        const i = id - p.firstId;
        if (i >= p.nextId - p.firstId) return;
        p.reqEnd[i] = nowUs();
        p.reqInts[4 * i] = res?.statusCode ?? 0;
        const pattern = routePattern(req) ?? fastifyRoutes.get(req);
        if (pattern !== undefined) p.reqInts[4 * i + 3] = intern(p, pattern.slice(0, PATH_CHARS));
        // The connection's next request is not this one's work.
        const resource = p.open.get(id);
        p.open.delete(id);
        if (resource && labelOf(resource) === id) label(resource, 0);
      },
    ],
    [
      'tracing:fastify.request.handler:start',
      (m) => {
        const { request, route } = m as { request?: { raw?: object }; route?: { url?: unknown } };
        if (request?.raw && typeof route?.url === 'string') fastifyRoutes.set(request.raw, route.url);
      },
    ],
  ];
  // A subscriber's exception would be rethrown in the app as uncaught: never the app's problem.
  const safe = subs.map(([name, fn]): [string, (m: unknown) => void] => [
    name,
    (m) => {
      try {
        fn(m);
      } catch {
        // this request is not noted
      }
    },
  ]);
  for (const [name, fn] of safe) dc.subscribe(name, fn);
  return () => {
    for (const [name, fn] of safe) dc.unsubscribe(name, fn);
  };
}

/** Express (and Nest on it): the matched route's path under the routers it was mounted on. */
export function routePattern(req: Request): string | undefined {
  const path = req.route?.path;
  if (typeof path !== 'string') return undefined;
  const base = typeof req.baseUrl === 'string' ? req.baseUrl : '';
  return base + path;
}

function grow(p: Probe): void {
  const size = Math.min(MAX_REQUESTS, p.reqStart.length * 2);
  const start = new Float64Array(size);
  start.set(p.reqStart);
  const end = new Float64Array(size);
  end.set(p.reqEnd);
  const ints = new Int32Array(4 * size);
  ints.set(p.reqInts);
  p.reqStart = start;
  p.reqEnd = end;
  p.reqInts = ints;
}

function stop(p: Probe): void {
  p.stopped = true;
  setImmediate(() => p.hook.disable());
  p.unsubscribe();
  for (const [id, resource] of p.open) if (labelOf(resource) === id) label(resource, 0);
  p.open.clear();
}

/** Turns the probe off and removes it; what it noted as JSON, or '' when none was installed. */
export function take(): string {
  const p = readSlot<Probe>(SLOT);
  if (!p) return '';
  // Nothing is noted from here (`stopped`); the hook itself goes at the next immediate.
  stop(p);
  clearSlot(SLOT);
  const takenUs = nowUs();
  const changes: number[] = [];
  for (let i = 0; i < p.n; i++) changes.push(Math.round(p.times[i]), p.labels[i]);
  const requests: number[] = [];
  const count = p.nextId - p.firstId;
  for (let i = 0; i < count; i++)
    requests.push(
      p.firstId + i,
      Math.round(p.reqStart[i]),
      p.reqEnd[i] < 0 ? -1 : Math.round(p.reqEnd[i]),
      p.reqInts[4 * i],
      p.reqInts[4 * i + 1],
      p.reqInts[4 * i + 2],
      p.reqInts[4 * i + 3],
    );
  const out: TakenRoutes = {
    changes,
    requests,
    strings: p.strings,
    merged: [p.mergedCount, Math.round(p.mergedUs)],
    fullAtUs: Math.round(p.fullAtUs),
    droppedRequests: p.droppedRequests,
    sinceUs: Math.round(p.sinceUs),
    takenUs: Math.round(takenUs),
  };
  return JSON.stringify(out);
}
