// A run's progress on stderr and its Ctrl-C, for `hotline profile` and `hotline gate`.
import type { RunProgress } from '../core/index.ts';

/** Phase changes as lines on stderr; per-second figures overwrite one line on a terminal. */
export function progressPrinter(): ((p: RunProgress) => void) & { end(): void } {
  const tty = process.stderr.isTTY === true;
  let lastPhase = '';
  let open = false;
  const fn = ((p: RunProgress) => {
    const text = p.of !== undefined ? `${p.message} [${p.second ?? 0}/${p.of} s]` : p.message;
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
