// How a run waits: the clock of a load window (autocannon's fixed length, or an external
// command's own run), and what a failed command to the app really means.
import { ExternalLoad, type LoadRun } from '../load/index.ts';
import type { InspectorSession } from '../inspector/index.ts';
import { RunError } from '../common/index.ts';

export interface WindowClock {
  over(): boolean;
  /** Waits until the window ends or `maxS` pass, whichever is first. */
  next(maxS?: number): Promise<void>;
}

/**
 * A load window from now: `durationS` for autocannon; for an external command, as long as it
 * runs. `wait` and `race` are the run's own (they stop on cancel and on the app's exit).
 */
export function windowClock(
  load: LoadRun | ExternalLoad | undefined,
  durationS: number,
  wait: (s: number) => Promise<void>,
  race: <T>(p: Promise<T>) => Promise<T>,
): WindowClock {
  const started = Date.now();
  if (load instanceof ExternalLoad) {
    let ended = false;
    const end = load.windowEnded.then(() => {
      ended = true;
    });
    return {
      over: () => ended,
      next: async (maxS) => {
        let timer: NodeJS.Timeout | undefined;
        const tick =
          maxS === undefined
            ? new Promise<void>(() => undefined)
            : new Promise<void>((resolve) => {
                timer = setTimeout(resolve, maxS * 1000);
              });
        await race(Promise.race([end, tick])).finally(() => clearTimeout(timer));
      },
    };
  }
  const leftS = (): number => durationS - (Date.now() - started) / 1000;
  return { over: () => leftS() <= 0, next: (maxS) => wait(Math.min(maxS ?? Infinity, leftS())) };
}

/**
 * A command to the app that failed because the app just went away (its socket closed under
 * it) fails with the run's stop reason, which says so, rather than a WebSocket error. That
 * reason can come a moment after the socket error.
 */
export async function whyFailed(
  err: unknown,
  inspector: InspectorSession | undefined,
  stop: Promise<never>,
): Promise<never> {
  if (err instanceof RunError || !inspector) throw err;
  const within = <T>(ms: number, value: T): { promise: Promise<T>; clear(): void } => {
    let timer: NodeJS.Timeout | undefined;
    return {
      promise: new Promise<T>((resolve) => {
        timer = setTimeout(resolve, ms, value);
      }),
      clear: () => clearTimeout(timer),
    };
  };
  const soon = within(500, false);
  const gone = await Promise.race([inspector.closed.then(() => true), soon.promise]);
  soon.clear();
  if (gone) {
    const grace = within(3000, undefined);
    await Promise.race([stop, grace.promise]).finally(() => grace.clear());
  }
  throw err;
}
