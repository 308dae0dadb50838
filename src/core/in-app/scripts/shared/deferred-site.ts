// The calling line of work a library deferred: a pool or a queue that writes a query from a
// `process.nextTick` callback has no line of the user's code on the stack at the write. Each
// nextTick made while the probe is on keeps the stack it was made from, unformatted (V8 formats a
// captured stack only when it is read: a capture costs about a microsecond), with the tick it was
// made in; at such a write the running tick's stack, then its maker's, is read for the user's line.
// A queued item served later from another request's callbacks (a pool whose connections were
// all busy) is put on the line whose work freed the connection: the limit of following ticks.
// Only a tick made outside another tick's callback has its stack captured: one made inside one
// (a library's chain of ticks) has no line of the user's code above it that its maker's stack
// lacks, and links to its maker instead. pg's pool makes ~12 ticks a request, 2 outside a tick:
// capturing all of them cost the app more CPU than the request itself (bench/wait-cost.ts).
import { builtin } from './builtins.ts';
import { userSiteOf, type SiteTable } from './call-site.ts';

interface Made {
  /** The stack it was made from; none when made inside another tick's callback (see parent). */
  holder: { stack?: unknown } | undefined;
  parent: Made | undefined;
  /** The user's site once read (-1: none in this stack). */
  site?: number;
}

/** Frames kept of the stack a tick was made from (the wait probe's init hook is one of them). */
const DEPTH = 17;
/** Ticks followed back from the running one. */
const HOPS = 6;

export interface DeferredSites {
  /** The user's line the running tick (or one it came from) was made on; -1 when none. */
  site(): number;
  /** Called by the wait probe's init hook for every TickObject made while it is on. */
  tickMade(resource: object): void;
  /**
   * Keeps ticks' stacks from now on. Off until a write had no line: the pools the pool probe knows
   * lend theirs, and keeping every tick's stack cost a pg app more than its own work.
   */
  keep(): void;
}

export function deferredSites(table: SiteTable): DeferredSites {
  const ah = builtin('async_hooks');
  const made = new WeakMap<object, Made>();
  let keeping = false;
  const tickMade = (resource: object): void => {
    if (!keeping) return;
    const parent = made.get(ah.executionAsyncResource());
    if (parent) {
      made.set(resource, { holder: undefined, parent });
      return;
    }
    const E = Error;
    const limit = E.stackTraceLimit;
    try {
      E.stackTraceLimit = DEPTH;
      const holder = {};
      E.captureStackTrace(holder, tickMade);
      made.set(resource, { holder, parent });
    } finally {
      E.stackTraceLimit = limit;
    }
  };
  return {
    tickMade,
    keep() {
      keeping = true;
    },
    site(): number {
      let m = made.get(ah.executionAsyncResource());
      // Hops count captured stacks: ticks without one only link to their maker.
      for (let hop = 0; m && hop < HOPS; m = m.parent) {
        if (!m.holder) continue;
        hop++;
        if (m.site === undefined) m.site = userSiteOf(table, m.holder);
        if (m.site >= 0) return m.site;
      }
      return -1;
    },
  };
}
