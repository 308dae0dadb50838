// `npm run bench`: every performance figure of issue 6, one module each, in turn. Prints a table
// (figure, median, spread, target, PASS/MISS) and writes bench/results.json (date, machine,
// figures). Progress goes to stderr. HOTLINE_BENCH_QUICK=1: fewer pairs, shorter windows, a
// 20 MB profile (to develop the bench, not to quote). HOTLINE_BENCH_ONLY=honest,analysis,…
// runs some modules only: honest (figures 1–2), gate, generator, analysis, editor (5–6), heatmap, footprint.
// Those two write bench/out/results-{quick,partial}.json, never the recorded bench/results.json.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { benchAnalysisSpeed, bigProfile } from './analysis-speed.ts';
import { BENCH_DIR, QUICK, REPO, progress, tmpDir, type Figure } from './common.ts';
import { benchEditorLatency, type EditorLatency } from './editor-latency.ts';
import { benchFootprint } from './footprint.ts';
import { benchGate } from './gate.ts';
import { benchGenerator } from './generator.ts';
import { benchHonest } from './honest.ts';
import { benchHeatmap, type HeatmapBench } from './heatmap.ts';
import { benchProfilerCost } from './profiler-cost.ts';

const ONLY = process.env.HOTLINE_BENCH_ONLY?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const wanted = (m: string): boolean => !ONLY || ONLY.includes(m);

/** Runs one module; a module that throws becomes a MISS line with its message, not a dead bench. */
async function section(name: string, figures: Figure[], work: () => Promise<Figure[]>): Promise<void> {
  const t0 = Date.now();
  progress(`== ${name}`);
  try {
    figures.push(...(await work()));
  } catch (err) {
    const message = (err as Error).message.split('\n')[0];
    progress(`${name} failed: ${(err as Error).stack ?? message}`);
    figures.push({
      id: `${name}-failed`,
      name: `${name} (failed)`,
      median: null,
      unit: '',
      target: '',
      pass: false,
      note: message,
    });
  }
  progress(`== ${name} took ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

/** The heat map's figures: a range change in the report page (and in node, rank + cut), p90 under 100 ms. */
function heatmapFigures(b: HeatmapBench): Figure[] {
  const target = `p90 < ${b.targetMs}`;
  const out: Figure[] = [
    {
      id: 'heatmap-range-node',
      name: `heat map range change, rank + cut (${b.samples} samples, 60 s at 1 kHz)`,
      median: b.rangeChangeMs.median,
      max: b.rangeChangeMs.max,
      unit: 'ms',
      target,
      pass: b.rangeChangeMs.p90 < b.targetMs,
      samples: {
        p90: b.rangeChangeMs.p90,
        rank: b.rankMs,
        cut: b.cutMs,
        heatMapBuildMs: b.heatMapBuildMs,
        loadAverage: b.loadAverage,
      },
    },
  ];
  if ('skipped' in b.browser)
    out.push({
      id: 'heatmap-range-page',
      name: 'heat map range change in the report page',
      median: null,
      unit: 'ms',
      target,
      pass: null,
      note: b.browser.skipped,
    });
  else {
    const r = b.browser.rangeChangeMs;
    out.push({
      id: 'heatmap-range-page',
      name: 'heat map range change in the report page (select, re-rank, redraw)',
      median: r.median,
      max: r.max,
      unit: 'ms',
      target,
      pass: r.p90 < b.targetMs,
      samples: { p90: r.p90, timelineTabMs: b.browser.timelineTabMs },
    });
  }
  return out;
}

function fmt(x: number | null | undefined): string {
  if (x === null || x === undefined) return '—';
  return Math.abs(x) >= 100
    ? x.toFixed(0)
    : Math.abs(x) >= 10
      ? x.toFixed(1)
      : x.toFixed(3).replace(/\.?0+$/, '') || '0';
}

function table(figures: Figure[]): string {
  const rows = figures.map((f) => [
    f.name,
    `${fmt(f.median)} ${f.unit}`.trim(),
    f.min !== undefined && f.max !== undefined ? `${fmt(f.min)}–${fmt(f.max)}` : '',
    f.target,
    f.pass === null ? 'info' : f.pass ? 'PASS' : 'MISS',
  ]);
  const head = ['figure', 'median', 'spread (min–max)', 'target', ''];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]): string =>
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  const started = Date.now();
  const work = tmpDir('hlbench-');
  const figures: Figure[] = [];
  try {
    progress(`building (node esbuild.mjs)${QUICK ? '; QUICK mode: short settings, not for quoting' : ''}`);
    execFileSync(process.execPath, [path.join(REPO, 'esbuild.mjs')], {
      cwd: REPO,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    if (wanted('honest')) {
      await section('honest numbers + profiler cost', figures, async () => {
        const honest = await benchHonest();
        return [...honest.figures, ...(await benchProfilerCost(honest.reports))];
      });
    }
    if (wanted('gate')) await section('the CI gate', figures, benchGate);
    if (wanted('generator')) await section('load generator', figures, benchGenerator);
    if (wanted('analysis')) await section('analysis speed', figures, () => benchAnalysisSpeed(work));
    let editor: EditorLatency | undefined;
    if (wanted('editor')) {
      await section('editor latency', figures, async () => {
        editor = await benchEditorLatency(work, bigProfile(work));
        return editor.figures;
      });
    }
    if (wanted('heatmap')) await section('heat map', figures, async () => heatmapFigures(await benchHeatmap()));
    if (wanted('footprint'))
      await section('footprint', figures, async () =>
        benchFootprint(work, { ms: editor?.activationMs, text: editor?.activationText }),
      );
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  const cpus = os.cpus();
  const results = {
    date: new Date().toISOString(),
    quick: QUICK,
    durationS: Math.round((Date.now() - started) / 1000),
    machine: {
      cpu: cpus[0]?.model ?? 'unknown',
      cores: cpus.length,
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      os: `${os.type()} ${os.release()}`,
      loadAverageAtEnd: os.loadavg().map((x) => Math.round(x * 100) / 100),
    },
    figures,
  };
  // Only a full run (every module, full settings) replaces bench/results.json, the recorded figures.
  const file =
    QUICK || ONLY
      ? path.join(BENCH_DIR, 'out', `results-${QUICK ? 'quick' : 'partial'}.json`)
      : path.join(BENCH_DIR, 'results.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(results, null, 1)}\n`);
  process.stdout.write(
    `\nHotline bench — ${results.date} — ${results.machine.cpu} × ${results.machine.cores}, node ${results.machine.node}${QUICK ? ' — QUICK (not for quoting)' : ''}\n\n`,
  );
  process.stdout.write(`${table(figures)}\n\nwritten: ${path.relative(REPO, file)} (${results.durationS} s)\n`);
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? err}\n`);
  process.exitCode = 1;
});
