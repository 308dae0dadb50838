// Figure 2, profiler cost: the app's CPU per request in a run's profiled sub-windows ÷ in the
// measured sub-windows that alternate with them (same run, same load, the machine's drift shared).
// The app's CPU is process CPU (all threads, so V8's sampling thread counts too), read inside the
// app at each sub-window's edges. One run = one ratio (geometric means of its sub-windows).
// Runs: those of figure 1 (three kinds of app, default interval). Also split out: the first
// profiled sub-window (which starts with the deoptimising flush, InspectorSession.startProfiler)
// against the later ones, to show what the flush costs. At the finest interval (50 µs) new runs.
import { RUN_DEFAULTS } from '../src/core/capture/run-settings.ts';
import { DEFAULT_STACK_RATE_HZ } from '../src/core/capture/stacks/stack-sampler.ts';
import type { SubWindowFigures } from '../src/core/report/schema.ts';
import { hotlineRun, type AppName, type RunReport } from './apps.ts';
import { PAIRS, median, progress, ratioFigure, round, type Figure } from './common.ts';
import { HONEST_LOAD } from './honest.ts';

/** The settings' minimum (run-settings.ts validate, package.json hotline.samplingInterval). */
export const FINEST_INTERVAL_US = 50;

const geo = (ws: SubWindowFigures[]): number =>
  Math.exp(ws.reduce((t, w) => t + Math.log(w.cpuMsPerRequest ?? NaN), 0) / ws.length);

/** Profiled and measured CPU ms per request of one run (geometric means over its sub-windows). */
function cpuPerRequest(r: RunReport, which: 'all' | 'first' | 'later' = 'all'): { a: number; b: number } {
  const sw = r.load.subWindows!;
  const pick = (ws: SubWindowFigures[]): SubWindowFigures[] =>
    which === 'first' ? ws.slice(0, 1) : which === 'later' ? ws.slice(1) : ws;
  return { a: geo(pick(sw.profiled)), b: geo(pick(sw.measured)) };
}

export async function benchProfilerCost(byApp: Map<AppName, RunReport[]>): Promise<Figure[]> {
  const all = [...byApp.values()].flat();
  const figures: Figure[] = [
    ratioFigure({
      id: 'profiler-cost-default',
      name: `Profiler cost at ${RUN_DEFAULTS.samplingIntervalUs} µs (default): CPU/request profiled ÷ measured sub-windows`,
      unit: '×',
      target: '<= 1.05',
      atMost: 1.05,
      pairs: all.map((r) => cpuPerRequest(r)),
      note: `all runs of figure 1 (${[...byApp.keys()].join(', ')}); samples: a = profiled, b = measured app CPU ms per request, one run each`,
    }),
  ];
  for (const [app, runs] of byApp) {
    figures.push(
      ratioFigure({
        id: `profiler-cost-${app}`,
        name: `  … ${app} only`,
        unit: '×',
        target: 'info',
        pairs: runs.map((r) => cpuPerRequest(r)),
      }),
    );
  }
  const first = all.map((r) => cpuPerRequest(r, 'first'));
  const later = all.map((r) => cpuPerRequest(r, 'later'));
  figures.push(
    ratioFigure({
      id: 'profiler-cost-first-sub-window',
      name: '  … first profiled sub-window (starts with the flush) ÷ first measured',
      unit: '×',
      target: 'info',
      pairs: first,
    }),
  );
  figures.push(
    ratioFigure({
      id: 'profiler-cost-later-sub-windows',
      name: '  … later profiled sub-windows ÷ later measured',
      unit: '×',
      target: 'info',
      pairs: later,
      note: `median first/later excess: ${round(median(first.map((p) => p.a / p.b)) / median(later.map((p) => p.a / p.b)), 3)}`,
    }),
  );
  figures.push(...(await costParts()));
  const finest: RunReport[] = [];
  for (let i = 0; i < PAIRS; i++) {
    progress(`profiler cost at ${FINEST_INTERVAL_US} µs: run ${i + 1}/${PAIRS}`);
    finest.push(await hotlineRun('json-api', { ...HONEST_LOAD, samplingIntervalUs: FINEST_INTERVAL_US }));
  }
  figures.push(
    ratioFigure({
      id: 'profiler-cost-finest',
      name: `Profiler cost at ${FINEST_INTERVAL_US} µs (finest): CPU/request profiled ÷ measured`,
      unit: '×',
      target: 'info (no target)',
      pairs: finest.map((r) => cpuPerRequest(r)),
      note: 'json-api; samples: a = profiled, b = measured app CPU ms per request, one run each',
    }),
  );
  return figures;
}

/**
 * Where the default cost goes, on the JSON API: runs of three settings in turn (A B C A B C …),
 * each one ratio of profiled ÷ measured CPU per request. The CPU profiler alone (no stack
 * captures, no probes); with the probes (threadpool and HTTP waits, stalls) but no captures; and
 * the defaults (captures at DEFAULT_STACK_RATE_HZ too). The differences are each part's cost.
 */
async function costParts(): Promise<Figure[]> {
  const settings = [
    { id: 'sampling-only', name: 'the CPU profiler alone', o: { stackRateHz: 0, waits: false, stallThresholdMs: 0 } },
    { id: 'with-probes', name: 'the profiler and the wait and stall probes', o: { stackRateHz: 0 } },
    { id: 'defaults', name: `everything: stack captures at ${DEFAULT_STACK_RATE_HZ} Hz too`, o: {} },
  ];
  const runs = new Map<string, RunReport[]>(settings.map((s) => [s.id, []]));
  for (let i = 0; i < PAIRS; i++) {
    for (const s of settings) {
      progress(`profiler cost parts: ${s.id} ${i + 1}/${PAIRS}`);
      runs.get(s.id)!.push(await hotlineRun('json-api', { ...HONEST_LOAD, ...s.o }));
    }
  }
  return settings.map((s) =>
    ratioFigure({
      id: `profiler-cost-part-${s.id}`,
      name: `  … json-api, ${s.name}`,
      unit: '×',
      target: 'info',
      pairs: runs.get(s.id)!.map((r) => cpuPerRequest(r)),
      note: 'runs of the three settings in turn; a = profiled, b = measured app CPU ms per request, one run each',
    }),
  );
}
