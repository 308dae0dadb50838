// Pool queueing, inside the app (part of the wait probe: wait-probe.ts starts and removes it).
// A query made while every connection of its pool is busy waits in the pool's queue, then is
// written from another request's callbacks (the release of a connection), where no line of the
// user's code is on the stack. So the pools' acquire methods are wrapped while the probe is on:
// an acquisition made while the pool is full notes its calling line and when it asked, and the
// moment the pool hands it a connection marks that connection's socket. The next exchange on the
// socket (socket-probe.ts) claims the mark: a query written by the pool (no line of its own) is
// timed from the asking, its queued part the asking to the handing over; one written by the
// user's code after `await pool.connect()` keeps its own line, and the queue is a wait of its own
// on the connect line. An acquisition the pool's own query method makes (`pool.query`) marks the
// socket with its line even when nothing queued: the pool writes that statement from a tick, and
// the mark spares the wait probe a stack walk there and the ticks' stacks (bench/wait-cost.ts).
// The pools are found among the loaded CommonJS modules, by file: pg-pool (`pg`'s Pool), mysql2's
// pool (its promise pool wraps the same one) and tarn (Knex's pool).
import { loadedModules, ownerOf, wrapMethod } from './shared/wrap-method.ts';
import { nowUs } from './shared/clock.ts';

/** An acquisition that waited for a connection, until an exchange on that connection claims it. */
export interface PoolGrant {
  site: number;
  askedUs: number;
  grantedUs: number;
  /** The pool's size (its `max` or `connectionLimit`). */
  size: number;
  /** It waited for a connection; else only its line is lent (asked by the pool's own `query`). */
  queued: boolean;
}

export interface PoolProbe {
  /** The grant waiting on `socket` (taken: each grant is claimed once). */
  claim(socket: object): PoolGrant | undefined;
  /** Puts the pools' methods back. */
  stop(): void;
}

interface PoolKind {
  file: RegExp;
  /** The module exports the pool's class under this name (the module is the class without it). */
  exportName?: string;
  method: string;
  /** The pool's methods that take a connection and write the statement themselves. */
  queryMethods: string[];
  /** Every connection taken and none to spare: this acquisition will queue. */
  full(pool: Record<string, unknown>): boolean;
  size(pool: Record<string, unknown>): number;
  socketOf(connection: Record<string, unknown>): object | undefined;
}

const lengthOf = (v: unknown): number => Number((v as { length?: number } | undefined)?.length) || 0;
const field = (o: unknown, k: string): Record<string, unknown> =>
  ((o as Record<string, unknown> | undefined)?.[k] ?? {}) as Record<string, unknown>;

const KINDS: PoolKind[] = [
  {
    // pg-pool 2–3: connect() queues a PendingItem when `_clients` reached `options.max` and none is idle.
    file: /[\\/]pg-pool[\\/]index\.js$/,
    method: 'connect',
    queryMethods: ['query'],
    full: (p) => lengthOf(p._idle) === 0 && lengthOf(p._clients) >= Number(field(p, 'options').max),
    size: (p) => Number(field(p, 'options').max) || 0,
    socketOf: (c) => field(c, 'connection').stream as object | undefined,
  },
  {
    // mysql2 (lib/base/pool.js in 3.x, lib/pool.js before): getConnection() pushes to `_connectionQueue`.
    file: /[\\/]mysql2[\\/]lib[\\/](?:base[\\/])?pool\.js$/,
    method: 'getConnection',
    queryMethods: ['query', 'execute'],
    full: (p) => {
      const limit = Number(field(p, 'config').connectionLimit);
      return lengthOf(p._freeConnections) === 0 && limit > 0 && lengthOf(p._allConnections) >= limit;
    },
    size: (p) => Number(field(p, 'config').connectionLimit) || 0,
    socketOf: (c) => c.stream as object | undefined,
  },
  {
    // tarn 3 (Knex's pool): acquire() returns a pending operation whose `promise` gives the
    // resource, the driver's connection (pg's Client, a mysql2 connection).
    file: /[\\/]tarn[\\/]dist[\\/]Pool\.js$/,
    exportName: 'Pool',
    method: 'acquire',
    queryMethods: [],
    full: (p) => lengthOf(p.free) === 0 && lengthOf(p.used) + lengthOf(p.pendingCreates) >= Number(p.max),
    size: (p) => Number(p.max) || 0,
    socketOf: (c) => (field(c, 'connection').stream ?? c.stream) as object | undefined,
  },
];

