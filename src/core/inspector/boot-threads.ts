// Which worker threads the app started at its boot, i.e. before it first listened: a logger's
// transport (pino's thread-stream), a compiler's service thread (esbuild's, under tsx), a pool
// made at module load. The report names them so ("started at the app's boot"): their profile
// covers the whole window. The inspector's own order of events cannot tell: a worker made just
// before `server.listen()` reports itself (NodeWorker.attachedToWorker, sent once its thread is
// up) after the app's 'listening' has reached us. So the app notes, synchronously, each worker it
// makes (Node's `worker_threads` diagnostics channel, published in `new Worker()`; threadIds only
// grow), and at its first 'listening' freezes the last one: every thread up to it is a boot one.
// A Node without that channel notes none; the inspector's order still names those it can.

/** Where the app keeps it: `{ last, boot }` (threadIds; `boot` set at the first 'listening'). */
const STATE = `globalThis[Symbol.for('hotline.bootThreads')]`;

/**
 * Notes each worker thread the app makes; run before the app's code (InspectorSession.release; in
 * a start command's app, its preload: app/child-processes.ts). Costs one call per `new Worker()`.
 */
export const TRACK_BOOT_THREADS = `(() => {
  if (${STATE}) return;
  const state = ${STATE} = { last: 0, boot: undefined, off: () => {} };
  try {
    const dc = process.getBuiltinModule ? process.getBuiltinModule('diagnostics_channel') : require('diagnostics_channel');
    const seen = (m) => {
      const id = m && m.worker && m.worker.threadId;
      if (typeof id === 'number' && id > state.last) state.last = id;
    };
    dc.subscribe('worker_threads', seen);
    state.off = () => dc.unsubscribe('worker_threads', seen);
  } catch {}
})();`;

/** In the app's listen hook, at a 'listening': the first one ends the boot. */
export const BOOT_ENDS = `(() => {
  const state = ${STATE};
  if (!state || state.boot !== undefined) return;
  state.boot = state.last;
  state.off();
})();`;

/** An expression: the last threadId the app made before it first listened (undefined: not known). */
export const READ_BOOT_THREADS = `(() => { const s = ${STATE}; return s ? s.boot : undefined; })()`;
