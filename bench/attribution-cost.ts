// What exact attribution costs the app (issue: "the line shown is the line that costs"). Hotline
// runs of the same app and load, alternating with the stack captures on (the default rate) and
// off (rate 0), 5 pairs:
//   - the measured window (the figures the report leads with): app CPU per request, on ÷ off.
//     Nothing of the attribution runs there, so this must be 1 within noise (target >= 0.98 as
//     off ÷ on, i.e. on costs at most 2%);
//   - the profiled window: app CPU per request, on ÷ off: what the captures add while profiling.
// App CPU is process CPU (all threads) per wall second, read inside the app by the loop probe.
// Run: npm run bench:attribution (HOTLINE_BENCH_QUICK=1 for 2 short pairs).
import { DEFAULT_STACK_RATE_HZ } from '../src/core/capture/stacks/stack-sampler.ts';
import { hotlineRun, type AppName, type RunReport } from './apps.ts';
import { PAIRS, QUICK, alternate, progress, ratioFigure, type Figure } from './common.ts';

const LOAD = { connections: 10, warmupS: 2, durationS: QUICK ? 3 : 5 };
const APPS: AppName[] = ['json-api', 'heavy'];

function cpuPerRequestUs(r: RunReport, window: 'measured' | 'profiled'): number {
  if (window === 'measured') return ((r.eventLoop.cpu ?? NaN) * r.load.durationS * 1e6) / r.load.requests.total;
  const requests = r.load.profiled.requests.total ?? r.load.profiled.requests.perSecond * r.load.profiled.durationS;
  return ((r.eventLoop.profiled?.cpu ?? NaN) * r.load.profiled.durationS * 1e6) / requests;
}

export async function benchAttributionCost(): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const app of APPS) {
    const pairs = await alternate(
      PAIRS,
      `attribution cost (${app})`,
      () => hotlineRun(app, { ...LOAD, stackRateHz: DEFAULT_STACK_RATE_HZ }),
      () => hotlineRun(app, { ...LOAD, stackRateHz: 0 }),
    );
    figures.push(
      ratioFigure({
        id: `attribution-measured-${app}`,
        name: `Measured window, ${app}: CPU/request without ÷ with the stack captures`,
        unit: '×',
        target: '>= 0.98',
        atLeast: 0.98,
        pairs: pairs.map((p) => ({ a: cpuPerRequestUs(p.b, 'measured'), b: cpuPerRequestUs(p.a, 'measured') })),
        note: 'a = captures off, b = captures on: app CPU µs per request in the window without the profiler',
      }),
    );
    figures.push(
      ratioFigure({
        id: `attribution-profiled-${app}`,
        name: `Profiled window, ${app}: CPU/request with ÷ without the stack captures (${DEFAULT_STACK_RATE_HZ} Hz)`,
        unit: '×',
        target: "info (the profiled window's cost)",
        pairs: pairs.map((p) => ({ a: cpuPerRequestUs(p.a, 'profiled'), b: cpuPerRequestUs(p.b, 'profiled') })),
        note: 'a = captures on, b = captures off: app CPU µs per request in the profiled window',
      }),
    );
  }
  return figures;
}

if (require.main === module) {
  void benchAttributionCost().then(
    (figures) => {
      for (const f of figures) {
        const verdict = f.pass === null ? '' : f.pass ? '  PASS' : '  MISS';
        console.log(`${f.name}: ${f.median}${f.unit} (${f.min}–${f.max}), target ${f.target}${verdict}`);
      }
    },
    (err: unknown) => {
      progress(`failed: ${(err as Error).stack ?? String(err)}`);
      process.exitCode = 1;
    },
  );
}
