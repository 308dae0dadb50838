// Figure 1, honest numbers: the req/s a Hotline run reports (its measured sub-windows: inspector
// attached, nothing of ours switched on) ÷ the req/s of the same app started plainly (`node app.js`,
// no inspector, its output read through a pipe as Hotline reads it) under the same load (Hotline's
// own LoadRun, same connections and warm-up, a window as long as the measured sub-windows
// together). Three kinds of app: a JSON API, one that logs every request with console.log, one
// that hands its work to a worker thread. A B A B …: the plain window, then a Hotline run.
// Beside req/s (which the machine's other load moves by tens of %), the app's CPU per request,
// plain ÷ measured: what the app's own work cost, the figure a busy machine moves least.
// The Hotline runs' reports go on to figure 2 (profiler cost), which reads their sub-windows.
import { RUN_DEFAULTS } from '../src/core/capture/run-settings.ts';
import { APP_URL, hotlineRun, loadWindow, startPlain, type AppName, type RunReport } from './apps.ts';
import { PAIRS, QUICK, alternate, ratioFigure, type Figure } from './common.ts';

export const HONEST_LOAD = { connections: RUN_DEFAULTS.connections, warmupS: QUICK ? 1 : 2, durationS: QUICK ? 4 : 6 };
export const HONEST_APPS: AppName[] = ['json-api', 'logging', 'worker'];

/** CPU ms per request over a run's measured sub-windows. */
export function measuredCpuPerRequest(r: RunReport): number {
  const ws = r.load.subWindows?.measured ?? [];
  const cpu = ws.reduce((t, w) => t + (w.cpuMsPerRequest ?? NaN) * w.requests, 0);
  const requests = ws.reduce((t, w) => t + w.requests, 0);
  return requests > 0 ? cpu / requests : NaN;
}

export async function benchHonest(): Promise<{ figures: Figure[]; reports: Map<AppName, RunReport[]> }> {
  const reports = new Map<AppName, RunReport[]>();
  const figures: Figure[] = [];
  for (const app of HONEST_APPS) {
    const runs: RunReport[] = [];
    const pairs = await alternate(
      PAIRS,
      `honest numbers, ${app}`,
      async () => {
        const plain = await startPlain(app);
        try {
          const r = await loadWindow(plain.port, APP_URL[app], HONEST_LOAD, plain.cpuS);
          return { rps: r.requests.perSecond, cpu: r.cpuMsPerRequest ?? NaN };
        } finally {
          await plain.stop();
        }
      },
      async () => {
        const report = await hotlineRun(app, HONEST_LOAD);
        runs.push(report);
        return { rps: report.load.requests.perSecond, cpu: measuredCpuPerRequest(report) };
      },
    );
    reports.set(app, runs);
    const note = `${app} app, ${HONEST_LOAD.connections} connections, ${HONEST_LOAD.durationS} s of measured sub-windows per run`;
    figures.push(
      ratioFigure({
        id: `honest-${app}`,
        name: `Honest numbers, ${app}: measured-window req/s ÷ plain req/s`,
        unit: '×',
        target: '>= 0.98',
        atLeast: 0.98,
        invert: true,
        pairs: pairs.map((p) => ({ a: p.a.rps, b: p.b.rps })),
        note: `${note}; samples: a = plain req/s, b = Hotline measured req/s`,
      }),
    );
    figures.push(
      ratioFigure({
        id: `honest-cpu-${app}`,
        name: `Honest numbers, ${app}: plain CPU/request ÷ measured-window CPU/request`,
        unit: '×',
        target: 'info (≈ 1)',
        invert: true,
        pairs: pairs.map((p) => ({ a: p.b.cpu, b: p.a.cpu })),
        note: `${note}; samples: a = Hotline measured, b = plain app CPU ms per request (ratio b/a: above 1 = the measured window cost the app less)`,
      }),
    );
  }
  return { figures, reports };
}
