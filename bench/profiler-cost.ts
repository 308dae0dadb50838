// Figure 2, profiler cost: the app's CPU per request in a run's profiled window ÷ in its
// measured window (profiler off), same run, same load. The app's CPU is process CPU (all
// threads, so V8's sampling thread counts too) per wall second, read inside the app by the
// loop probe (report.eventLoop.cpu / .profiled.cpu). One run = one pair (measured, profiled).
// At the default interval the runs of figure 1 are reused; at the finest interval offered
// (the settings' minimum, 50 µs) new runs are made.
import { RUN_DEFAULTS } from '../src/core/capture/settings.ts';
import { hotlineRun, type RunReport } from './apps.ts';
import { PAIRS, progress, ratioFigure, type Figure } from './common.ts';
import { HONEST_LOAD } from './honest.ts';

/** The settings' minimum (run-settings.ts validate, package.json hotline.samplingInterval). */
export const FINEST_INTERVAL_US = 50;

function cpuPerRequest(r: RunReport): { a: number; b: number } {
  const measured = (r.eventLoop.cpu ?? NaN) * r.load.durationS / r.load.requests.total;
  const profiledTotal = r.load.profiled.requests.total ?? r.load.profiled.requests.perSecond * r.load.profiled.durationS;
  const profiled = (r.eventLoop.profiled?.cpu ?? NaN) * r.load.profiled.durationS / profiledTotal;
  // µs of CPU per request
  return { a: profiled * 1e6, b: measured * 1e6 };
}

export async function benchProfilerCost(defaultRuns: RunReport[]): Promise<Figure[]> {
  const figures: Figure[] = [
    ratioFigure({
      id: 'profiler-cost-default',
      name: `Profiler cost at ${RUN_DEFAULTS.samplingIntervalUs} µs (default): CPU/request profiled ÷ unprofiled`,
      unit: '×',
      target: '<= 1.05',
      atMost: 1.05,
      pairs: defaultRuns.map(cpuPerRequest),
      note: 'samples: a = profiled, b = unprofiled app CPU µs per request, one run each',
    }),
  ];
  const finest: RunReport[] = [];
  for (let i = 0; i < PAIRS; i++) {
    progress(`profiler cost at ${FINEST_INTERVAL_US} µs: run ${i + 1}/${PAIRS}`);
    finest.push(await hotlineRun('json-api', { ...HONEST_LOAD, samplingIntervalUs: FINEST_INTERVAL_US }));
  }
  figures.push(
    ratioFigure({
      id: 'profiler-cost-finest',
      name: `Profiler cost at ${FINEST_INTERVAL_US} µs (finest): CPU/request profiled ÷ unprofiled`,
      unit: '×',
      target: 'info (no target)',
      pairs: finest.map(cpuPerRequest),
      note: 'samples: a = profiled, b = unprofiled app CPU µs per request, one run each',
    }),
  );
  return figures;
}
