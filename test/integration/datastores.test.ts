// Waits on data stores, known answers, on real servers: PostgreSQL, Redis and MariaDB started by
// test/helpers/datastores.ts (127.0.0.1, free ports, their own users, a throw-away folder) and
// test/apps/datastores, whose every route waits WAIT_MS on a marked line (pg_sleep, a BLPOP that
// times out, SLEEP, and an 8-query loop). Under real load and the real inspector, report.json puts
// each wait on its line with its server, its statement (literals out) and its count per request,
// the request's time gets a data-store part, the loop gets its hint; and nothing is left running.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { mixFromUrls, mixUrl, profileUnderLoad, type ReportV1 } from '../../src/core/index.ts';
import { isReportV1 } from '../../src/core/report/report-check.ts';
import { startDatastores, type Datastores } from '../helpers/datastores.ts';
import { leakCheckedRuns, markedLine, REPO_ROOT, tempDir } from '../helpers/integration.ts';

const APP = path.join(REPO_ROOT, 'test', 'apps', 'datastores');
const SERVER_JS = path.join(APP, 'server.js');
const WAIT_MS = 50;

let stores: Datastores | undefined;
const runs = leakCheckedRuns();

before(async () => {
  stores = await startDatastores();
});
after(() => stores?.stop());

function get(port: number, route: string): Promise<{ status: number; ms: number }> {
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: route, timeout: 10_000 }, (res) => {
        res
          .resume()
          .on('end', () => resolve({ status: res.statusCode ?? 0, ms: Number(process.hrtime.bigint() - start) / 1e6 }));
      })
      .on('timeout', function (this: http.ClientRequest) {
        this.destroy(new Error(`${route}: no answer in 10 s`));
      })
      .on('error', reject);
  });
}

const running = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('the servers run as their own users, and every route waits at least its time', { timeout: 60_000 }, async () => {
  const app = spawn(process.execPath, ['server.js'], {
    cwd: APP,
    env: { ...process.env, ...stores!.env, PORT: '0', WAIT_MS: String(WAIT_MS) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      app.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      app.once('exit', (code) => reject(new Error(`the app exited with ${code}`)));
    });
    for (const s of Object.values(stores!.servers)) {
      assert.ok(running(s.pid), `${s.kind} runs`);
      if (process.getuid?.() === 0) assert.notEqual(fs.statSync(`/proc/${s.pid}`).uid, 0, `${s.kind} is not root`);
    }
    for (const route of ['/pg', '/redis', '/mariadb', '/pool', '/knex']) {
      const r = await get(port, route);
      assert.equal(r.status, 200, route);
      assert.ok(r.ms >= WAIT_MS * 0.95, `${route} took ${r.ms.toFixed(1)} ms, at least its ${WAIT_MS} ms wait`);
    }
    assert.equal((await get(port, '/n1')).status, 200);
    assert.equal((await get(port, '/nope')).status, 404);
  } finally {
    app.kill('SIGKILL');
  }
});

async function profile(url: string, connections = 8): Promise<ReportV1> {
  runs.watch(APP);
  const { report } = await profileUnderLoad({
    target: { cwd: APP, entry: 'server.js', env: { ...stores!.env, WAIT_MS: String(WAIT_MS) } },
    url,
    warmupS: 1,
    durationS: 3,
    connections,
    runsDir: tempDir(),
  });
  runs.appStarted(report.app.pid);
  assert.ok(isReportV1(report), 'the report passes its own check');
  return report;
}

for (const [url, mark, api, statement, label = api] of [
  ['/pg', 'PG LINE', 'pg', /^127\.0\.0\.1:\d+ SELECT pg_sleep\(\$1\)$/],
  ['/redis', 'REDIS LINE', 'redis', /^127\.0\.0\.1:\d+ BLPOP$/],
  ['/mariadb', 'MARIADB LINE', 'mysql', /^127\.0\.0\.1:\d+ SELECT SLEEP\(\?\)$/],
  // Knex writes the query from its runner, after the line: V8's async stack still reaches it.
  ['/knex', 'KNEX LINE', 'pg', /^127\.0\.0\.1:\d+ select pg_sleep\(\$1\)$/, 'Knex over pg'],
] as const) {
  test(
    `${label}: a ${WAIT_MS} ms wait on the server is on its awaiting line, once per request`,
    { timeout: 120_000 },
    async (t) => {
      const line = markedLine(SERVER_JS, mark);
      assert.ok(line > 0, `server.js marks the ${mark}`);
      const report = await profile(url);
      const w = report.waits?.find((x) => x.file === SERVER_JS && x.line === line);
      assert.ok(w, `a wait on server.js:${line}: ${JSON.stringify(report.waits)}`);
      t.diagnostic(
        `${api}: ${w.count} calls, p50 ${w.waitMs.p50} ms, p99 ${w.waitMs.p99} ms, ${w.perRequest} per request, ${w.target}`,
      );
      assert.equal(w.api, api);
      assert.match(w.target ?? '', statement, 'its server and statement, no literal');
      assert.ok(
        w.waitMs.p50 >= WAIT_MS * 0.95 && w.waitMs.p50 <= WAIT_MS * 1.2,
        `p50 ${w.waitMs.p50} ms within 20% of ${WAIT_MS}`,
      );
      assert.ok(w.count >= 20, `calls ${w.count}`);
      assert.ok(w.perRequest >= 0.95 && w.perRequest <= 1.05, `per request ${w.perRequest}`);
      const part = report.requestTime?.parts.find((p) => p.key === 'datastore');
      assert.ok(
        part && part.ms >= WAIT_MS * 0.9,
        `data-store part ${part?.ms} ms of ${report.requestTime?.latencyMs} ms`,
      );
      // A wait, not CPU: no blocking hint on the line.
      assert.deepEqual(
        report.hints.filter((h) => h.file === SERVER_JS && h.line === line).map((h) => h.rule),
        [],
      );
    },
  );
}

