// A run's progress on stderr and its Ctrl-C, for `hotline profile` and `hotline gate`; with
// --verbose (or DEBUG=hotline) each step of the run as a line of its own, timed.
import { PHASE_NAMES, type RunProgress } from '../core/index.ts';

/** DEBUG as the `debug` package reads it: a comma- or space-separated list, `*` wildcards. */
export function debugWants(debug: string | undefined, name = 'hotline'): boolean {
  return (debug ?? '')
    .split(/[\s,]+/)
    .filter((p) => p !== '' && !p.startsWith('-'))
    .some((p) => new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(name));
}

let verbose = debugWants(process.env.DEBUG);
const since = Date.now();

/** --verbose: main.ts turns it on for the whole command. */
export function setVerbose(on: boolean): void {
  verbose = on || debugWants(process.env.DEBUG);
}

export function isVerbose(): boolean {
  return verbose;
}

/** One step, when verbose: `hotline: +1.2 s starting app.js`. */
export function verboseLine(text: string): void {
  if (verbose) process.stderr.write(`hotline: +${((Date.now() - since) / 1000).toFixed(1)} s ${text}\n`);
}

/** A load second's figure (`measuring: 812 req/s`), not a step of the run. */
export function isTick(p: RunProgress): boolean {
  return p.requestsPerSecond !== undefined && p.message !== PHASE_NAMES[p.phase];
}

/**
 * Phase changes as lines on stderr; per-second figures overwrite one line on a terminal. Verbose:
 * every step (start command, inspector, warm-up, each window, stop) on a line of its own.
 */
export function progressPrinter(): ((p: RunProgress) => void) & { end(): void } {
  const tty = process.stderr.isTTY === true;
  let lastPhase = '';
  let open = false;
  const fn = ((p: RunProgress) => {
    const text = p.of !== undefined ? `${p.message} [${p.second ?? 0}/${p.of} s]` : p.message;
    if (verbose && !isTick(p)) {
      if (open) process.stderr.write('\n');
      open = false;
      lastPhase = p.phase;
      verboseLine(text);
      return;
    }
    if (p.phase !== lastPhase || !tty) {
      if (open) process.stderr.write('\n');
      open = false;
      if (p.phase !== lastPhase || p.second === undefined) process.stderr.write(`hotline: ${text}\n`);
      lastPhase = p.phase;
      return;
    }
    process.stderr.write(`\r\x1b[2Khotline: ${text}`);
    open = true;
  }) as ((p: RunProgress) => void) & { end(): void };
  fn.end = () => {
    if (open) process.stderr.write('\n');
    open = false;
  };
  return fn;
}

/** The first Ctrl-C (or SIGTERM) cancels the run, which stops what it started; a second quits at once. */
export function cancelOnInterrupt(what: string): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (): void => {
    interrupts++;
    if (interrupts === 1) {
      process.stderr.write(`\nhotline: ${what} (Ctrl-C again to quit at once)\n`);
      controller.abort();
    } else {
      process.exit(130);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
