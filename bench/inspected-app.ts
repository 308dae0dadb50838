// An app started with `--inspect=127.0.0.1:0` for the probe-cost benches (wait-cost.ts,
// route-probe-cost.ts): its inspector connected, its port accepting, and `evaluate` to run the
// probes' host calls in it. `stop` closes the session and kills the app.
import { spawn } from 'node:child_process';
import CDP from 'chrome-remote-interface';
import { accepts, freePort } from '../src/core/app/ports.ts';
import { sleep } from './apps.ts';

export interface InspectedApp {
  port: number;
  evaluate: (expression: string) => Promise<unknown>;
  stop: () => Promise<void>;
}

export async function startInspectedApp(
  name: string,
  file: string,
  env: Record<string, string>,
): Promise<InspectedApp> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--inspect=127.0.0.1:0', file], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.resume();
  let client: CDP.Client | undefined;
  const stop = async (): Promise<void> => {
    await client?.close().catch(() => undefined);
    child.kill('SIGKILL');
  };
  try {
    let err = '';
    const ws = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name}: no inspector within 10 s`)), 10_000);
      child.stderr.on('data', (d) => {
        err += d;
        const m = /ws:\/\/\S+/.exec(err);
        if (m) {
          clearTimeout(timer);
          resolve(m[0]);
        }
      });
      child.once('exit', () => reject(new Error(`${name} exited: ${err}`)));
    });
    const u = new URL(ws);
    const c = (client = await CDP({ host: u.hostname, port: Number(u.port), target: ws }));
    for (let i = 0; !(await accepts(port)); i++) {
      if (i > 500) throw new Error(`${name} does not accept connections`);
      await sleep(0.02);
    }
    const evaluate = async (expression: string): Promise<unknown> =>
      (await c.Runtime.evaluate({ expression, includeCommandLineAPI: true, returnByValue: true })).result.value;
    return { port, evaluate, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
