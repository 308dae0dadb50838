// Figure 4, analysis speed: the time to analyze a synthetic 100 MB .cpuprofile the way the
// language server does (read + strict parse + analysis) ÷ the time to read it and JSON.parse it,
// alternated, each in a fresh process; and that process's peak RSS ÷ the file's size.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import {
  BENCH_DIR,
  PAIRS,
  QUICK,
  alternate,
  median,
  progress,
  ratioFigure,
  round,
  tmpDir,
  type Figure,
} from './common.ts';
import { generateProfile } from './gen-profile.ts';

interface Reading {
  ms: number;
  maxRssBytes: number;
}

export const BIG_PROFILE_MB = QUICK ? 20 : 100;

/** Generates the big profile once (seeded: the same file every time) into `dir`. */
export function bigProfile(dir: string): string {
  const file = path.join(dir, `synthetic-${BIG_PROFILE_MB}mb.cpuprofile`);
  if (!fs.existsSync(file)) {
    progress(`generating a ${BIG_PROFILE_MB} MB synthetic profile`);
    const r = generateProfile(file, BIG_PROFILE_MB * 1e6);
    progress(`  ${(r.bytes / 1e6).toFixed(1)} MB, ${r.nodes} nodes, ${r.samples} samples`);
  }
  return file;
}

/** analysis-child.ts bundled to plain JS in `dir` (no loader in the measured process's memory). */
export async function buildAnalysisChild(dir: string): Promise<string> {
  const child = path.join(dir, 'analysis-child.js');
  await esbuild.build({
    entryPoints: [path.join(BENCH_DIR, 'analysis-child.ts')],
    outfile: child,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    logLevel: 'warning',
  });
  return child;
}

export async function benchAnalysisSpeed(dir: string): Promise<Figure[]> {
  const file = bigProfile(dir);
  const size = fs.statSync(file).size;
  const child = await buildAnalysisChild(dir);
  const root = tmpDir('hlbench-root-');
  const measure = (mode: 'parse' | 'analyze'): Reading =>
    JSON.parse(
      execFileSync(process.execPath, [child, mode, file, root], { encoding: 'utf8', maxBuffer: 1 << 20 }),
    ) as Reading;
  const pairs = await alternate(
    PAIRS,
    `analysis of ${BIG_PROFILE_MB} MB`,
    async () => measure('analyze'),
    async () => measure('parse'),
  );
  fs.rmSync(root, { recursive: true, force: true });
  const mb = (size / 1e6).toFixed(0);
  return [
    ratioFigure({
      id: 'analysis-time',
      name: `Analysis time ÷ JSON.parse time (${mb} MB profile)`,
      unit: '×',
      target: '<= 1.5',
      atMost: 1.5,
      pairs: pairs.map((p) => ({ a: p.a.ms, b: p.b.ms })),
      note: 'samples: a = analysis ms, b = read + JSON.parse ms, each in a fresh process',
    }),
    {
      ...ratioFigure({
        id: 'analysis-memory',
        name: `Analysis peak RSS ÷ file size (${mb} MB profile)`,
        unit: '×',
        target: '<= 3',
        atMost: 3,
        pairs: pairs.map((p) => ({ a: p.a.maxRssBytes, b: size })),
      }),
      samples: {
        analyzePeakMB: pairs.map((p) => round(p.a.maxRssBytes / 1e6, 1)),
        parsePeakMB: pairs.map((p) => round(p.b.maxRssBytes / 1e6, 1)),
        fileMB: round(size / 1e6, 1),
        parseRssRatio: round(median(pairs.map((p) => p.b.maxRssBytes / size))),
      },
      note: 'peak RSS of the analyzing process (process.resourceUsage().maxRSS); parseRssRatio = the same for JSON.parse alone',
    },
  ];
}
