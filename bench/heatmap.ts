// The heat map stays interactive on a big profile: a synthetic 60 s profile sampled at 1 kHz
// (60 000 samples; stacks 8–30 frames deep through an app's handlers, its dependencies, Node
// internals and native code; idle stretches and bursts), analyzed once, then:
//   - the heat map grid built once (what the Timeline tab draws),
//   - per range change: rankRange (the page re-ranks the lines) + cutProfile (the extension cuts
//     the profile for the flame graph) over 25 random ranges from 20 ms to 20 s; median, p90
//     and max; the verdict is p90 against the 100 ms target (the max on a shared machine is the
//     scheduler's, so the load average is printed with it).
// Times are wall-clock on this machine (shared, noisy): read them as an order of magnitude.
//
//   npm run bench:heatmap      (node --import tsx bench/heatmap.ts)
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { analyzeProfileWithTimeline } from '../src/core/analysis/analyze.ts';
import { readCpuProfile, type CpuProfile, type CpuProfileNode } from '../src/core/profile/cpuprofile.ts';
import { cutProfile, heatMap, rankRange, sampleStarts } from '../src/core/analysis/time/timeline.ts';
import { buildReport } from '../src/core/report/schema.ts';
import { browserFigures } from './heatmap-browser.ts';
import { seededRandom } from './gen-profile.ts';

export interface HeatmapBench {
  samples: number;
  nodes: number;
  /** Analysis + timeline of the whole profile (done once per run, in the language server). */
  analyzeMs: number;
  /** timeline.json's size. */
  timelineBytes: number;
  /** JSON.parse of timeline.json + the heat map grid: what opening the tab costs. */
  heatMapBuildMs: number;
  ranges: number;
  /** rankRange + cutProfile per range change. */
  rangeChangeMs: Stats;
  rankMs: Stats;
  cutMs: Stats;
  /** The same in the real report page in Chromium (see heatmap-browser.ts), or why it was skipped. */
  browser: { renderMs: number; timelineTabMs: number; rangeChangeMs: Stats } | { skipped: string };
  /** The machine's 1-minute load average when the bench ran: on a shared machine the max is its noise. */
  loadAverage: number;
  targetMs: number;
  pass: boolean;
}

const TARGET_MS = 100;
const RANGES = 25;
const ROOT = '/bench/app';

/** 60 s × 1 kHz: a tree of a few thousand nodes, samples with idle gaps and busy bursts. */
export function syntheticProfile(seconds = 60, hz = 1000, seed = 7): CpuProfile {
  const rnd = seededRandom(seed);
  const nodes: CpuProfileNode[] = [];
  const add = (
    parent: CpuProfileNode | undefined,
    functionName: string,
    url: string,
    line0: number,
    ticksLine?: number,
  ): CpuProfileNode => {
    const node: CpuProfileNode = {
      id: nodes.length + 1,
      callFrame: {
        functionName,
        scriptId: url ? String(10 + (nodes.length % 40)) : '0',
        url,
        lineNumber: line0,
        columnNumber: url ? 2 : -1,
      },
      hitCount: 0,
    };
    if (ticksLine !== undefined) node.positionTicks = [{ line: ticksLine, ticks: 1 }];
    nodes.push(node);
    if (parent) (parent.children ??= []).push(node.id);
    return node;
  };
  const root = add(undefined, '(root)', '', -1);
  const idle = add(root, '(idle)', '', -1);
  const program = add(root, '(program)', '', -1);
  const gc = add(root, '(garbage collector)', '', -1);
  const appFile = (i: number): string => pathToFileURL(`${ROOT}/src/module${i}.js`).href;
  const depFile = (i: number): string => pathToFileURL(`${ROOT}/node_modules/dep${i}/index.js`).href;
  const leaves: CpuProfileNode[] = [];
  // Request handling: node internals → the app's handlers → helpers → dependencies → native.
  const tick = add(root, 'processTicksAndRejections', 'node:internal/process/task_queues', 94);
  const listen = add(root, 'emit', 'node:events', 516);
  const grow = (parent: CpuProfileNode, depth: number): void => {
    const kids = depth < 3 ? 4 : depth < 8 ? 2 : 1;
    for (let k = 0; k < kids; k++) {
      const kind = rnd();
      const line0 = Math.floor(rnd() * 300);
      const child =
        kind < 0.45
          ? add(
              parent,
              `handler${depth}_${k}`,
              appFile(Math.floor(rnd() * 30)),
              line0,
              line0 + 1 + Math.floor(rnd() * 20),
            )
          : kind < 0.8
            ? add(parent, `dep${depth}_${k}`, depFile(Math.floor(rnd() * 15)), line0)
            : kind < 0.92
              ? add(parent, `internal${depth}`, 'node:internal/streams/writable', line0)
              : add(parent, 'nativeCall', '', -1, 1 + line0);
      leaves.push(child);
      if (depth < 8 + Math.floor(rnd() * 22) && nodes.length < 4000 && rnd() < 0.85) grow(child, depth + 1);
    }
  };
  grow(tick, 0);
  grow(listen, 0);
  const samples: number[] = [];
  const total = seconds * hz;
  for (let s = 0; s < total; s++) {
    // Busy in bursts: the first 300 ms of every second, plus random traffic the rest of the time.
    const inBurst = s % hz < 0.3 * hz;
    const r = rnd();
    const node =
      inBurst || r < 0.35 ? (r < 0.02 ? gc : r < 0.04 ? program : leaves[Math.floor(rnd() * leaves.length)]) : idle;
    node.hitCount = (node.hitCount ?? 0) + 1;
    samples.push(node.id);
  }
  const interval = 1e6 / hz;
  // Real deltas jitter around the interval.
  const timeDeltas = samples.map((_, i) => (i === 0 ? 0 : Math.round(interval * (0.9 + rnd() * 0.2))));
  const startTime = 1_000_000;
  const endTime = startTime + timeDeltas.reduce((a, b) => a + b, 0) + interval;
  return readCpuProfile({ nodes, startTime, endTime, samples, timeDeltas });
}

