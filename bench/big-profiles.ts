// Issue 14 part 3, big files: generated .cpuprofile files of 100 MB, 1 GB and 2 GB (seeded,
// bench/gen-profile.ts, written to a temporary folder and deleted after each size) analyzed the
// way the language server does (analysis-child.ts: analyzeFile, the streaming reader), each run
// in a fresh process with the server's default flags. Figures:
//   - time ÷ read + JSON.parse time, alternated A B A B (5 pairs) where JSON.parse can run (a file
//     over ~512 MiB cannot be one string: there is nothing to divide by);
//   - peak RSS ÷ file size;
//   - time to the first lens: what the language server does before it publishes lenses for an
//     opened .cpuprofile (analysis-child.ts `lens`: the analysis, report.json, timeline.json, the
//     sources and the profile's copy written; the copy is made on libuv's thread pool while the
//     analysis runs, as in the server); an absolute time, as the target is one: this
//     machine, busy (each row gives the load average when it was done), so above 512 MiB it is
//     taken LENS_RUNS times and given as median and range. Its peak RSS ÷ file too.
//   - above 512 MiB, the flame graph's merged copy (its view of a file that size): time, peak RSS ÷ file.
// 1 GB and 2 GB: the analysis and the merged copy once each, the first lens LENS_RUNS times.
//
//   node --import tsx bench/big-profiles.ts [MB ...]     (default: 100 1000 2000)
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildAnalysisChild } from './analysis-speed.ts';
import { PAIRS, alternate, median, progress, round, tmpDir } from './common.ts';
import { generateProfile } from './gen-profile.ts';

interface Reading {
  ms: number;
  maxRssBytes: number;
}

/** Times the first lens of a file over 512 MiB is taken (its figure is an absolute time on a shared machine). */
const LENS_RUNS = 3;

/** A file over this cannot be read into one string, so JSON.parse cannot run on it. */
const STRING_LIMIT = 2 ** 29 - 24;

async function main(): Promise<void> {
  const sizes = process.argv.slice(2).map(Number);
  const dir = tmpDir('hlbench-big-');
  try {
    const child = await buildAnalysisChild(dir);
    const root = path.join(dir, 'root');
    fs.mkdirSync(root);
    const measure = (mode: 'parse' | 'analyze' | 'lens' | 'merge', file: string): Reading => {
      try {
        return JSON.parse(
          execFileSync(process.execPath, [child, mode, file, root], {
            encoding: 'utf8',
            maxBuffer: 1 << 20,
            stdio: ['ignore', 'pipe', 'pipe'],
          }),
        ) as Reading;
      } catch (err) {
        const e = err as { status?: number; signal?: string; stderr?: string };
        const last = (e.stderr ?? '').trim().split('\n').slice(-2).join(' ');
        throw new Error(`${mode} failed (exit ${e.status ?? e.signal}): ${last}`);
      }
    };
    const rows: Array<Record<string, unknown>> = [];
    for (const mb of sizes.length > 0 ? sizes : [100, 1000, 2000]) {
      const file = path.join(dir, `synthetic-${mb}mb.cpuprofile`);
      progress(`generating ${mb} MB`);
      const gen = generateProfile(file, mb * 1e6);
      const size = fs.statSync(file).size;
      progress(`  ${(size / 1e6).toFixed(0)} MB, ${gen.nodes} nodes, ${gen.samples} samples`);
      try {
        if (size <= STRING_LIMIT) {
          const pairs = await alternate(
            PAIRS,
            `${mb} MB`,
            async () => measure('analyze', file),
            async () => measure('parse', file),
          );
          const ratios = pairs.map((p) => p.a.ms / p.b.ms);
          progress(`${mb} MB: to the first lens, once`);
          const lens = measure('lens', file);
          rows.push({
            fileMB: round(size / 1e6, 1),
            nodes: gen.nodes,
            samples: gen.samples,
            timeOverJsonParse: {
              median: round(median(ratios)),
              min: round(Math.min(...ratios)),
              max: round(Math.max(...ratios)),
              target: '<= 1.5',
            },
            peakRssOverFile: round(median(pairs.map((p) => p.a.maxRssBytes / size))),
            jsonParsePeakRssOverFile: round(median(pairs.map((p) => p.b.maxRssBytes / size))),
            analysisS: round(median(pairs.map((p) => p.a.ms)) / 1000, 1),
            firstLensS: round(lens.ms / 1000, 1),
            firstLensPeakRssOverFile: round(lens.maxRssBytes / size),
            pairs: pairs.map((p) => ({ analyzeMs: round(p.a.ms), parseMs: round(p.b.ms) })),
          });
        } else {
          progress(`${mb} MB: analyze, once (JSON.parse cannot read a file this size)`);
          let row: Record<string, unknown>;
          try {
            const r = measure('analyze', file);
            const lens: Reading[] = [];
            for (let k = 1; k <= LENS_RUNS; k++) {
              progress(`${mb} MB: to the first lens, ${k} of ${LENS_RUNS}`);
              lens.push(measure('lens', file));
            }
            const lensS = lens.map((l) => l.ms / 1000);
            row = {
              peakRssOverFile: round(r.maxRssBytes / size),
              peakRssTarget: '<= 1.5',
              analysisS: round(r.ms / 1000, 1),
              firstLensS: {
                median: round(median(lensS), 1),
                min: round(Math.min(...lensS), 1),
                max: round(Math.max(...lensS), 1),
                runs: lensS.map((x) => round(x, 1)),
              },
              firstLensTarget: '<= 20 s',
              firstLensPeakRssOverFile: round(Math.max(...lens.map((l) => l.maxRssBytes)) / size),
            };
          } catch (err) {
            row = { failed: (err as Error).message };
          }
          // The flame graph of a file this size shows its merged copy (extension/flame/flame-merge-file.ts).
          try {
            const m = measure('merge', file);
            row.flameMergedCopy = { s: round(m.ms / 1000, 1), peakRssOverFile: round(m.maxRssBytes / size) };
          } catch (err) {
            row.flameMergedCopy = { failed: (err as Error).message };
          }
          rows.push({
            fileMB: round(size / 1e6, 1),
            nodes: gen.nodes,
            samples: gen.samples,
            timeOverJsonParse: 'JSON.parse cannot run (over 512 MiB)',
            ...row,
          });
        }
      } finally {
        fs.rmSync(file, { force: true });
      }
      // How busy the shared machine was: the figures move with it.
      rows[rows.length - 1].loadAverage = os.loadavg().map((l) => round(l, 2));
      process.stdout.write(`${JSON.stringify(rows[rows.length - 1])}\n`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 1;
});
