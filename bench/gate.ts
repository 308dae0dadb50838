// Figure: the CI gate (`--fail-if-slower`) on this machine. Runs of bench/apps/gate.js at the
// default settings, alternating identical code (A) and the same code with its hot line made 10%
// costlier (B, HOT_SCALE=1.1): A B A B … A. False alarms: the gate on each pair of consecutive A
// runs (identical code) — target ≤ 1 in 20. Detection: the gate on each A run and the B run after
// it — target ≥ 19 in 20. The gate is the CLI's own (compareReports + regressionGate), at the
// README's 5% and, for information, 2% and 0% (significance alone). The runs' sub-windows are
// written to bench/out/gate-windows.json.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compareReports } from '../src/core/report/compare.ts';
import { regressionGate } from '../src/core/report/gate.ts';
import { RUN_DEFAULTS } from '../src/core/capture/settings.ts';
import { hotlineRun, type RunReport } from './apps.ts';
import { BENCH_DIR, QUICK, median, progress, round, type Figure } from './common.ts';
import { measuredCpuPerRequest } from './honest.ts';

const COMPARISONS = QUICK ? 2 : 20;
const THRESHOLDS = [5, 2, 0];
const LOAD = {
  connections: RUN_DEFAULTS.connections,
  warmupS: RUN_DEFAULTS.warmupS,
  durationS: QUICK ? 4 : RUN_DEFAULTS.durationS,
};

export async function benchGate(): Promise<Figure[]> {
  const a: RunReport[] = [];
  const b: RunReport[] = [];
  for (let i = 0; i <= COMPARISONS; i++) {
    progress(`gate: A run ${i + 1}/${COMPARISONS + 1}`);
    a.push(await hotlineRun('gate', LOAD));
    if (i === COMPARISONS) break;
    progress(`gate: B run ${i + 1}/${COMPARISONS} (hot line +10%)`);
    b.push(await hotlineRun('gate', { ...LOAD, env: { HOT_SCALE: '1.1' } }));
  }
  fs.mkdirSync(path.join(BENCH_DIR, 'out'), { recursive: true });
  fs.writeFileSync(
    path.join(BENCH_DIR, 'out', 'gate-windows.json'),
    JSON.stringify({ a: a.map(windowsOf), b: b.map(windowsOf) }, null, 1),
  );
  const failed = (base: RunReport, current: RunReport, pct: number): boolean => {
    const v = regressionGate(compareReports(base, current), pct);
    return v.decided && v.failed;
  };
  const figures: Figure[] = [];
  for (const pct of THRESHOLDS) {
    const falseAlarms = a.slice(0, COMPARISONS).filter((r, i) => failed(r, a[i + 1], pct)).length;
    const caught = b.filter((r, i) => failed(a[i], r, pct)).length;
    const main = pct === THRESHOLDS[0];
    figures.push({
      id: `gate-false-alarms-${pct}`,
      name: `Gate --fail-if-slower ${pct}%: false alarms on identical code`,
      median: falseAlarms,
      unit: `of ${COMPARISONS}`,
      target: main ? `<= ${COMPARISONS / 20}` : 'info',
      pass: main ? falseAlarms <= COMPARISONS / 20 : null,
    });
    figures.push({
      id: `gate-detection-${pct}`,
      name: `Gate --fail-if-slower ${pct}%: 10% costlier hot line caught`,
      median: caught,
      unit: `of ${COMPARISONS}`,
      target: main ? `>= ${(COMPARISONS * 19) / 20}` : 'info',
      pass: main ? caught >= (COMPARISONS * 19) / 20 : null,
    });
  }
  const effect = b.map((r, i) => measuredCpuPerRequest(r) / measuredCpuPerRequest(a[i]));
  const noise = a.slice(0, COMPARISONS).map((r, i) => measuredCpuPerRequest(a[i + 1]) / measuredCpuPerRequest(r));
  figures.push({
    id: 'gate-effect',
    name: 'Gate runs: CPU/request B ÷ A (the regression as measured)',
    median: round(median(effect)),
    min: round(Math.min(...effect)),
    max: round(Math.max(...effect)),
    unit: '×',
    target: 'info',
    pass: null,
    note: `identical code A ÷ A: median ${round(median(noise))}, ${round(Math.min(...noise))}–${round(Math.max(...noise))}`,
  });
  return figures;
}

function windowsOf(r: RunReport): unknown {
  return { subWindows: r.load.subWindows, utilization: r.eventLoop.utilization, cpu: r.eventLoop.cpu };
}
