// The MCP `routes` tool's rows (src/mcp/views.ts, routes) from a recorded request mix
// (test/webview/fixtures/request-mix.json: test/apps/request-mix at 1:2:1): most CPU first, the
// "(no request)" row last, each route's figures as report.json has them, its hottest lines as
// file:line with their code, and its waits where it had any.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { routes } from '../../../src/mcp/views.ts';
import { Workspace } from '../../../src/mcp/workspace.ts';
import { loadReportFixture } from '../../webview/report-fixtures.ts';
import { makeTempDir, removeTempDirs } from '../../helpers/tempdir.ts';

after(removeTempDirs);

const mix = loadReportFixture('request-mix');
const ws = new Workspace(mix.app.cwd);

test('routes: most CPU first, figures as recorded, lines with their code, "(no request)" last', () => {
  // The run's folder as the MCP server reads it: its sources.json holds the code as it ran.
  const dir = makeTempDir('hotline-mcp-routes-');
  const serverJs = path.join(mix.app.cwd, 'server.js');
  fs.writeFileSync(path.join(dir, 'sources.json'), JSON.stringify({ [serverJs]: fs.readFileSync(serverJs, 'utf8') }));
  const rows = routes(ws, { dir, report: mix }, 10);
  assert.deepEqual(
    rows.map((r) => r.route),
    ['GET /heavy/{n}', 'GET /light/{n}', 'GET /wait', '(no request)'],
  );
  const heavy = mix.routes!.find((r) => r.route === '/heavy/{n}')!;
  assert.equal(rows[0].requests, heavy.requests);
  assert.equal(rows[0].cpuMsPerRequest, heavy.cpuMsPerRequest);
  assert.equal(rows[0].cpuSharePct, heavy.cpuPct);
  // Latency to 0.01 ms: what a model needs of it.
  const r2 = (v: number): number => Math.round(v * 100) / 100;
  assert.deepEqual(rows[0].latencyMs, { p50: r2(heavy.latencyMs!.p50), p99: r2(heavy.latencyMs!.p99) });
  assert.equal(rows[0].lines[0].at, `server.js:${heavy.lines![0].line}`);
  assert.match(rows[0].lines[0].code ?? '', /for \(let i = 0; i < UNIT; i\+\+\)/);
  assert.deepEqual(rows[0].waits, [], 'the recorded mix waits on a timer only (not timed)');
  assert.equal(rows[3].cpuMsPerRequest, null, 'no request: no CPU per request');
  assert.equal(routes(ws, { dir: '', report: mix }, 2).length, 2, 'the top N');
  assert.deepEqual(routes(ws, { dir: '', report: { ...mix, routes: undefined } }, 10), [], 'a run of one URL');
});

test('routes: a route’s waits, relative places and the API', () => {
  const cwd = mix.app.cwd;
  const withWaits = {
    ...mix,
    routes: mix.routes!.map((r) =>
      r.route === '/wait'
        ? { ...r, waits: [{ file: `${cwd}/server.js`, line: 37, kind: 'pg', msPerRequest: 18.456 }] }
        : r,
    ),
  };
  const row = routes(ws, { dir: '', report: withWaits }, 10).find((r) => r.route === 'GET /wait')!;
  assert.deepEqual(row.waits, [{ at: 'server.js:37', api: 'pg', msPerRequest: 18.46 }]);
});
