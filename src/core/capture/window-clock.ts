// The clock of a load window: autocannon's fixed length, or an external command's own run.
import { ExternalLoad, type LoadRun } from '../load/index.ts';

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
