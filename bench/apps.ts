// The bench's test apps (bench/apps/*.js), started plainly (`node app.js`, no inspector) or through
// a Hotline run, and one window of Hotline's own load generator (LoadRun) against a plain app.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LoadRun, type PhaseResult } from '../src/core/load/load-run.ts';
import { accepts, freePort } from '../src/core/app/ports.ts';
import { OutputLog } from '../src/core/app/output-log.ts';
import { profileUnderLoad } from '../src/core/index.ts';
import type { ReportV1 } from '../src/core/report/schema.ts';
import { BENCH_DIR, tmpDir } from './common.ts';

export const APPS_DIR = path.join(BENCH_DIR, 'apps');
export type AppName = 'json-api' | 'hello' | 'heavy' | 'logging' | 'worker' | 'gate';
export const APP_URL: Record<AppName, string> = {
  'json-api': '/products?min=20',
  hello: '/',
  heavy: '/',
  logging: '/products?min=20',
  worker: '/rank?min=100',
  gate: '/sum',
};

export interface PlainApp {
  port: number;
  child: ChildProcess;
  /** CPU seconds (user + system) the app used so far, from /proc. */
  cpuS(): number;
  stop(): Promise<void>;
}

/**
 * `node <app>.js` with PORT set; resolves once it accepts connections. Its output goes to a file
 * (`node app.js > app.log`), as a Hotline run's does (src/core/app/output-log.ts): an app that
 * logs pays the same, and nothing reads its lines while it runs.
 */
export async function startPlain(app: AppName): Promise<PlainApp> {
  const port = await freePort();
  const log = OutputLog.open();
  // In its own session, as Hotline starts an app (launch.ts) and as a terminal starts one: with
  // Linux's autogroup scheduling a session shares the CPU as one, so an app in the bench's
  // session would compete with the load generator for one share (measured: the plain app got
  // ~0.7 of a core there while Hotline's got ~0.4 on a machine with a load of 15).
  const child = spawn(process.execPath, [path.join(APPS_DIR, `${app}.js`)], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', log.fd, log.fd],
    detached: true,
  });
  const exited = once(child, 'exit');
  const deadline = Date.now() + 15_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      log.close();
      throw new Error(`bench app ${app} did not start listening on ${port}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    port,
    child,
    cpuS: () => procCpuS(child.pid!),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      log.close();
    },
  };
}

/** utime + stime of a process, in seconds (Linux /proc; clock ticks are 100 Hz). */
function procCpuS(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export interface WindowOptions {
  connections: number;
  warmupS: number;
  durationS: number;
}

/**
 * Hotline's load generator, exactly as a run drives it: warm-up, then one measured window.
 * `cpuS`: the app's CPU seconds so far, read at the window's edges to give its CPU per request.
 */
export async function loadWindow(
  port: number,
  urlPath: string,
  o: WindowOptions,
  cpuS?: () => number,
): Promise<PhaseResult & { cpuMsPerRequest?: number }> {
  const load = await LoadRun.start({
    url: `http://127.0.0.1:${port}${urlPath}`,
    connections: o.connections,
    maxDurationS: o.warmupS + o.durationS + 60,
  });
  try {
    await sleep(o.warmupS);
    const cpu0 = cpuS?.();
    await load.switchPhase('measured');
    await sleep(o.durationS);
    const r = await load.switchPhase('warmup');
    const cpu1 = cpuS?.();
    await load.finish();
    return cpu0 !== undefined && cpu1 !== undefined && r.requests.total > 0
      ? { ...r, cpuMsPerRequest: ((cpu1 - cpu0) * 1000) / r.requests.total }
      : r;
  } finally {
    load.kill();
    await load.exited;
  }
}

/** A whole Hotline run (the CLI's engine: capture, then analysis) of a bench app. */
export async function hotlineRun(
  app: AppName,
  o: WindowOptions & {
    samplingIntervalUs?: number;
    stackRateHz?: number;
    env?: Record<string, string>;
    /** The profiled window's probes (default on, as a user's run). */
    waits?: boolean;
    stallThresholdMs?: number;
  },
): Promise<RunReport> {
  const runsDir = tmpDir('hlbench-runs-');
  const { report } = await profileUnderLoad({
    target: { cwd: APPS_DIR, entry: `${app}.js`, ...(o.env ? { env: o.env } : {}) },
    url: APP_URL[app],
    connections: o.connections,
    warmupS: o.warmupS,
    durationS: o.durationS,
    samplingIntervalUs: o.samplingIntervalUs,
    stackRateHz: o.stackRateHz,
    waits: o.waits,
    stallThresholdMs: o.stallThresholdMs,
    runsDir,
  });
  fs.rmSync(runsDir, { recursive: true, force: true });
  if (!report.load || !report.eventLoop) throw new Error('a run under load reported no load or event-loop figures');
  return report as RunReport;
}

/** A report of a run under load, whose load and event-loop figures are there (not a bare profile's). */
export type RunReport = ReportV1 & Required<Pick<ReportV1, 'load' | 'eventLoop'>>;

export const sleep = (s: number): Promise<void> => new Promise((r) => setTimeout(r, s * 1000));
