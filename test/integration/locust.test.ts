// A distributed load engine through --load-command: a Locust master and two workers (three
// processes, one `sh -c` line) load test/apps/routes-mix (/heavy 3 units of CPU, /light/:id 1,
// /wait a 20 ms timer) at weights 1:2:1 (test/apps/routes-mix/locustfile.py), and the route
// probe gives each route its CPU per request from inside the app: heavy ÷ light 3 within 10%, as
// with the built-in load (routes.test.ts). Locust's summary is read from the master's output, and
// no Locust process outlives its window. Needs `npm run build` and Debian's python3-locust.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { profileUnderLoad } from '../../src/core/index.ts';
import type { RouteFigures } from '../../src/core/report/schema.ts';
import { freePort, leakCheckedRuns, listProcesses, REPO_ROOT, tempDir } from '../helpers/integration.ts';

const APP = path.join(REPO_ROOT, 'test', 'apps', 'routes-mix');
const LOCUSTFILE = path.join(APP, 'locustfile.py');
const runs = leakCheckedRuns();
// As routes.test.ts: a unit of ~30 ms of CPU, large beside a request's own HTTP work.
const UNIT = 20_000_000;
const RUN_S = 4;

function locustMissing(): string | undefined {
  try {
    execFileSync('locust', ['--help'], { stdio: 'ignore', timeout: 20_000 });
    return undefined;
  } catch {
    return 'locust is not installed (Debian: apt-get install python3-locust; scripts/e2e-setup.sh does it)';
  }
}

const locustProcesses = () => listProcesses().filter((p) => p.argv.some((a) => a.includes(LOCUSTFILE)));

test(
  'a Locust master with two workers loads a 1:2:1 mix: each route its CPU per request, heavy ÷ light 3 within 10%',
  { timeout: 90_000 },
  async (t) => {
    const missing = locustMissing();
    if (missing) {
      t.skip(missing);
      return;
    }
    runs.watch(APP);
    const [port, masterPort] = [await freePort(), await freePort()];
    const locust = `locust -f ${LOCUSTFILE}`;
    const worker = `${locust} --worker --master-host 127.0.0.1 --master-port ${masterPort}`;
    const master =
      `${locust} --master --master-bind-host 127.0.0.1 --master-bind-port ${masterPort} --expect-workers 2 ` +
      `--headless -u 4 -r 4 -t ${RUN_S}s --host http://{host}:{port} --only-summary`;
    const started = Date.now();
    const { runDir, report } = await profileUnderLoad({
      target: { cwd: APP, entry: 'server.js', env: { PORT: String(port), UNIT: String(UNIT) } },
      url: `http://127.0.0.1:${port}/heavy`,
      loadCommand: `sh -c '${worker} & ${worker} & ${master}; wait'`,
      // The warm-up run is killed after 1 s, Locust still starting: its three processes go with it.
      warmupS: 1,
      durationS: RUN_S,
      runsDir: tempDir(),
    });
    runs.appStarted(report.app.pid);
    t.diagnostic(`run: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    assert.deepEqual(
      locustProcesses().map((p) => `${p.pid}: ${p.argv.join(' ')}`),
      [],
      'no Locust process is left',
    );

    // Locust's own figures, read from the master's summary in both windows.
    const log = fs.readFileSync(path.join(runDir, 'load.log'), 'utf8');
    const windows = [...log.matchAll(/^── (\w+): .*(\([^)]*\))$/gm)].map((m) => `${m[1]} ${m[2]}`);
    t.diagnostic(`load command runs: ${windows.join(', ')}`);
    // Each run's output follows its header line; the warm-up's workers may have joined before it was
    // killed (a fast start), so the measured and the profiled runs are counted.
    const joined = log
      .split(/^── /m)
      .filter((section) => /^(measured|profiled): /.test(section))
      .map((section) => (section.match(/reported as ready/g) ?? []).length);
    assert.deepEqual(joined, [2, 2], 'two workers joined the master in each window');
    assert.equal(report.load?.external?.tool, 'locust');
    assert.equal(report.load?.external?.parsed, true, log.slice(-3000));
    assert.ok(report.load!.requests.total > 0 && report.load!.errors === 0 && report.load!.non2xx === 0);
    t.diagnostic(
      `Locust (measured window): ${JSON.stringify(report.load!.requests)}, ${JSON.stringify(report.load!.latencyMs)}`,
    );

    // Each route's figures, from inside the app.
    const routes = report.routes ?? [];
    const byKey = new Map<string, RouteFigures>(routes.map((r) => [`${r.method} ${r.route}`.trim(), r]));
    const summary = routes.map((r) => `${r.method} ${r.route}: ${r.requests} req, ${r.cpuMsPerRequest ?? '-'} ms/req`);
    t.diagnostic(summary.join('; '));
    const heavy = byKey.get('GET /heavy');
    const light = byKey.get('GET /light/{n}');
    const wait = byKey.get('GET /wait');
    assert.ok(heavy && light && wait, summary.join('; '));
    for (const r of [heavy, light, wait]) assert.equal(r.source, 'app');
    assert.ok(heavy.requests >= 8, `enough requests: ${summary.join('; ')}`);
    // Locust picks each task at random by weight: 1:2:1 on average, not exactly.
    const lightPerHeavy = light.requests / heavy.requests;
    assert.ok(lightPerHeavy > 1.2 && lightPerHeavy < 3.3, `light ÷ heavy requests ${lightPerHeavy.toFixed(2)} (2)`);

    const ratio = heavy.cpuMsPerRequest! / light.cpuMsPerRequest!;
    t.diagnostic(`CPU per request heavy ÷ light: ${ratio.toFixed(3)}`);
    assert.ok(Math.abs(ratio - 3) <= 0.3, `heavy ÷ light CPU per request ${ratio.toFixed(3)} (3 ± 10%)`);
    assert.ok(wait.cpuMsPerRequest! < light.cpuMsPerRequest! / 2, `wait ${wait.cpuMsPerRequest} ms of CPU a request`);
  },
);
