// The app's console in the profiled sub-windows. While an inspector is open, Node hands every
// call of the global console's methods to V8's inspector console as well as to the stream (the
// methods are wrapped at start-up, `inspector.consoleCall`): V8 then builds a console message with
// a stack trace and keeps it, whether or not a session listens. Measured here (Node 20,
// `console.log` of a short line to /dev/null): 1.8 µs closed, 4.2 µs open. The plain app never
// pays that, so a profile taken with it puts up to 2.4× the time on each console.log line, and
// the profiled window of an app that logs every request cost 1.21× the CPU per request of the
// measured one against 1.11× for the same app without logging.
//
// So, for the profiled sub-windows, the global console's printing methods are swapped for those
// of a `new Console` on the same streams (the inspector never wraps those: same output, same
// group indentation, which the copy reads from the global console), and swapped back at the
// window's end. Only methods that are still Node's own are swapped: their originals are noted
// before the app's first line (`recordConsole`, at the --inspect-brk pause), so a method the app
// replaced (a logger that patches console.log) is left alone. Not for an app attached to: its
// console's originals are not known.
import type { Evaluate } from './loop-probe.ts';

/** Where the originals and the copy live in the app. */
const STATE = `globalThis[Symbol.for('hotline.console')]`;

/** Methods that print and keep no state of their own (not count, time, group: the copy would not share it). */
const PRINTING = ['log', 'info', 'debug', 'warn', 'error', 'dir', 'dirxml', 'trace', 'table'];

/**
 * Notes the global console's methods; run before the app's code (InspectorSession.release; in a
 * child process, its preload: app/child-processes.ts).
 */
export const RECORD_CONSOLE = `(() => {
  const originals = {};
  for (const k of ${JSON.stringify(PRINTING)}) if (typeof console[k] === 'function') originals[k] = console[k];
  Object.defineProperty(globalThis, Symbol.for('hotline.console'), { value: { originals, swapped: undefined }, configurable: true, writable: true });
})();`;

export async function recordConsole(evaluate: Evaluate): Promise<void> {
  await evaluate(RECORD_CONSOLE);
}

/**
 * Swaps the methods that are still Node's own for the copy's; returns how many were swapped
 * (0: none recorded, or the app replaced them all).
 */
export async function swapConsole(evaluate: Evaluate): Promise<number> {
  return Number(
    await evaluate(`(() => {
      const state = ${STATE};
      if (!state || state.swapped) return 0;
      if (!state.copy) {
        const { Console } = process.getBuiltinModule ? process.getBuiltinModule('console') : require('console');
        const copy = new Console({ stdout: process.stdout, stderr: process.stderr });
        // The group indentation is the global console's (Node keeps it under a symbol of its own).
        const indent = Object.getOwnPropertySymbols(console).find((s) => s.description === 'kGroupIndent');
        if (indent && Object.getOwnPropertyDescriptor(copy, indent)?.configurable)
          Object.defineProperty(copy, indent, { get: () => console[indent], set() {}, configurable: true });
        state.copy = copy;
      }
      const swapped = {};
      let n = 0;
      for (const [k, original] of Object.entries(state.originals)) {
        if (console[k] !== original || typeof state.copy[k] !== 'function') continue;
        console[k] = swapped[k] = state.copy[k];
        n++;
      }
      state.swapped = swapped;
      return n;
    })()`),
  );
}

/** Puts the originals back where the copy's still are (an app's own replacement meanwhile stays). */
export async function restoreConsole(evaluate: Evaluate): Promise<void> {
  await evaluate(`(() => {
    const state = ${STATE};
    if (!state || !state.swapped) return;
    for (const [k, copy] of Object.entries(state.swapped)) if (console[k] === copy) console[k] = state.originals[k];
    state.swapped = undefined;
  })()`);
}
