// Cost per route measured inside the app: a node:http app with three routes of known cost
// (test/apps/routes-mix: /heavy 3 units of CPU, /light/:id 1 unit, /wait a 20 ms timer then a
// tenth of a unit, each on its own marked line) loaded at 1:2:1 by the user's own load command
// (--load-command: Hotline cannot see which requests it sends), profiled once. The route probe
// labels the main thread's work with the request it serves; the analysis gives each route its
// requests, CPU per request and hot lines.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { profileUnderLoad } from '../../src/core/index.ts';
import type { RouteFigures } from '../../src/core/report/schema.ts';
import { freePort, leakCheckedRuns, markedLine, REPO_ROOT, RUN_TEST_TIMEOUT, tempDir } from '../helpers/integration.ts';

const APP = path.join(REPO_ROOT, 'test', 'apps', 'routes-mix');
const SERVER = path.join(APP, 'server.js');
const LOAD = path.join(APP, 'load.cjs');
const runs = leakCheckedRuns();
// A unit of ~30 ms of CPU: what each request costs besides its unit (its HTTP work, and on a busy
// machine the profiler's samples stretched by the app waiting for a core, which land where the
// app wakes up for a request: 1–2.5 ms a request here) is then small beside it, and the ratio
// of CPU per request stays near the constructed 3:1 (with c ms of it, (3u + c) ÷ (u + c)).
const UNIT = 20_000_000;
const DURATION_S = 6;

test(
  'a 1:2:1 mix under an external load: each route its requests, CPU per request in the 3:1 ratio, its own hot line',
  { ...RUN_TEST_TIMEOUT, timeout: 120_000 },
  async () => {
    runs.watch(APP);
    const port = await freePort();
    const { runDir, report } = await profileUnderLoad({
      target: { cwd: APP, entry: 'server.js', env: { PORT: String(port), UNIT: String(UNIT) } },
      url: `http://127.0.0.1:${port}/heavy`,
      loadCommand: `${process.execPath} ${LOAD} {url} ${DURATION_S}`,
      warmupS: 1,
      durationS: DURATION_S,
      runsDir: tempDir(),
    });
    runs.appStarted(report.app.pid);
    assert.ok(fs.existsSync(path.join(runDir, 'routes.json')), 'the route probe wrote its record');
    const routes = report.routes ?? [];
    const byKey = new Map<string, RouteFigures>(routes.map((r) => [`${r.method} ${r.route}`.trim(), r]));
    const summary = routes.map(
      (r) =>
        `${r.method} ${r.route}: ${r.requests} req, ${r.cpuMsPerRequest ?? '-'} ms/req, ${r.cpuPct}% · ${r.lines?.[0]?.line ?? '-'}`,
    );
    console.log(summary.join('\n'));
    for (const r of routes)
      console.log(r.route, JSON.stringify(r.lines?.map((l) => [path.basename(l.file), l.line, l.function, l.ownMs])));
    console.log(report.notes.filter((n) => n.includes('route')).join('\n'));
    assert.deepEqual(
      [...byKey.keys()].sort(),
      ['(no request)', 'GET /heavy', 'GET /light/{n}', 'GET /wait'],
      summary.join('\n'),
    );
    const heavy = byKey.get('GET /heavy')!;
    const light = byKey.get('GET /light/{n}')!;
    const wait = byKey.get('GET /wait')!;
    for (const r of [heavy, light, wait]) assert.equal(r.source, 'app');

    // Requests at 1:2:1 (the load command cycles through them; a window's edges cut a few).
    assert.ok(heavy.requests >= 8, `enough requests: ${summary.join('; ')}`);
    const lightPerHeavy = light.requests / heavy.requests;
    const waitPerHeavy = wait.requests / heavy.requests;
    assert.ok(Math.abs(lightPerHeavy - 2) <= 0.3, `light ÷ heavy requests ${lightPerHeavy.toFixed(2)} (2)`);
    assert.ok(Math.abs(waitPerHeavy - 1) <= 0.2, `wait ÷ heavy requests ${waitPerHeavy.toFixed(2)} (1)`);

    // CPU per request: 3 units against 1, within 10%.
    const ratio = heavy.cpuMsPerRequest! / light.cpuMsPerRequest!;
    assert.ok(Math.abs(ratio - 3) <= 0.3, `heavy ÷ light CPU per request ${ratio.toFixed(3)} (3 ± 10%)`);
    // The waiting route's 20 ms is not CPU: a tenth of a unit, well under a light request.
    assert.ok(wait.cpuMsPerRequest! < light.cpuMsPerRequest! / 2, `wait ${wait.cpuMsPerRequest} ms of CPU a request`);
    assert.ok(wait.latencyMs!.p50 >= 20, `its in-app latency holds the 20 ms wait: ${wait.latencyMs!.p50}`);

    // Each route's hottest line is its own marked loop, and that line's time is on its route.
    for (const [r, mark] of [
      [heavy, 'HEAVY LINE'],
      [light, 'LIGHT LINE'],
      [wait, 'WAIT LINE'],
    ] as const) {
      const line = markedLine(SERVER, mark);
      assert.equal(r.lines?.[0]?.file, SERVER, `${r.route}: ${JSON.stringify(r.lines?.[0])}`);
      assert.equal(r.lines?.[0]?.line, line, `${r.route}'s hottest line is ${mark}`);
      const onLine = routes.map((x) => x.lines?.find((l) => l.file === SERVER && l.line === line)?.ownMs ?? 0);
      const total = onLine.reduce((a, b) => a + b, 0);
      const own = r.lines![0].ownMs;
      console.log(`${mark}: ${((own / total) * 100).toFixed(2)}% of its ${total.toFixed(1)} ms on ${r.route}`);
      assert.ok(own / total >= 0.97, `${mark}: ${own} of ${total} ms on its own route`);
    }
    // Each stall (50 ms and more, the default) is given the route whose work filled most of it:
    // the route of the stall's top line. /heavy's ~90 ms of CPU holds the loop past 50 ms by
    // itself; two /light requests served back to back do too.
    const stalls = report.stalls ?? [];
    const routeOfLine = new Map([
      [markedLine(SERVER, 'HEAVY LINE'), 'GET /heavy'],
      [markedLine(SERVER, 'LIGHT LINE'), 'GET /light/{n}'],
    ]);
    const checked = stalls.filter((s) => s.lines[0] && routeOfLine.has(s.lines[0].line));
    const agree = checked.filter((s) => s.route === routeOfLine.get(s.lines[0].line)).length;
    const heavyStalls = stalls.filter((s) => s.route === 'GET /heavy').length;
    console.log(
      `stalls: ${stalls.length}, on GET /heavy: ${heavyStalls}, route = top line's: ${agree} of ${checked.length}`,
    );
    assert.ok(checked.length >= 5, `stalls seen: ${stalls.length}`);
    assert.ok(heavyStalls > stalls.length / 2, `${heavyStalls} of ${stalls.length} stalls were /heavy's work`);
    assert.ok(agree >= checked.length * 0.9, `a stall's route is its top line's: ${agree} of ${checked.length}`);
    assert.ok(
      report.notes.some((n) => n.startsWith('Cost per route:')),
      'the report says how exact the labels were',
    );
  },
);
