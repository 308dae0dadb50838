// What the wait probe (async_hooks on threadpool requests) and the stall probe (a 10 ms timer) cost
// the app: one app process under continuous load, the probe switched on and off in alternating
// sub-windows (off on, on off, …: drift cancels), each sub-window's app CPU per request
// (process.cpuUsage read in the app at its edges) and req/s compared, ratio = on ÷ off.
// Apps: test/apps/threadpool (one cheap pbkdf2 per request), its GET /slow (one outgoing http.get
// a request to its own /downstream after 5 ms: the HTTP part of the wait probe; the app's CPU per
// request counts both ends) and bench/apps/async-chain.js (20 awaits a request, no threadpool: the
// worst case, every promise calls the hook). With DATASTORES=1 also test/apps/datastores against
// real PostgreSQL, Redis and MariaDB servers (test/helpers/datastores.ts, started and stopped
// here): `/pg` (one 2 ms query a request) and `/n1` (8 queries a request): the socket probe's
// cost on a database-bound app.
// `node --import tsx bench/wait-cost.ts` (env PAIRS, SUB_S, DATASTORES, ONLY=name,name). Not in
// `npm run bench`.
import * as path from 'node:path';
import { LoadRun } from '../src/core/load/load-run.ts';
import { startWaitProbe, takeWaitTrace } from '../src/core/inspector/wait-probe.ts';
import { startStallProbe, takeStallGaps } from '../src/core/inspector/stall-probe.ts';
import { APPS_DIR, sleep } from './apps.ts';
import { startInspectedApp } from './inspected-app.ts';
import { median, REPO } from './common.ts';
import { startDatastores, type Datastores } from '../test/helpers/datastores.ts';

const PAIRS = Number(process.env.PAIRS ?? 6);
const SUB_S = Number(process.env.SUB_S ?? 2);

type Probe = 'waits' | 'stalls';
const THREADPOOL_APP = path.join(REPO, 'test', 'apps', 'threadpool', 'server.js');
const APPS: Array<{ name: string; file: string; env: Record<string, string>; path?: string; probes?: Probe[] }> = [
  { name: 'threadpool', file: THREADPOOL_APP, env: { ITERATIONS: '1000' } },
  { name: 'downstream', file: THREADPOOL_APP, env: { DOWNSTREAM_MS: '5' }, path: '/slow', probes: ['waits'] },
  { name: 'async-chain', file: path.join(APPS_DIR, 'async-chain.js'), env: {} },
];
const PROBES: Probe[] = ['waits', 'stalls'];
const DATASTORES_APP = path.join(REPO, 'test', 'apps', 'datastores', 'server.js');
const DATASTORE_APPS: typeof APPS = [
  { name: 'pg', file: DATASTORES_APP, env: { WAIT_MS: '2' }, path: '/pg', probes: ['waits'] },
  { name: 'pg-n1', file: DATASTORES_APP, env: { WAIT_MS: '2' }, path: '/n1', probes: ['waits'] },
];

async function main(): Promise<void> {
  const only = process.env.ONLY?.split(',');
  let servers: Datastores | undefined;
  const apps = [...APPS, ...(process.env.DATASTORES === '1' ? DATASTORE_APPS : [])].filter(
    (a) => !only || only.includes(a.name),
  );
  if (apps.some((a) => a.file === DATASTORES_APP)) servers = await startDatastores();
  try {
    await measure(apps, servers?.env ?? {});
  } finally {
    await servers?.stop();
  }
}

async function measure(apps: typeof APPS, serverEnv: Record<string, string>): Promise<void> {
  for (const app of apps) {
    const { port, evaluate: ev, stop } = await startInspectedApp(app.name, app.file, { ...serverEnv, ...app.env });
    try {
      const set = async (p: Probe, on: boolean): Promise<void> => {
        if (p === 'waits') await (on ? startWaitProbe(ev) : takeWaitTrace(ev));
        else await (on ? startStallProbe(ev, 50) : takeStallGaps(ev));
      };
      const load = await LoadRun.start({
        url: `http://127.0.0.1:${port}${app.path ?? '/'}`,
        connections: 10,
        maxDurationS: 900,
      });
      try {
        await sleep(2);
        for (const p of app.probes ?? PROBES) {
          const cpu = { on: [] as number[], off: [] as number[] };
          const rps = { on: [] as number[], off: [] as number[] };
          for (let i = 0; i < PAIRS; i++) {
            for (const on of i % 2 === 0 ? [false, true] : [true, false]) {
              await set(p, on);
              await sleep(0.2);
              const c0 = (await ev('process.cpuUsage()')) as NodeJS.CpuUsage;
              await load.switchPhase('measured');
              await sleep(SUB_S);
              const r = await load.switchPhase('warmup');
              const c1 = (await ev('process.cpuUsage()')) as NodeJS.CpuUsage;
              (on ? cpu.on : cpu.off).push((c1.user + c1.system - c0.user - c0.system) / r.requests.total);
              (on ? rps.on : rps.off).push(r.requests.perSecond);
            }
          }
          await set(p, false);
          const ratios = (x: { on: number[]; off: number[] }): number[] => x.on.map((v, i) => v / x.off[i]);
          const f = (xs: number[]): string =>
            `${median(xs).toFixed(3)} [${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}]`;
          process.stdout.write(
            `${app.name.padEnd(12)} ${p.padEnd(7)} cpu/req on÷off ${f(ratios(cpu))}   req/s on÷off ${f(ratios(rps))}   n=${PAIRS}  (off: ${median(cpu.off).toFixed(0)} µs/req, ${median(rps.off).toFixed(0)} req/s)\n`,
          );
        }
      } finally {
        await load.finish().catch(() => undefined);
      }
    } finally {
      await stop();
    }
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
