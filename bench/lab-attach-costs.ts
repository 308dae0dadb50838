// Lab: what each thing Hotline attaches costs the app. One app process under continuous load;
// the suspect is switched on and off in alternating sub-windows (off on on off …, so drift cancels),
// and each sub-window's app CPU per request (process.cpuUsage read in the app at its edges) and
// req/s are compared: ratio = on ÷ off. Apps: bench/apps/{json-api,logging,worker}.js.
// `node --import tsx bench/lab-attach-costs.ts` (env APPS, SUSPECTS, PAIRS, SUB_S). Not in `npm run bench`.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import CDP from 'chrome-remote-interface';
import { LoadRun } from '../src/core/load/load-run.ts';
import { accepts, freePort } from '../src/core/app/ports.ts';
import { APPS_DIR, APP_URL, sleep, type AppName } from './apps.ts';
import { median } from './common.ts';

type Suspect = 'runtime' | 'probe' | 'watchdog' | 'worker-runtime' | 'profiler-domain';
const SUSPECTS = (process.env.SUSPECTS ?? 'runtime,probe,watchdog,worker-runtime,profiler-domain').split(
  ',',
) as Suspect[];
const APPS = (process.env.APPS ?? 'json-api,logging,worker').split(',') as AppName[];
const PAIRS = Number(process.env.PAIRS ?? 6);
const SUB_S = Number(process.env.SUB_S ?? 1.5);

interface Channel {
  send(m: string, p?: object): Promise<unknown>;
  on(e: string, h: (p: never) => void): void;
}

async function main(): Promise<void> {
  for (const app of APPS) {
    const port = await freePort();
    const child = spawn(process.execPath, ['--inspect-brk=127.0.0.1:0', path.join(APPS_DIR, `${app}.js`)], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.resume();
    let err = '';
    const ws = await new Promise<string>((res, rej) => {
      child.stderr.on('data', (d) => {
        err += d;
        const m = /ws:\/\/\S+/.exec(err);
        if (m) res(m[0]);
      });
      setTimeout(() => rej(new Error('no inspector')), 10000);
    });
    const u = new URL(ws);
    const client = await CDP({ host: u.hostname, port: Number(u.port), target: ws });
    const c = client as unknown as Channel;
    const workers: string[] = [];
    let msgId = 1;
    const toWorker = (sessionId: string, method: string) =>
      c.send('NodeWorker.sendMessageToWorker', {
        sessionId,
        message: JSON.stringify({ id: msgId++, method, params: {} }),
      });
    c.on('NodeWorker.attachedToWorker', (p: { sessionId: string }) => {
      workers.push(p.sessionId);
      void toWorker(p.sessionId, 'Runtime.runIfWaitingForDebugger');
    });
    await c.send('NodeWorker.enable', { waitForDebuggerOnStart: true });
    await c.send('Runtime.runIfWaitingForDebugger');
    while (!(await accepts(port))) await sleep(0.02);
    const ev = async (expression: string): Promise<unknown> =>
      (
        (await c.send('Runtime.evaluate', { expression, includeCommandLineAPI: true, returnByValue: true })) as {
          result: { value: unknown };
        }
      ).result.value;
    const set = async (s: Suspect, on: boolean): Promise<void> => {
      switch (s) {
        case 'runtime':
          await c.send(on ? 'Runtime.enable' : 'Runtime.disable');
          return;
        case 'profiler-domain':
          await c.send(on ? 'Profiler.enable' : 'Profiler.disable');
          return;
        case 'probe':
          await ev(
            on
              ? `globalThis.__h = require('perf_hooks').monitorEventLoopDelay({ resolution: 10 }); globalThis.__h.enable(); 0`
              : `globalThis.__h?.disable(); 0`,
          );
          return;
        case 'watchdog':
          await ev(
            on
              ? `globalThis.__w = setInterval(() => { if (process.ppid !== ${process.pid}) process.exit(70); }, 500); globalThis.__w.unref(); 0`
              : `clearInterval(globalThis.__w); 0`,
          );
          return;
        case 'worker-runtime':
          for (const w of workers) await toWorker(w, on ? 'Runtime.enable' : 'Runtime.disable');
          return;
      }
    };
    const load = await LoadRun.start({
      url: `http://127.0.0.1:${port}${APP_URL[app]}`,
      connections: 10,
      maxDurationS: 600,
    });
    await sleep(2);
    for (const s of SUSPECTS) {
      if (s === 'worker-runtime' && workers.length === 0) continue;
      const cpuOn: number[] = [];
      const cpuOff: number[] = [];
      const rpsOn: number[] = [];
      const rpsOff: number[] = [];
      for (let i = 0; i < PAIRS; i++) {
        for (const on of i % 2 === 0 ? [false, true] : [true, false]) {
          await set(s, on);
          await sleep(0.2);
          const cpu0 = (await ev('process.cpuUsage()')) as NodeJS.CpuUsage;
          await load.switchPhase('measured');
          await sleep(SUB_S);
          const r = await load.switchPhase('warmup');
          const cpu1 = (await ev('process.cpuUsage()')) as NodeJS.CpuUsage;
          const cpuPerReq = (cpu1.user + cpu1.system - cpu0.user - cpu0.system) / r.requests.total;
          (on ? cpuOn : cpuOff).push(cpuPerReq);
          (on ? rpsOn : rpsOff).push(r.requests.perSecond);
        }
      }
      await set(s, false);
      const cpuR = cpuOn.map((x, i) => x / cpuOff[i]);
      const rpsR = rpsOn.map((x, i) => x / rpsOff[i]);
      const f = (xs: number[]) =>
        `${median(xs).toFixed(3)} [${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}]`;
      process.stdout.write(
        `${app.padEnd(9)} ${s.padEnd(16)} cpu/req on÷off ${f(cpuR)}   req/s on÷off ${f(rpsR)}   n=${PAIRS}  (off: ${median(cpuOff).toFixed(0)} µs/req, ${median(rpsOff).toFixed(0)} req/s)\n`,
      );
    }
    await load.finish().catch(() => undefined);
    await client.close();
    child.kill('SIGKILL');
  }
}
main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