/** Marks the callbacks this probe wrapped: a pool that re-queues one (mysql2) is not wrapped twice. */
const WRAPPED = Symbol('hotline.pool-callback');

/** `where`: the user's calling line of the moment (-1: none). */
export function startPoolProbe(where: () => number): PoolProbe {
  const grants = new WeakMap<object, PoolGrant>();
  const undo: Array<() => void> = [];
  // Inside a pool's own query method (pool.query): its acquisition is made on the user's line,
  // and the pool writes the statement from its callback, where no line of the user's is.
  let inQuery = 0;
  const relaying = (): boolean => inQuery > 0;
  for (const kind of KINDS)
    for (const { exports } of loadedModules(kind.file)) {
      const cls = kind.exportName ? field(exports, kind.exportName) : exports;
      const proto = ownerOf(cls, kind.method);
      if (!proto) continue;
      undo.push(wrapMethod(proto, kind.method, (original) => acquire(kind, original, where, grants, relaying)));
      for (const method of kind.queryMethods) {
        if (!ownerOf(cls, method)) continue;
        undo.push(
          wrapMethod(
            proto,
            method,
            (original) =>
              function (this: unknown, ...args: unknown[]): unknown {
                inQuery++;
                try {
                  return original.apply(this as never, args);
                } finally {
                  inQuery--;
                }
              },
          ),
        );
      }
    }
  return {
    claim(socket) {
      const g = grants.get(socket);
      if (g) grants.delete(socket);
      return g;
    },
    stop() {
      for (const u of undo) u();
    },
  };
}

/** The pool's acquire method that notes, when the pool is full, who asked and when it was served. */
function acquire(
  kind: PoolKind,
  original: (...args: unknown[]) => unknown,
  where: () => number,
  grants: WeakMap<object, PoolGrant>,
  relaying: () => boolean,
): (this: Record<string, unknown>, ...args: unknown[]) => unknown {
  return function (this: Record<string, unknown>, ...args: unknown[]): unknown {
    let queued = false;
    const again = typeof args[0] === 'function' && WRAPPED in args[0];
    try {
      queued = kind.full(this) && !again;
    } catch {
      // a pool of another shape: not timed
    }
    // Not queued: only the pool's own query needs its line lent (a user's `pool.connect()` then
    // writes from the user's line, found on the stack at the write).
    if (!queued && (again || !relaying())) return original.apply(this, args);
    const asked = { site: where(), askedUs: nowUs(), size: kind.size(this), queued };
    if (!queued && asked.site < 0) return original.apply(this, args);
    const granted = (connection: unknown): void => {
      try {
        const socket = connection ? kind.socketOf(connection as Record<string, unknown>) : undefined;
        if (socket) grants.set(socket, { ...asked, grantedUs: nowUs() });
      } catch {
        // not timed
      }
    };
    const cb = args[0];
    if (typeof cb === 'function') {
      const callback = function (this: unknown, err: unknown, connection: unknown, ...rest: unknown[]): unknown {
        if (!err) granted(connection);
        return (cb as (...a: unknown[]) => unknown).call(this, err, connection, ...rest);
      };
      Object.defineProperty(callback, WRAPPED, { value: true });
      return original.apply(this, [callback, ...args.slice(1)]);
    }
    const result = original.apply(this, args);
    // A promise of the connection, or (tarn) an operation that holds one; this handler is the
    // first on it, so the mark is set before the caller goes on to write its query.
    const promise = (result as { promise?: unknown } | undefined)?.promise ?? result;
    if (promise && typeof (promise as Promise<unknown>).then === 'function')
      (promise as Promise<unknown>).then(granted, () => undefined);
    return result;
  };
}
