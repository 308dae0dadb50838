// Issue 20, item 4: do captures reach the app as often during one call as during another? A
// capture sent while the app is inside a native call (`pbkdf2Sync`) runs when the call returns, so
// its wait (landing − send) is how far before the call's end it was sent: uniform over the call's
// length when sends are independent of the app, so a site's call length is twice its mean wait
// past the transit (the 2nd percentile). Where each request calls both sites once (the truth
// apps), captures ÷ length compares the send density during each call: 1 when a count of
// captures is a share of time. Reads saved runs (stacks.json `timing`); for the two most captured
// calling sites of each run prints their captures, their calls' length, the longer call's share
// of the captures and of the two lengths, and the density ratio.
//
//   node --import tsx bench/call-densities.ts [run folders…]   (default: the saved runs of the
//   truth apps' pbkdf2 cases, as bench/send-moments.ts)
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO, median, round, truthPbkdf2Runs } from './common.ts';

/** A site needs this many captures for its mean wait to be worth reading. */
const MIN_CAPTURES = 200;
/** Sites whose calls are shorter than this, ms, are not native calls the captures waited for. */
const MIN_LENGTH_MS = 2;
/** Waits longer than this crossed into another request (a capture queued behind a late one). */
const MAX_WAIT_US = 20_000;

interface Frame {
  url: string;
  line: number;
  functionName: string;
}

interface Site {
  /** The site's calling frames of the app's code, innermost first, as file:line. */
  path: string[];
  waits: number[];
}

interface Density {
  label: string;
  captures: number;
  /** The calls' length, ms: twice the mean wait past the transit. */
  lengthMs: number;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.floor(q * (sorted.length - 1))];
}

function densitiesOf(runDir: string): { run: string; sites: [Density, Density] } | undefined {
  const file = path.join(runDir, 'stacks.json');
  if (!fs.existsSync(file)) return undefined;
  const data = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    frames?: Frame[];
    captures?: number[][];
    timing?: Array<[number, number]>;
  };
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
    const site = sites.get(key) ?? { path: sitePath, waits: [] };
    site.waits.push(ran - sent);
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
    const mean = waits.reduce((a, b) => a + b, 0) / waits.length;
    return {
      label: site.path[differ] ?? site.path[0],
      captures: site.waits.length,
      lengthMs: (2 * (mean - quantile(waits, 0.02))) / 1000,
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
const lengthShares: number[] = [];
for (const { run, sites } of results) {
  const [long, short] = sites;
  const captureShare = (100 * long.captures) / (long.captures + short.captures);
  const lengthShare = (100 * long.lengthMs) / (long.lengthMs + short.lengthMs);
  const ratio = long.captures / long.lengthMs / (short.captures / short.lengthMs);
  ratios.push(ratio);
  lengthShares.push(lengthShare);
  const cell = (d: Density) => `${d.label} ${d.captures} captures, ${d.lengthMs.toFixed(2)} ms`;
  console.log(
    `${run}  ${cell(long)} | ${cell(short)} | the longer call: ${captureShare.toFixed(1)}% of captures, ` +
      `${lengthShare.toFixed(1)}% of the lengths; density ratio ${ratio.toFixed(2)}`,
  );
}
if (ratios.length)
  console.log(
    `send density during the longer call ÷ during the shorter: median ${round(median(ratios), 2)} ` +
      `(${round(Math.min(...ratios), 2)}–${round(Math.max(...ratios), 2)}) over ${ratios.length} runs; 1 = independent; ` +
      `the longer call's share of the lengths: median ${round(median(lengthShares), 1)}% ` +
      `(${round(Math.min(...lengthShares), 1)}–${round(Math.max(...lengthShares), 1)})`,
  );
