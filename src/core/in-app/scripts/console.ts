// The app's console in the profiled sub-windows (host side: inspector/console-swap.ts, which says
// why). The global console's printing methods are swapped for those of a `new Console` on the same
// streams (the inspector never wraps those) and swapped back at the window's end. Only methods that
// are still Node's own are swapped: their originals are noted before the app's first line
// (`record`), so a method the app replaced (a logger that patches console.log) is left alone.
import { builtin } from './shared/builtins.ts';
import { readSlot } from './shared/state.ts';

type Method = (...args: unknown[]) => void;
type Methods = Record<string, Method>;

interface State {
  originals: Methods;
  swapped: Methods | undefined;
  copy?: Console;
}

const SLOT = 'hotline.console';

/** Methods that print and keep no state of their own (not count, time, group: the copy would not share it). */
const PRINTING = ['log', 'info', 'debug', 'warn', 'error', 'dir', 'dirxml', 'trace', 'table'];

const methods = (c: unknown): Methods => c as Methods;

/** Notes the global console's printing methods; run before the app's code. The slot is not enumerable. */
export function record(): void {
  const originals: Methods = {};
  for (const k of PRINTING) if (typeof methods(console)[k] === 'function') originals[k] = methods(console)[k];
  Object.defineProperty(globalThis, Symbol.for(SLOT), {
    value: { originals, swapped: undefined } satisfies State,
    configurable: true,
    writable: true,
  });
}

/**
 * Swaps the methods that are still Node's own for the copy's; returns how many were swapped
 * (0: none recorded, or the app replaced them all).
 */
export function swap(): number {
  const state = readSlot<State>(SLOT);
  if (!state || state.swapped) return 0;
  if (!state.copy) {
    const { Console } = builtin('console');
    const copy = new Console({ stdout: process.stdout, stderr: process.stderr });
    // The group indentation is the global console's (Node keeps it under a symbol of its own).
    const indent = Object.getOwnPropertySymbols(console).find((s) => s.description === 'kGroupIndent');
    if (indent && Object.getOwnPropertyDescriptor(copy, indent)?.configurable)
      Object.defineProperty(copy, indent, {
        get: () => (console as unknown as Record<symbol, unknown>)[indent],
        set() {},
        configurable: true,
      });
    state.copy = copy;
  }
  const swapped: Methods = {};
  let n = 0;
  for (const [k, original] of Object.entries(state.originals)) {
    const fromCopy = methods(state.copy)[k];
    if (methods(console)[k] !== original || typeof fromCopy !== 'function') continue;
    methods(console)[k] = swapped[k] = fromCopy;
    n++;
  }
  state.swapped = swapped;
  return n;
}

/** Puts the originals back where the copy's still are (an app's own replacement meanwhile stays). */
export function restore(): void {
  const state = readSlot<State>(SLOT);
  if (!state || !state.swapped) return;
  for (const [k, copy] of Object.entries(state.swapped))
    if (methods(console)[k] === copy) methods(console)[k] = state.originals[k];
  state.swapped = undefined;
}
