// A request mix through the real load runner (dist/load-runner.js: `node esbuild.mjs` first)
// against a server in this process: the mix's proportions hold, and each response, timeout and
// failed status is counted on the route of the request it belongs to (src/core/load/runner.ts).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { LoadRun, type LoadTick, type PhaseResult } from '../../../src/core/load/load-run.ts';
import type { MixRequest } from '../../../src/core/load/request-mix.ts';

const TEST_TIMEOUT = { timeout: 20_000 };
let server: http.Server;
let base = '';
/** /slow's wait: far above what a fast answer takes, even on a busy machine. */
const SLOW_MS = 150;
/** Requests the server saw per route, to check the load's own counts against. */
const seen = new Map<string, number>();

before(async () => {
  server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    const route = path.replace(/\/\d+$/, '/{n}');
    seen.set(route, (seen.get(route) ?? 0) + 1);
    if (path === '/slow') setTimeout(() => res.end('slow'), SLOW_MS);
    else if (path === '/never')
      return; // never answers: the request times out
    else if (path === '/missing') {
      res.statusCode = 404;
      res.end();
    } else res.end('ok');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

const get = (path: string, weight: number): MixRequest => ({ method: 'GET', path, headers: {}, weight });

/** Runs the mix until `until` says so on a tick, then finishes: the warm-up phase's figures. */
async function runMix(requests: MixRequest[], until: (t: LoadTick) => boolean, timeoutS = 10): Promise<PhaseResult> {
  let resolveTick!: () => void;
  const enough = new Promise<void>((r) => (resolveTick = r));
  const run = await LoadRun.start({ url: `${base}/`, connections: 4, timeoutS, requests }, (t) => {
    if (until(t)) resolveTick();
  });
  await enough;
  return run.finish();
}

const route = (r: PhaseResult, name: string) => {
  const found = r.routes?.find((x) => x.route === name);
  assert.ok(found, `route ${name} in ${JSON.stringify(r.routes?.map((x) => x.route))}`);
  return found;
};

test('the mix holds its weights, and each response is timed on its own route', TEST_TIMEOUT, async () => {
  seen.clear();
  // Two ids of one route (/fast/{n}) at 1 each, /slow at 1, /missing at 1: 2:1:1 by route.
  const r = await runMix(
    [get('/fast/1', 1), get('/slow', 1), get('/fast/2', 1), get('/missing', 1)],
    (t) => t.second >= 2,
  );
  assert.deepEqual(
    r.routes?.map((x) => `${x.method} ${x.route}`),
    ['GET /fast/{n}', 'GET /slow', 'GET /missing'],
  );
  const fast = route(r, '/fast/{n}');
  const slow = route(r, '/slow');
  const missing = route(r, '/missing');
  assert.equal(fast.requests + slow.requests + missing.requests, r.requests.total, 'every response on one route');
  // Each connection cycles the 4 requests in order: whole cycles are exact, so the routes differ
  // from 2:1:1 by at most one cycle per connection.
  assert.ok(Math.abs(fast.requests - 2 * slow.requests) <= 2 * 4, `${fast.requests} vs 2 × ${slow.requests}`);
  assert.ok(Math.abs(missing.requests - slow.requests) <= 4, `${missing.requests} vs ${slow.requests}`);
  assert.ok(slow.requests >= 20, `enough requests (${slow.requests})`);
  // Matched by request, not by guess: only /slow waits SLOW_MS, so only its percentiles are that
  // high; the others' worst stay under its median (a busy machine slows every route alike).
  assert.ok(slow.latencyMs.p50 >= SLOW_MS - 1, `slow p50 ${slow.latencyMs.p50}`);
  assert.ok(
    fast.latencyMs.p99 < slow.latencyMs.p50,
    `fast p99 ${fast.latencyMs.p99} vs slow p50 ${slow.latencyMs.p50}`,
  );
  assert.ok(
    missing.latencyMs.p99 < slow.latencyMs.p50,
    `missing p99 ${missing.latencyMs.p99} vs slow p50 ${slow.latencyMs.p50}`,
  );
  // Failed statuses are the failing route's alone.
  assert.equal(missing.non2xx, missing.requests);
  assert.equal(fast.non2xx + slow.non2xx, 0);
  assert.equal(r.non2xx, missing.requests);
  assert.equal(fast.errors + slow.errors + missing.errors, 0);
  // The server saw what the load sent (the last requests of each connection may be in flight).
  for (const [name, x] of [
    ['/fast/{n}', fast],
    ['/slow', slow],
    ['/missing', missing],
  ] as const)
    assert.ok((seen.get(name) ?? 0) - x.requests <= 4 && (seen.get(name) ?? 0) >= x.requests, name);
});

test('a timeout is counted on the route of the request that timed out', TEST_TIMEOUT, async () => {
  let errors = 0;
  const r = await runMix(
    [get('/fast/1', 3), get('/never', 1)],
    (t) => {
      errors += t.errors;
      return errors >= 6;
    },
    1,
  );
  const fast = route(r, '/fast/{n}');
  const never = route(r, '/never');
  assert.ok(r.timeouts >= 6, `timeouts ${r.timeouts}`);
  assert.equal(never.timeouts, r.timeouts, 'every timeout is /never’s');
  assert.equal(never.errors, r.errors);
  assert.equal(never.requests, 0);
  assert.equal(fast.errors, 0);
  assert.equal(fast.requests, r.requests.total);
  assert.ok(fast.latencyMs.p99 < 500, `fast p99 ${fast.latencyMs.p99}: no timeout in it`);
  assert.equal(never.latencyMs.p50, 1000, 'timeouts count at the timeout value');
});

test('without a mix the figures have no routes (the single-URL path is unchanged)', TEST_TIMEOUT, async () => {
  let n = 0;
  const run = await LoadRun.start({ url: `${base}/fast/1`, connections: 1 }, () => void n++);
  while (n < 1) await new Promise((r) => setTimeout(r, 50));
  const r = await run.finish();
  assert.equal(r.routes, undefined);
  assert.ok(r.requests.total > 0);
});
