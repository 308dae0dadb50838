// Figure 3, load generator headroom: autocannon as Hotline runs it (LoadRun: one child process,
// one core) ÷ wrk (Debian's package, one thread, same connections) on a hello-world server,
// alternated; and whether a run's `loadLimited` is right on hello world (generator-limited when
// wrk gets clearly more out of it than autocannon, else app-limited) and on an app-limited one
// (~5 ms of hashing per request: expected false).
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { RUN_DEFAULTS } from '../src/core/capture/run-settings.ts';
import { hotlineRun, loadWindow, startPlain } from './apps.ts';
import { PAIRS, QUICK, alternate, median, progress, ratioFigure, unavailable, type Figure } from './common.ts';

const WINDOW = { connections: RUN_DEFAULTS.connections, warmupS: 1, durationS: QUICK ? 2 : 4 };

/** wrk's path; installs Debian's package when missing and allowed (root), else undefined. */
function findWrk(): string | undefined {
  for (const p of ['/usr/bin/wrk', '/usr/local/bin/wrk']) if (fs.existsSync(p)) return p;
  if (process.getuid?.() === 0) {
    progress('wrk is missing: apt-get install -y wrk');
    const r = spawnSync('apt-get', ['install', '-y', 'wrk'], {
      stdio: 'ignore',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    if (r.status === 0 && fs.existsSync('/usr/bin/wrk')) return '/usr/bin/wrk';
  }
  return undefined;
}

function wrkRps(wrk: string, port: number): number {
  // Warm the server up as LoadRun does, then measure.
  execFileSync(wrk, ['-t1', `-c${WINDOW.connections}`, `-d${WINDOW.warmupS}s`, `http://127.0.0.1:${port}/`], {
    stdio: 'ignore',
  });
  const out = execFileSync(
    wrk,
    ['-t1', `-c${WINDOW.connections}`, `-d${WINDOW.durationS}s`, `http://127.0.0.1:${port}/`],
    { encoding: 'utf8' },
  );
  const m = /Requests\/sec:\s+([\d.]+)/.exec(out);
  if (!m) throw new Error(`wrk printed no Requests/sec:\n${out}`);
  return Number(m[1]);
}

export async function benchGenerator(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const wrk = findWrk();
  /**
   * Was autocannon the limit on hello world? The truth comes from wrk, a generator in C: if it
   * gets clearly more out of the same app (autocannon ÷ wrk ≤ 0.9), autocannon was the limit.
   * On 2 cores the app saturates its core as soon as autocannon does (both are one Node thread
   * parsing HTTP), so hello world is usually app-limited here. Without wrk: assumed limited.
   */
  let helloGeneratorLimited = true;
  if (!wrk) {
    figures.push(
      unavailable(
        'generator-headroom',
        'Load generator: autocannon req/s ÷ wrk req/s (hello world)',
        'info (no target)',
        '×',
        'wrk is not installed (apt-get install -y wrk)',
      ),
    );
  } else {
    const pairs = await alternate(
      PAIRS,
      'autocannon vs wrk',
      async () => {
        const app = await startPlain('hello');
        try {
          return (await loadWindow(app.port, '/', WINDOW)).requests.perSecond;
        } finally {
          await app.stop();
        }
      },
      async () => {
        const app = await startPlain('hello');
        try {
          return wrkRps(wrk, app.port);
        } finally {
          await app.stop();
        }
      },
    );
    helloGeneratorLimited = median(pairs.map((p) => p.a / p.b)) <= 0.9;
    figures.push(
      ratioFigure({
        id: 'generator-headroom',
        name: 'Load generator: autocannon req/s ÷ wrk req/s (hello world)',
        unit: '×',
        target: 'info (no target)',
        pairs,
        note: `${WINDOW.connections} connections, ${WINDOW.durationS} s windows, wrk -t1; samples: a = autocannon, b = wrk`,
      }),
    );
  }
  const cases = [
    { app: 'hello' as const, expected: helloGeneratorLimited },
    { app: 'heavy' as const, expected: false },
  ];
  const readings: Array<{
    app: string;
    expected: boolean;
    loadLimited: boolean;
    loadCpu?: number;
    eventLoopUtilization: number;
  }> = [];
  for (const c of cases) {
    progress(`loadLimited: ${c.app} (expected ${c.expected})`);
    const r = await hotlineRun(c.app, WINDOW);
    readings.push({
      app: c.app,
      expected: c.expected,
      loadLimited: r.load.loadLimited,
      loadCpu: r.load.loadCpu,
      eventLoopUtilization: r.eventLoop.utilization,
    });
  }
  const right = readings.filter((r) => r.loadLimited === r.expected).length;
  figures.push({
    id: 'load-limited',
    name: `loadLimited right: hello world (${helloGeneratorLimited ? 'generator' : 'app'}-limited, by wrk) and heavy (app-limited)`,
    median: right,
    unit: `of ${readings.length}`,
    target: `= ${readings.length}`,
    pass: right === readings.length,
    samples: readings,
  });
  return figures;
}
