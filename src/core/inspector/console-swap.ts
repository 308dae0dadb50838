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
// console's originals are not known. The code that runs in the app: in-app/scripts/console.ts.
import { inAppCall } from '../in-app/index.ts';
import type { Evaluate } from './loop-probe.ts';

/**
 * Notes the global console's methods; run before the app's code (InspectorSession.release; in a
 * child process, its preload: in-app/scripts/child-preload.ts).
 */
export async function recordConsole(evaluate: Evaluate): Promise<void> {
  await evaluate(inAppCall('console', 'record'));
}

/**
 * Swaps the methods that are still Node's own for the copy's; returns how many were swapped
 * (0: none recorded, or the app replaced them all).
 */
export async function swapConsole(evaluate: Evaluate): Promise<number> {
  return Number(await evaluate(inAppCall('console', 'swap')));
}

/** Puts the originals back where the copy's still are (an app's own replacement meanwhile stays). */
export async function restoreConsole(evaluate: Evaluate): Promise<void> {
  await evaluate(inAppCall('console', 'restore'));
}
