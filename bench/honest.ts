// Figure 1, honest numbers: the req/s a Hotline run reports (its measured window: inspector
// attached, profiler off) ÷ the req/s of the same app started plainly (`node app.js`, no
// inspector) under the same load (Hotline's own LoadRun, same connections, warm-up and window).
// A B A B …: the plain window, then a Hotline run. The Hotline runs' reports are handed on to
// figure 2 (profiler cost at the default interval), which reads their two windows.
import { RUN_DEFAULTS } from '../src/core/capture/settings.ts';
import { APP_URL, hotlineRun, loadWindow, startPlain, type RunReport } from './apps.ts';
import { PAIRS, QUICK, alternate, ratioFigure, type Figure } from './common.ts';

export const HONEST_LOAD = { connections: RUN_DEFAULTS.connections, warmupS: QUICK ? 1 : 2, durationS: QUICK ? 2 : 5 };

export async function benchHonest(): Promise<{ figure: Figure; reports: RunReport[] }> {
  const reports: RunReport[] = [];
  const pairs = await alternate(
    PAIRS,
    'honest numbers',
    async () => {
      const app = await startPlain('json-api');
      try {
        return (await loadWindow(app.port, APP_URL['json-api'], HONEST_LOAD)).requests.perSecond;
      } finally {
        await app.stop();
      }
    },
    async () => {
      const report = await hotlineRun('json-api', HONEST_LOAD);
      reports.push(report);
      return report.load.requests.perSecond;
    },
  );
  const figure = ratioFigure({
    id: 'honest',
    name: 'Honest numbers: Hotline req/s ÷ plain-app req/s',
    unit: '×',
    target: '>= 0.98',
    atLeast: 0.98,
    invert: true,
    pairs,
    note: `json-api app, ${HONEST_LOAD.connections} connections, ${HONEST_LOAD.durationS} s windows; samples: a = plain req/s, b = Hotline req/s`,
  });
  return { figure, reports };
}
