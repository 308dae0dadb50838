// A request mix profiled once, known answer: test/apps/request-mix serves GET /heavy/:id (3 units
// of CPU), GET /light/:id (1 unit) and GET /wait (a 20 ms timer). A JSON mix of weights 1:2:1,
// with several ids per route, must come back as three routes in report.routes (ids folded), the
// requests split 1:2:1, each with its latency figures. Then a HAR recorded by a real Chromium
// (Debian's, through playwright-core) against the same app is replayed and grouped by route.
// Needs `npm run build`.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { chromium } from 'playwright-core';
import { renderRoutes } from '../../src/cli/render-routes.ts';
import { profileUnderLoad, readRequestMix, mixUrl, type ReportV1 } from '../../src/core/index.ts';
import { LoadRun } from '../../src/core/load/load-run.ts';
import { isReportV1 } from '../../src/core/report/report-check.ts';
import { CHROMIUM, chromiumProblem } from '../helpers/chromium.ts';
import { leakCheckedRuns, REPO_ROOT, tempDir } from '../helpers/integration.ts';

const APP = path.join(REPO_ROOT, 'test', 'apps', 'request-mix');
const runs = leakCheckedRuns();

const MIX = [
  { path: '/heavy/7', weight: 1 },
  { path: '/light/17', weight: 1 },
  { path: '/light/42', weight: 1 },
  { path: '/wait', weight: 1 },
];

let report: ReportV1 | undefined;

test(
  'a 1:2:1 mix profiled once: three routes, split as weighted, each with its latencies',
  { timeout: 120_000 },
  async (t) => {
    const dir = tempDir();
    const file = path.join(dir, 'mix.json');
    fs.writeFileSync(file, JSON.stringify(MIX));
    const mix = readRequestMix(file);
    runs.watch(APP);
    const run = await profileUnderLoad({
      // A unit of ~10 ms: large beside each request's own HTTP work, so CPU per request is 3:1.
      target: { cwd: APP, entry: 'server.js', env: { UNIT_ITERATIONS: '1500000' } },
      url: mixUrl(mix),
      requests: mix.requests,
      warmupS: 1,
      durationS: 4,
      connections: 4,
      runsDir: dir,
    });
    report = run.report;
    runs.appStarted(report.app.pid);
    assert.ok(isReportV1(report), 'the report passes its own check');
    const load = report.load?.routes;
    assert.ok(load, 'report.load.routes');
    t.diagnostic(`load.routes: ${JSON.stringify(load)}`);
    assert.deepEqual(load.map((r) => `${r.method} ${r.route}`).sort(), [
      'GET /heavy/{n}',
      'GET /light/{n}',
      'GET /wait',
    ]);
    const routes = report.routes;
    assert.ok(routes, 'report.routes');
    t.diagnostic(`report.routes: ${JSON.stringify(routes)}`);
    // The app's own figures may add a row for time that served no request: not a route of the mix.
    assert.equal(routes.filter((r) => r.requests > 0).length, 3);
    const by = (route: string) => routes.find((r) => r.route === route)!;
    const [heavy, light, wait] = [by('/heavy/{n}'), by('/light/{n}'), by('/wait')];
    const total = heavy.requests + light.requests + wait.requests;
    assert.equal(total, report.load!.requests.total, 'every measured response is on a route');
    // A mix turns the route probe on: each route's CPU, measured in the app, 3:1 within 10%, and
    // the unit's line its hottest.
    const ratio = heavy.cpuMsPerRequest! / light.cpuMsPerRequest!;
    t.diagnostic(
      `CPU/request heavy ${heavy.cpuMsPerRequest} ms, light ${light.cpuMsPerRequest} ms: ${ratio.toFixed(2)}`,
    );
    assert.ok(Math.abs(ratio / 3 - 1) <= 0.1, `heavy ÷ light CPU per request ${ratio.toFixed(2)}, not 3 within 10%`);
    for (const r of [heavy, light]) assert.equal(r.lines?.[0]?.line, 12, `${r.route}: the UNIT LINE first`);
    assert.ok((wait.cpuMsPerRequest ?? 0) < light.cpuMsPerRequest! / 3, '/wait waits, it does not compute');
    assert.ok(total >= 150, `requests ${total}`);
    // Each connection cycles the mix in order: the split is exact up to one cycle per connection.
    for (const [r, share] of [
      [heavy, 0.25],
      [light, 0.5],
      [wait, 0.25],
    ] as const) {
      assert.ok(Math.abs(r.requests / total - share) <= 0.03, `${r.route}: ${r.requests} of ${total}, not ${share}`);
      assert.ok(
        r.latencyMs && r.latencyMs.p50 > 0 && r.latencyMs.p50 <= r.latencyMs.p90 && r.latencyMs.p90 <= r.latencyMs.p99,
      );
      assert.ok(r.reqPerSec > 0);
      assert.equal(r.errors, 0);
    }
    assert.ok(wait.latencyMs!.p50 >= 20, `/wait p50 ${wait.latencyMs!.p50} ms covers its 20 ms timer`);
    const table = renderRoutes(report, { cwd: APP, color: false });
    t.diagnostic(table.join('\n'));
    assert.match(table[0], /^Routes {2}3 in the mix/);
  },
);

let app: ChildProcess | undefined;
after(() => app?.kill('SIGKILL'));

test('a HAR recorded by Chromium is replayed to the app and grouped by route', { timeout: 120_000 }, async (t) => {
  const problem = chromiumProblem();
  if (problem) {
    t.skip(problem);
    return;
  }
  app = spawn(process.execPath, ['server.js'], { cwd: APP, stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(app.stdout!, 'data')) as [Buffer];
  const port = Number(/listening on (\d+)/.exec(line.toString())?.[1]);
  const origin = `http://127.0.0.1:${port}`;
  const har = path.join(tempDir(), 'session.har');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const context = await browser.newContext({ recordHar: { path: har } });
    const page = await context.newPage();
    await page.goto(`${origin}/`);
    await page.waitForFunction('document.title === "done"');
    await context.close(); // writes the HAR
  } finally {
    await browser.close();
  }
  const mix = readRequestMix(har);
  t.diagnostic(`HAR: ${mix.requests.map((r) => `${r.method} ${r.path}`).join(', ')}; ${mix.notes.join(' ')}`);
  assert.equal(mix.origin, origin);
  assert.ok(
    mix.notes.some((n) => /cookie and authorization headers left out of \d+ requests/.test(n)),
    'the cookie',
  );
  assert.ok(mix.requests.every((r) => !Object.keys(r.headers).some((h) => /^(cookie|host|:)/i.test(h))));
  const post = mix.requests.find((r) => r.method === 'POST');
  assert.deepEqual([post?.path, post?.body], ['/light/6', '{"qty":2}']);
  // Replayed by the load generator itself (no profiler: the grouping is the load's).
  const load = await LoadRun.start({ url: mixUrl(mix), requests: mix.requests, connections: 2 });
  await new Promise((r) => setTimeout(r, 1500));
  const result = await load.finish();
  const routes = new Map(result.routes?.map((r) => [`${r.method} ${r.route}`, r]));
  t.diagnostic(`replayed: ${JSON.stringify(result.routes)}`);
  for (const key of ['GET /', 'GET /light/{n}', 'GET /heavy/{n}', 'POST /light/{n}', 'GET /wait'])
    assert.ok((routes.get(key)?.requests ?? 0) > 0, `${key} replayed`);
});