test(
  'an N+1 loop: 8 statements per request on the loop line, and the hint to batch them',
  { timeout: 120_000 },
  async (t) => {
    const line = markedLine(SERVER_JS, 'N1 LINE');
    const report = await profile('/n1');
    const w = report.waits?.find((x) => x.file === SERVER_JS && x.line === line);
    assert.ok(w, `a wait on server.js:${line}: ${JSON.stringify(report.waits)}`);
    t.diagnostic(`n1: ${w.count} calls, p50 ${w.waitMs.p50} ms, ${w.perRequest} per request`);
    assert.equal(w.api, 'pg');
    assert.match(w.target ?? '', /SELECT \$1::int AS n$/);
    assert.ok(Math.abs(w.perRequest - 8) <= 0.3, `per request ${w.perRequest}`);
    const hint = report.hints.find((h) => h.rule === 'repeated-query' && h.line === line);
    assert.ok(hint, `the repeated-query hint: ${JSON.stringify(report.hints)}`);
    assert.match(hint.message, /sends 8 pg statements per request/);
  },
);

for (const [url, mark, pool] of [
  ['/pool', 'POOL LINE', 'a pg pool'],
  ['/knexpool', 'KNEX POOL LINE', "Knex's pool (tarn)"],
] as const)
  test(
    `${pool} of 2 under 16 connections: the queue for a connection measured on the query's line, and the hint`,
    { timeout: 120_000 },
    async (t) => {
      const line = markedLine(SERVER_JS, mark);
      const report = await profile(url, 16);
      const w = report.waits?.find((x) => x.file === SERVER_JS && x.line === line);
      assert.ok(w, `a wait on server.js:${line}: ${JSON.stringify(report.waits)}`);
      t.diagnostic(
        `pool: ${w.count} calls, wait p50 ${w.waitMs.p50} ms, queued p50 ${w.queuedMs.p50} ms, pool ${w.poolSize}, ${w.perRequest} per request`,
      );
      assert.equal(w.api, 'pg');
      assert.equal(w.poolSize, 2);
      // 16 requests on 2 connections of 50 ms each: about 400 ms a request, 7/8 of it queued.
      assert.ok(w.waitMs.p50 >= WAIT_MS * 3, `wait p50 ${w.waitMs.p50} ms`);
      assert.ok(w.queuedMs.p50 >= w.waitMs.p50 * 0.6, `queued p50 ${w.queuedMs.p50} of ${w.waitMs.p50} ms`);
      const answered = w.waitMs.p50 - w.queuedMs.p50;
      assert.ok(answered >= WAIT_MS * 0.8 && answered <= WAIT_MS * 2, `answered in about ${answered} ms`);
      assert.ok(w.perRequest >= 0.9 && w.perRequest <= 1.1, `per request ${w.perRequest}`);
      const hint = report.hints.find((h) => h.rule === 'db-pool-queue' && h.line === line);
      assert.ok(hint, `the db-pool-queue hint: ${JSON.stringify(report.hints)}`);
      assert.match(hint.message, /one of its pool's 2 connections/);
      // The pool's writes are on the line that asked: line-less ones only from calls that queued
      // before a sub-window began (their asking was not seen).
      const lineless = Number(/(\d+) data-store exchanges had no line/.exec(report.notes.join('\n'))?.[1] ?? 0);
      t.diagnostic(`line-less exchanges: ${lineless}`);
      assert.ok(lineless <= w.count * 0.25, `${lineless} line-less exchanges against ${w.count} on the line`);
    },
  );

test(
  'two independent waits awaited one after another: the serial-awaits hint; run together (Promise.all): none',
  { timeout: 240_000 },
  async (t) => {
    const a = markedLine(SERVER_JS, 'SERIAL A LINE');
    const b = markedLine(SERVER_JS, 'SERIAL B LINE');
    const serial = await profile('/serial');
    const wa = serial.waits?.find((x) => x.file === SERVER_JS && x.line === a);
    const wb = serial.waits?.find((x) => x.file === SERVER_JS && x.line === b);
    assert.ok(wa && wb, `waits on server.js:${a} and :${b}: ${JSON.stringify(serial.waits)}`);
    t.diagnostic(
      `serial: pg p50 ${wa.waitMs.p50} ms ${wa.perRequest}/request, mysql p50 ${wb.waitMs.p50} ms ${wb.perRequest}/request, latency p50 ${serial.load?.profiled.latencyMs.p50} ms`,
    );
    const hint = serial.hints.find((h) => h.rule === 'serial-awaits');
    assert.ok(hint, `the serial-awaits hint: ${JSON.stringify(serial.hints)}`);
    t.diagnostic(hint.message);
    assert.equal(hint.line, b, 'on the second line');
    assert.match(
      hint.message,
      new RegExp(`^Two independent waits, \\d+ ms on server\\.js:${a} .* and \\d+ ms on server\\.js:${b} `),
    );
    assert.match(hint.message, /one after another: \d+ ms per request/);
    assert.match(hint.fix, /Promise\.all/);

    const pa = markedLine(SERVER_JS, 'PARALLEL A LINE');
    const pb = markedLine(SERVER_JS, 'PARALLEL B LINE');
    const parallel = await profile('/parallel');
    const both = parallel.waits?.filter((x) => x.file === SERVER_JS && (x.line === pa || x.line === pb)) ?? [];
    assert.equal(both.length, 2, `waits on server.js:${pa} and :${pb}: ${JSON.stringify(parallel.waits)}`);
    t.diagnostic(
      `parallel: ${both.map((w) => `${w.api} p50 ${w.waitMs.p50} ms ${w.perRequest}/request`).join(', ')}, latency p50 ${parallel.load?.profiled.latencyMs.p50} ms`,
    );
    assert.deepEqual(
      parallel.hints.filter((h) => h.rule === 'serial-awaits'),
      [],
    );
  },
);

test(
  'a mix of /pg, /redis and /serial: each route its own waits, on its own lines, none of the others’',
  { timeout: 120_000 },
  async (t) => {
    const lines = Object.fromEntries(
      ['PG LINE', 'REDIS LINE', 'SERIAL A LINE', 'SERIAL B LINE'].map((m) => [m, markedLine(SERVER_JS, m)]),
    );
    const mix = mixFromUrls(['/pg', '/redis', '/serial']);
    runs.watch(APP);
    const { report } = await profileUnderLoad({
      target: { cwd: APP, entry: 'server.js', env: { ...stores!.env, WAIT_MS: String(WAIT_MS) } },
      url: mixUrl(mix),
      requests: mix.requests,
      warmupS: 1,
      durationS: 3,
      connections: 6,
      runsDir: tempDir(),
    });
    runs.appStarted(report.app.pid);
    assert.ok(isReportV1(report), 'the report passes its own check');
    const routes = report.routes ?? [];
    for (const r of routes)
      t.diagnostic(
        `${r.method} ${r.route}: ${r.requests} req, waits ${JSON.stringify((r.waits ?? []).map((w) => [w.line, w.kind, w.msPerRequest]))}`,
      );
    const waitsOf = (route: string) => {
      const r = routes.find((x) => x.method === 'GET' && x.route === route);
      assert.ok(r && r.requests > 0, `route ${route} served`);
      return (r.waits ?? []).filter((w) => w.file === SERVER_JS);
    };
    // The known answer: each request waits WAIT_MS on each of its route's lines, once, and on no
    // other route's line (a wait is given to the request it was made for, never shared out).
    const expect = { '/pg': ['PG LINE'], '/redis': ['REDIS LINE'], '/serial': ['SERIAL A LINE', 'SERIAL B LINE'] };
    for (const [route, marks] of Object.entries(expect)) {
      const waits = waitsOf(route);
      assert.deepEqual(
        waits.map((w) => w.line).sort((a, b) => a - b),
        marks.map((m) => lines[m]).sort((a, b) => a - b),
        `${route}: its own lines only: ${JSON.stringify(waits)}`,
      );
      // Per request over the requests that ended in the profiled window (one more or fewer began
      // than ended in it per connection): within 20% of WAIT_MS.
      for (const w of waits)
        assert.ok(
          w.msPerRequest >= WAIT_MS * 0.8 && w.msPerRequest <= WAIT_MS * 1.2,
          `${route} :${w.line} ${w.msPerRequest} ms/request, about ${WAIT_MS}`,
        );
    }
  },
);

test('stopped: no server process and no data folder is left', { timeout: 60_000 }, async () => {
  const servers = Object.values(stores!.servers);
  await stores!.stop();
  for (const s of servers) {
    assert.equal(running(s.pid), false, `${s.kind} stopped`);
    assert.equal(fs.existsSync(s.dir), false, `${s.kind}'s folder removed`);
  }
});
