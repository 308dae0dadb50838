// The code Hotline runs inside the user's app. Each script is a TypeScript module under scripts/
// (type-checked against Node's types, linted, unit-tested where it has logic), compiled into one
// expression whose value is the module's exports (compiled.ts; at build time esbuild.mjs), and
// called through the inspector by `inAppCall`. Scripts import only one another (scripts/shared/)
// and Node's types: they take Node's modules at call time (shared/builtins.ts). Their state lives
// on globalThis under `Symbol.for('hotline.*')` (shared/state.ts).
//
// Which runs where, and when it is removed:
//
// | script        | runs in                                 | from → until                                      |
// | ------------- | --------------------------------------- | ------------------------------------------------- |
// | app-hooks     | the launched app (main thread)          | `listen` hook and exit guards: its first line → its end |
// | boot-threads  | the app; a start command's processes    | its first line → its first 'listening'            |
// | console       | the app; child processes (record only)  | record at its first line; swap → restore in each profiled sub-window |
// | loop-probe    | the app and each child process          | warm-up's end → the run's end (a 10 ms timer)     |
// | stall-probe   | the app                                 | each profiled sub-window (its timer clears itself) |
// | wait-probe    | the app                                 | each profiled sub-window (hooks off by an immediate) |
// | route-probe   | the app                                 | each profiled sub-window (hooks on/off by an immediate) |
// | stack-capture | the app and each child process          | each profiled sub-window's captures → its end     |
// | exit-hold     | each worker thread                      | its first line → its exit (armed in profiled sub-windows) |
// | child-preload | every Node process the app starts       | its first line (NODE_OPTIONS --require) → its end |
import { compiledScript } from './compiled.ts';
import type * as AppHooks from './scripts/app-hooks.ts';
import type * as BootThreads from './scripts/boot-threads.ts';
import type * as Console from './scripts/console.ts';
import type * as LoopProbe from './scripts/loop-probe.ts';
import type * as StallProbe from './scripts/stall-probe.ts';
import type * as WaitProbe from './scripts/wait-probe.ts';
import type * as RouteProbe from './scripts/route-probe.ts';
import type * as StackCapture from './scripts/stack-capture.ts';
import type * as ExitHold from './scripts/exit-hold.ts';
import type * as ChildPreload from './scripts/child-preload.ts';

/** The in-app scripts by name (scripts/<name>.ts) and their exports. */
export interface InAppScripts {
  'app-hooks': typeof AppHooks;
  'boot-threads': typeof BootThreads;
  console: typeof Console;
  'loop-probe': typeof LoopProbe;
  'stall-probe': typeof StallProbe;
  'wait-probe': typeof WaitProbe;
  'route-probe': typeof RouteProbe;
  'stack-capture': typeof StackCapture;
  'exit-hold': typeof ExitHold;
  'child-preload': typeof ChildPreload;
}

export type InAppScript = keyof InAppScripts;

type Fn = (...args: never[]) => unknown;
type FunctionsOf<S extends InAppScript> = {
  [F in keyof InAppScripts[S]]: InAppScripts[S][F] extends Fn ? F : never;
}[keyof InAppScripts[S]] &
  string;
type ArgsOf<S extends InAppScript, F extends FunctionsOf<S>> = InAppScripts[S][F] extends (...args: infer A) => unknown
  ? A
  : never;

/** The URL an in-app script's frames carry in the app's stacks and profiles (`hotline:` scripts are Hotline's own). */
export const inAppUrl = (script: InAppScript): string => `hotline:${script}`;

/**
 * The expression that calls `fn` of the in-app script `script` with `args` (as JSON) inside the
 * app, named `hotline:<script>` so that its frames are counted as Hotline's own.
 */
export function inAppCall<S extends InAppScript, F extends FunctionsOf<S>>(
  script: S,
  fn: F,
  ...args: ArgsOf<S, F>
): string {
  return `${callText(script, fn, args)}\n//# sourceURL=${inAppUrl(script)}`;
}

/** The script's text as a statement that calls `fn` with `args`: for a file the app loads (a preload). */
export function inAppStatement<S extends InAppScript, F extends FunctionsOf<S>>(
  script: S,
  fn: F,
  ...args: ArgsOf<S, F>
): string {
  return `${callText(script, fn, args)};\n`;
}

/** `<the script's exports>.fn(args as JSON)`. */
const callText = (script: InAppScript, fn: string, args: readonly unknown[]): string =>
  `${compiledScript(script)}.${fn}(${args.map((a) => JSON.stringify(a)).join(', ')})`;

export type { TakenWaits } from './scripts/wait-probe.ts';
export type { TakenRoutes } from './scripts/route-probe.ts';
export type { TakenStalls } from './scripts/stall-probe.ts';
export type { TakenMark } from './scripts/loop-probe.ts';
export type { PreloadEnv } from './scripts/child-preload.ts';
export { SLOT as CAPTURE_SLOT, UNUSABLE as CAPTURE_UNUSABLE } from './scripts/stack-capture.ts';
