// What the route probe (async_hooks init/before/after labelling each callback with the HTTP
// request it serves, in-app/scripts/route-probe.ts) costs the app: one app process under
// continuous load (10 connections), the probe switched on and off in alternating sub-windows (off
// on, on off, …: drift cancels), each sub-window's app CPU per request (process.cpuUsage read in
// the app at its edges) and req/s, ratio = on ÷ off, median [min–max].
// Apps: test/apps/routes-mix GET /light/:id with a small unit (UNIT=20000: ~40 µs of CPU, the
// probe's share shows), examples/login-api GET /health (Express: the framework and nothing else)
// and bench/apps/async-chain.js (20 awaits a request and nothing else: the worst case, every
// promise calls the hooks three times).
// WITH_WAITS=1 keeps the wait probe (whose init hook is on in every profiled window by default) on
// in both halves: the route probe's cost on top of it.
// `node --import tsx bench/route-probe-cost.ts` (env PAIRS, SUB_S, ONLY=name,name, WITH_WAITS). Not
// in `npm run bench`.
import * as path from 'node:path';
import { LoadRun } from '../src/core/load/load-run.ts';
import { startRouteProbe, takeRouteTrace } from '../src/core/inspector/route-probe.ts';
import { startWaitProbe, takeWaitTrace } from '../src/core/inspector/wait-probe.ts';
import { APPS_DIR, sleep } from './apps.ts';
import { startInspectedApp } from './inspected-app.ts';
import { median, REPO } from './common.ts';

const PAIRS = Number(process.env.PAIRS ?? 4);
const SUB_S = Number(process.env.SUB_S ?? 2);

const APPS: Array<{ name: string; file: string; env: Record<string, string>; path: string }> = [
  {
    name: 'routes-mix',
    file: path.join(REPO, 'test', 'apps', 'routes-mix', 'server.js'),
    env: { UNIT: '20000' },
    path: '/light/7',
  },
  { name: 'express', file: path.join(REPO, 'examples', 'login-api', 'server.js'), env: {}, path: '/health' },
  { name: 'async-chain', file: path.join(APPS_DIR, 'async-chain.js'), env: {}, path: '/' },
];

async function main(): Promise<void> {
  const only = process.env.ONLY?.split(',');
  for (const app of APPS.filter((a) => !only || only.includes(a.name))) await measure(app);
}

async function measure(app: (typeof APPS)[number]): Promise<void> {
  const { port, evaluate: ev, stop } = await startInspectedApp(app.name, app.file, app.env);
  try {
    const load = await LoadRun.start({
      url: `http://127.0.0.1:${port}${app.path}`,
      connections: 10,
      maxDurationS: 300,
    });
    const withWaits = process.env.WITH_WAITS === '1';
    if (withWaits) await startWaitProbe(ev);
    try {
      await sleep(2);
      const cpu = { on: [] as number[], off: [] as number[] };
      const rps = { on: [] as number[], off: [] as number[] };
      let changesPerRequest = 0;
      for (let i = 0; i < PAIRS; i++) {
        for (const on of i % 2 === 0 ? [false, true] : [true, false]) {
          if (on) await startRouteProbe(ev);
          await sleep(0.2);
          const c0 = (await ev('process.cpuUsage()')) as NodeJS.CpuUsage;
          await load.switchPhase('measured');
          await sleep(SUB_S);
          const r = await load.switchPhase('warmup');
          const c1 = (await ev('process.cpuUsage()')) as NodeJS.CpuUsage;
          if (on) {
            const t = await takeRouteTrace(ev);
            if (t && t.requests.length > 0) changesPerRequest = t.changes.length / 2 / (t.requests.length / 7);
          }
          (on ? cpu.on : cpu.off).push((c1.user + c1.system - c0.user - c0.system) / r.requests.total);
          (on ? rps.on : rps.off).push(r.requests.perSecond);
        }
      }
      const ratios = (x: { on: number[]; off: number[] }): number[] => x.on.map((v, i) => v / x.off[i]);
      const f = (xs: number[]): string =>
        `${median(xs).toFixed(3)} [${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}]`;
      process.stdout.write(
        `${app.name.padEnd(12)}${withWaits ? ' (wait probe on)' : ''} cpu/req on÷off ${f(ratios(cpu))}   req/s on÷off ${f(ratios(rps))}   n=${PAIRS}  (off: ${median(cpu.off).toFixed(0)} µs/req, ${median(rps.off).toFixed(0)} req/s; ${changesPerRequest.toFixed(1)} label changes a request)\n`,
      );
    } finally {
      if (withWaits) await takeWaitTrace(ev).catch(() => undefined);
      await load.finish().catch(() => undefined);
    }
  } finally {
    await stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