interface Stats {
  median: number;
  p90: number;
  max: number;
}

const stats = (xs: number[]): Stats => {
  const sorted = [...xs].sort((a, b) => a - b);
  const round = (v: number): number => Math.round(v * 1000) / 1000;
  return {
    median: round(sorted[sorted.length >> 1]),
    p90: round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.9))]),
    max: round(sorted[sorted.length - 1]),
  };
};

export async function benchHeatmap(): Promise<HeatmapBench> {
  const profile = syntheticProfile();
  let t0 = performance.now();
  const { timeline, analysis } = analyzeProfileWithTimeline({ profile, root: ROOT });
  const analyzeMs = performance.now() - t0;
  if (!timeline) throw new Error('the synthetic profile has samples: it must have a timeline');
  const json = JSON.stringify(timeline);

  t0 = performance.now();
  const parsed = JSON.parse(json) as typeof timeline;
  const starts = sampleStarts(parsed);
  const map = heatMap(parsed, 50, starts);
  const heatMapBuildMs = performance.now() - t0;
  if (map.columns < 60) throw new Error(`expected 60 columns, got ${map.columns}`);

  const rnd = seededRandom(42);
  const endMs = parsed.endUs / 1000;
  const rank: number[] = [];
  const cut: number[] = [];
  const both: number[] = [];
  for (let i = 0; i < RANGES; i++) {
    const length = 20 + rnd() * 19_980;
    const start = rnd() * Math.max(0, endMs - length);
    let t = performance.now();
    const ranked = rankRange(parsed, start, start + length, { starts });
    const r = performance.now() - t;
    t = performance.now();
    const piece = cutProfile(profile, start, start + length);
    const c = performance.now() - t;
    if (piece.samples?.length !== ranked.samples)
      throw new Error(`range ${i}: cut ${piece.samples?.length} vs ranked ${ranked.samples} samples`);
    rank.push(r);
    cut.push(c);
    both.push(r + c);
  }
  const rangeChangeMs = stats(both);
  const report = buildReport({
    id: 'bench-heatmap',
    startedAt: new Date().toISOString(),
    app: { command: [], cwd: ROOT, pid: 0, url: '' },
    settings: {
      url: '',
      method: '',
      headers: {},
      connections: 0,
      pipelining: 0,
      durationS: 60,
      warmupS: 0,
      samplingIntervalUs: 1000,
      timeoutS: 0,
    },
    profileFile: 'profile.cpuprofile',
    analysis,
  });
  const inPage = await browserFigures(report, parsed, RANGES);
  const browser =
    typeof inPage === 'string'
      ? { skipped: inPage }
      : {
          renderMs: Math.round(inPage.renderMs),
          timelineTabMs: Math.round(inPage.timelineTabMs),
          rangeChangeMs: stats(inPage.rangeChangeMs),
        };
  // The verdict is on the 90th percentile: the max of 25 steps on a shared machine is the
  // scheduler's (it is printed beside it, with the load average).
  const browserOk = 'skipped' in browser || browser.rangeChangeMs.p90 < TARGET_MS;
  return {
    samples: parsed.sampleUs.length,
    nodes: profile.nodes.length,
    analyzeMs: Math.round(analyzeMs),
    timelineBytes: json.length,
    heatMapBuildMs: Math.round(heatMapBuildMs * 10) / 10,
    ranges: RANGES,
    rangeChangeMs,
    rankMs: stats(rank),
    cutMs: stats(cut),
    browser,
    loadAverage: Math.round(os.loadavg()[0] * 10) / 10,
    targetMs: TARGET_MS,
    pass: rangeChangeMs.p90 < TARGET_MS && heatMapBuildMs < TARGET_MS && browserOk,
  };
}

async function main(): Promise<void> {
  const b = await benchHeatmap();
  const verdict = (ms: number): string => (ms < TARGET_MS ? 'PASS' : 'MISS');
  const fig = (x: Stats): string => `median ${x.median} ms, p90 ${x.p90} ms, max ${x.max} ms`;
  console.log(
    `heat map bench: ${b.samples} samples (60 s at 1 kHz), ${b.nodes} nodes; analysis + timeline ${b.analyzeMs} ms; timeline.json ${(b.timelineBytes / 1024).toFixed(0)} KiB; load average ${b.loadAverage}`,
  );
  console.log(
    `  heat map build (parse + grid)   ${b.heatMapBuildMs} ms   ${verdict(b.heatMapBuildMs)} (target < ${TARGET_MS} ms)`,
  );
  console.log(
    `  per range change, ${b.ranges} ranges (rankRange + cutProfile)  ${fig(b.rangeChangeMs)}   ${verdict(b.rangeChangeMs.p90)} (p90 < ${TARGET_MS} ms)`,
  );
  console.log(`    rankRange  ${fig(b.rankMs)}; cutProfile  ${fig(b.cutMs)}`);
  if ('skipped' in b.browser) console.log(`  in the report page: skipped (${b.browser.skipped})`);
  else {
    console.log(
      `  in the report page (Chromium): report render ${b.browser.renderMs} ms, of which the Timeline tab ${b.browser.timelineTabMs} ms (once, when the report opens)`,
    );
    console.log(
      `    per range change (drag step: select, re-rank, redraw)  ${fig(b.browser.rangeChangeMs)}   ${verdict(b.browser.rangeChangeMs.p90)} (p90 < ${TARGET_MS} ms)`,
    );
  }
  console.log(b.pass ? 'PASS' : 'MISS');
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
