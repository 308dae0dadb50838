// Issue 20, item 4: are capture send moments independent of the app's phases? A capture of an app
// inside a native call runs when the call returns, so its landing moment marks a call's end. If
// the driver's sends were independent of the app, the share of sends that fall within x µs after
// the latest landing would equal the share of the time that lies within x µs after a landing. A
// send timer that fires when the driver wakes for a capture's answer puts too many sends there.
// Reads saved runs (stacks.json `timing`: [sent, ran] µs on one clock); prints, per run, both
// shares for x = 200, 500 and 1000 µs, and the excess (observed ÷ expected) at 200 µs.
//
//   node --import tsx bench/send-moments.ts [run folders…]   (default: every saved run of the
//   truth apps' pbkdf2 cases: test/apps/truth/{two-levels,helper-two-sites,two-calls}/.hotline/runs/*)
import * as path from 'node:path';
import { REPO, median, readSavedStacks, round, truthPbkdf2Runs } from './common.ts';

/** Two landings further apart than this are in different sub-windows (the profiler was off). */
const SAME_WINDOW_US = 100_000;
const SPANS_US = [200, 500, 1000];

interface Shares {
  run: string;
  sends: number;
  /** Per span: [observed share, expected share] of sends within it after a landing. */
  bySpan: Array<[number, number]>;
}

function sharesOf(runDir: string): Shares | undefined {
  const timing = readSavedStacks(runDir)?.timing ?? [];
  const sends = timing.map((t) => t[0]).sort((a, b) => a - b);
  const lands = timing
    .map((t) => t[1])
    .filter((t) => t > 0)
    .sort((a, b) => a - b);
  if (lands.length < 100) return undefined;
  const bySpan = SPANS_US.map((span): [number, number] => {
    let within = 0;
    let total = 0;
    for (let i = 0; i + 1 < lands.length; i++) {
      const gap = lands[i + 1] - lands[i];
      if (gap > SAME_WINDOW_US) continue;
      total += gap;
      within += Math.min(span, gap);
    }
    let observed = 0;
    let counted = 0;
    let k = 0;
    for (const t of sends) {
      while (k + 1 < lands.length && lands[k + 1] <= t) k++;
      if (lands[k] > t || k + 1 >= lands.length || lands[k + 1] - lands[k] > SAME_WINDOW_US) continue;
      counted++;
      if (t - lands[k] < span) observed++;
    }
    return [counted ? observed / counted : 0, total ? within / total : 0];
  });
  return { run: path.relative(REPO, runDir), sends: sends.length, bySpan };
}

const runs = process.argv.slice(2);
const results = (runs.length ? runs : truthPbkdf2Runs()).map(sharesOf).filter((r): r is Shares => r !== undefined);
for (const r of results) {
  const cells = r.bySpan.map(
    ([obs, exp], i) => `${SPANS_US[i]} µs: ${(100 * obs).toFixed(1)}% of sends, ${(100 * exp).toFixed(1)}% of time`,
  );
  console.log(`${r.run} (${r.sends} sends)  ${cells.join(' | ')}`);
}
const excess = results.map((r) => r.bySpan[0][0] / r.bySpan[0][1]).filter(Number.isFinite);
if (excess.length)
  console.log(
    `excess of sends in the ${SPANS_US[0]} µs after a landing (observed ÷ expected): median ${round(median(excess), 2)} ` +
      `(${round(Math.min(...excess), 2)}–${round(Math.max(...excess), 2)}) over ${excess.length} runs; 1 = independent`,
  );
