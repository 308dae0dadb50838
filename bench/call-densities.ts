// Issue 20, item 4: do captures reach the app as often during one call as during another? A
// capture sent while the app is inside a native call (`pbkdf2Sync`) runs when the call returns, so
// its wait (landing − send) is how far before the call's end it was sent: uniform over the call's
// length when sends are independent of the app, so a site's call length is twice its mean wait
// past the transit (the 2nd percentile). Where each request calls both sites once (the truth
// apps), captures ÷ length compares the send density during each call: 1 when a count of
// captures is a share of time. Reads saved runs (stacks.json `timing`); for the two most captured
// calling sites of each run prints their captures, their calls' length, the longer call's share
// of the captures and of the two lengths, and the density ratio. A general estimate (sites called
// unequally often) needs each site's number of calls: captures that ran together (< 0.8 ms apart)
// waited for one call, and Poisson sends put x/(1 − e^−x) captures on a captured call where x is
// the mean per call, so calls = captures ÷ x; its time is calls × length ("calls × length").
//
//   node --import tsx bench/call-densities.ts [run folders…]   (default: the saved runs of the
//   truth apps' pbkdf2 cases, as bench/send-moments.ts)
import * as path from 'node:path';
import { REPO, mean, median, readSavedStacks, round, truthPbkdf2Runs } from './common.ts';

/** A site needs this many captures for its mean wait to be worth reading. */
const MIN_CAPTURES = 200;
/** Sites whose calls are shorter than this, ms, are not native calls the captures waited for. */
const MIN_LENGTH_MS = 2;
/** Captures of one site that ran closer together than this waited for the same call. */
const SAME_CALL_US = 800;
/** Waits longer than this crossed into another request (a capture queued behind a late one). */
const MAX_WAIT_US = 20_000;

interface Site {
  /** The site's calling frames of the app's code, innermost first, as file:line. */
  path: string[];
  waits: number[];
  /** When each capture ran, µs. */
  ran: number[];
}

interface Density {
  label: string;
  captures: number;
  /** The calls' length, ms: twice the mean wait past the transit. */
  lengthMs: number;
  /** How many calls of the site ran in the window, estimated from the captures per captured call. */
  calls: number;
}

/** The mean x of a Poisson count whose mean when at least 1 is `perCaptured`: x / (1 − e^−x). */
function poissonMean(perCaptured: number): number {
  let lo = 1e-9;
  let hi = 100;
  for (let i = 0; i < 100; i++) {
    const x = (lo + hi) / 2;
    if (x / (1 - Math.exp(-x)) < perCaptured) lo = x;
    else hi = x;
  }
  return (lo + hi) / 2;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.floor(q * (sorted.length - 1))];
}

function densitiesOf(runDir: string): { run: string; sites: [Density, Density] } | undefined {
  const data = readSavedStacks(runDir);
  if (!data) return undefined;
  const frames = data.frames ?? [];
  const timing = data.timing ?? [];
  const sites = new Map<string, Site>();
  (data.captures ?? []).forEach((capture, i) => {
    const [sent, ran] = timing[i] ?? [0, 0];
    if (!(ran > 0)) return;
    const own = capture.map((f) => frames[f]).filter((f) => f && !f.url.startsWith('node:') && f.url !== '');
    if (own.length === 0) return;
    const sitePath = own.map((f) => `${path.basename(f.url)}:${f.line}`);
    const key = sitePath.join(' < ');
    const site = sites.get(key) ?? { path: sitePath, waits: [], ran: [] };
    site.waits.push(ran - sent);
    site.ran.push(ran);
    sites.set(key, site);
  });
  const top = [...sites.values()].sort((a, b) => b.waits.length - a.waits.length).slice(0, 2);
  if (top.length < 2 || top[1].waits.length < MIN_CAPTURES) return undefined;
  // Each site by the innermost frame where the two differ (the calling line).
  let differ = 0;
  while (differ < Math.min(top[0].path.length, top[1].path.length) - 1 && top[0].path[differ] === top[1].path[differ])
    differ++;
  const measured = top.map((site): Density => {
    const waits = site.waits.filter((w) => w < MAX_WAIT_US).sort((a, b) => a - b);
    const ran = [...site.ran].sort((a, b) => a - b);
    const captured = ran.filter((t, i) => i === 0 || t - ran[i - 1] > SAME_CALL_US).length;
    return {
      label: site.path[differ] ?? site.path[0],
      captures: site.waits.length,
      lengthMs: (2 * (mean(waits) - quantile(waits, 0.02))) / 1000,
      calls: site.waits.length / poissonMean(site.waits.length / captured),
    };
  });
  // Captures that did not wait for a native call landed at once: their waits say nothing of a call.
  if (measured.some((d) => d.lengthMs < MIN_LENGTH_MS)) return undefined;
  const sorted = measured.sort((a, b) => b.lengthMs - a.lengthMs) as [Density, Density];
  return { run: path.relative(REPO, runDir), sites: sorted };
}

const args = process.argv.slice(2);
const results = (args.length ? args : truthPbkdf2Runs())
  .map(densitiesOf)
  .filter((r): r is NonNullable<typeof r> => r !== undefined);
const ratios: number[] = [];
const shares: Record<'captures' | 'lengths' | 'calls × length', number[]> = {
  captures: [],
  lengths: [],
  'calls × length': [],
};
const spread = (xs: number[]): number => {
  const m = mean(xs);
  return Math.sqrt(mean(xs.map((x) => (x - m) ** 2)));
};
for (const { run, sites } of results) {
  const [long, short] = sites;
  const share = (a: number, b: number) => (100 * a) / (a + b);
  const captureShare = share(long.captures, short.captures);
  const lengthShare = share(long.lengthMs, short.lengthMs);
  const timeShare = share(long.calls * long.lengthMs, short.calls * short.lengthMs);
  const ratio = long.captures / long.lengthMs / (short.captures / short.lengthMs);
  ratios.push(ratio);
  shares.captures.push(captureShare);
  shares.lengths.push(lengthShare);
  shares['calls × length'].push(timeShare);
  const cell = (d: Density) => `${d.label} ${d.captures} captures, ${d.lengthMs.toFixed(2)} ms`;
  console.log(
    `${run}  ${cell(long)} | ${cell(short)} | the longer call: ${captureShare.toFixed(1)}% of captures, ` +
      `${lengthShare.toFixed(1)}% of the lengths, ${timeShare.toFixed(1)}% by calls × length; density ratio ${ratio.toFixed(2)}`,
  );
}
if (ratios.length) {
  console.log(
    `send density during the longer call ÷ during the shorter: median ${round(median(ratios), 2)} ` +
      `(${round(Math.min(...ratios), 2)}–${round(Math.max(...ratios), 2)}) over ${ratios.length} runs; 1 = independent`,
  );
  for (const [name, xs] of Object.entries(shares))
    console.log(
      `the longer call's share by ${name}: mean ${round(mean(xs), 2)}%, ` + `spread ${round(spread(xs), 2)} points`,
    );
}
