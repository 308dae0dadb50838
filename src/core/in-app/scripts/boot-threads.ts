// Which worker threads the app started at its boot, i.e. before it first listened: a logger's
// transport (pino's thread-stream), a compiler's service thread (esbuild's, under tsx), a pool
// made at module load (read by inspector/workers.ts). The report names them so ("started at the
// app's boot"): their profile covers the whole window. The inspector's own order of events cannot
// tell: a worker made just before `server.listen()` reports itself (NodeWorker.attachedToWorker,
// sent once its thread is up) after the app's 'listening' has reached us. So the app notes, synchronously, each worker it makes (Node's `worker_threads` diagnostics channel,
// published in `new Worker()`; threadIds only grow), and at its first 'listening' freezes the
// last one: every thread up to it is a boot one. A Node without that channel notes none.
import { builtin } from './shared/builtins.ts';
import { readSlot, writeSlot } from './shared/state.ts';

interface State {
  last: number;
  boot: number | undefined;
  off: () => void;
}

const SLOT = 'hotline.bootThreads';

/** Notes each worker thread the app makes; run before the app's code. Costs one call per `new Worker()`. */
export function track(): void {
  if (readSlot<State>(SLOT)) return;
  const state = writeSlot<State>(SLOT, { last: 0, boot: undefined, off: () => undefined });
  try {
    const dc = builtin('diagnostics_channel');
    const seen = (m: unknown): void => {
      const id = (m as { worker?: { threadId?: unknown } } | undefined)?.worker?.threadId;
      if (typeof id === 'number' && id > state.last) state.last = id;
    };
    dc.subscribe('worker_threads', seen);
    state.off = () => dc.unsubscribe('worker_threads', seen);
  } catch {
    // no such channel (an older Node): the inspector's order names what it can
  }
}

/** At a 'listening': the first one ends the boot. */
export function bootEnds(): void {
  const state = readSlot<State>(SLOT);
  if (!state || state.boot !== undefined) return;
  state.boot = state.last;
  state.off();
}

/** The last threadId the app made before it first listened (undefined: not known). */
export function read(): number | undefined {
  return readSlot<State>(SLOT)?.boot;
}
