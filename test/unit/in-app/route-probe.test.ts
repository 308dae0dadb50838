// The route probe (src/core/in-app/scripts/route-probe.ts), compiled as it ships and run in this
// process through the expression the inspector evaluates: real node:http and Express servers
// here, requests that overlap in time (one waits on a timer while another burns CPU), and the
// timeline it returns checked against what each handler measured of its own CPU work.
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import * as vm from 'node:vm';
import { createRequire } from 'node:module';
import { inAppCall, type TakenRoutes } from '../../../src/core/in-app/index.ts';

type Handler = (req: unknown, res: { send(body: string): void }) => void;
interface Router {
  get(path: string, handler: Handler): void;
  use(path: string, router: Router): void;
}
// Express 5 (a dev dependency; no types installed): only what this test uses.
const express = createRequire(__filename)('express') as (() => Router & http.RequestListener) & { Router(): Router };

const run = (expression: string): unknown => vm.runInThisContext(expression);
const slot = (name: string): unknown => (globalThis as unknown as Record<symbol, unknown>)[Symbol.for(name)];
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const REQ = Symbol.for('hotline.route.request');
const nowUs = (): number => {
  const t = process.hrtime();
  return t[0] * 1e6 + t[1] / 1e3;
};
const busy = (ms: number): void => {
  const end = nowUs() + ms * 1000;
  while (nowUs() < end) {
    // CPU work of the request
  }
};

/** The label at µs `t`: the last change at or before it. */
function labelAt(changes: number[], t: number): number {
  let label = 0;
  for (let i = 0; i < changes.length && changes[i] <= t; i += 2) label = changes[i + 1];
  return label;
}

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function get(port: number, path: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  await res.arrayBuffer();
  return res.status;
}

test('route probe: each request CPU work lies on its own label, waits and other requests apart', async () => {
  // Per request id: the [from, to] µs of its CPU work, as the handler measured it.
  const work: Array<[number, number, number]> = [];
  const server = http.createServer((req, res) => {
    const id = (req as unknown as Record<symbol, number>)[REQ];
    const burn = (ms: number): void => {
      const from = nowUs();
      busy(ms);
      work.push([id, from, nowUs()]);
    };
    if (req.url?.startsWith('/heavy')) {
      burn(15);
      res.end('heavy');
    } else if (req.url?.startsWith('/wait')) {
      setTimeout(() => {
        void Promise.resolve().then(() => {
          burn(5);
          res.statusCode = 201;
          res.end('waited');
        });
      }, 20);
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  const port = await listen(server);
  try {
    run(inAppCall('route-probe', 'start'));
    await turn(); // the hooks are enabled by an immediate
    const statuses = await Promise.all([
      get(port, '/wait?x=1'),
      get(port, '/heavy'),
      get(port, '/wait'),
      get(port, '/heavy/2'),
      get(port, '/nothing'),
    ]);
    assert.deepEqual(statuses, [201, 200, 201, 200, 404]);
    const taken = JSON.parse(String(run(inAppCall('route-probe', 'take')))) as TakenRoutes;
    await turn();
    assert.equal(slot('hotline.routes'), undefined, 'the probe is removed');

    assert.equal(taken.requests.length, 5 * 7, 'five requests noted');
    const byId = new Map<number, number[]>();
    for (let i = 0; i < taken.requests.length; i += 7) byId.set(taken.requests[i], taken.requests.slice(i, i + 7));
    const paths = [...byId.values()].map((r) => taken.strings[r[5]]).sort();
    assert.deepEqual(paths, ['/heavy', '/heavy/2', '/nothing', '/wait', '/wait'], 'paths without their query');
    for (const r of byId.values()) {
      assert.equal(taken.strings[r[4]], 'GET');
      assert.ok(r[2] > r[1], 'finished after it began');
      assert.equal(
        r[3],
        taken.strings[r[5]].startsWith('/wait') ? 201 : taken.strings[r[5]] === '/nothing' ? 404 : 200,
      );
      assert.equal(r[6], -1, 'node:http names no route');
    }
    for (let i = 2; i < taken.changes.length; i += 2)
      assert.ok(taken.changes[i] >= taken.changes[i - 2], 'changes in time order');
    assert.equal(work.length, 4);
    for (const [id, from, to] of work) {
      assert.ok(byId.has(id), `the handler saw a noted id (${id})`);
      // Strictly inside: the µs rounding of the noted times.
      assert.equal(labelAt(taken.changes, from + 1), id, `work of ${id} begins on its label`);
      for (let i = 0; i < taken.changes.length; i += 2)
        if (taken.changes[i] > from + 1 && taken.changes[i] < to - 1)
          assert.equal(taken.changes[i + 1], id, `no change to another label inside ${id}'s work`);
    }
    // While /wait waits for its timer the thread serves the others or nothing, never /wait.
    const waits = [...byId.values()].filter((r) => taken.strings[r[5]] === '/wait');
    for (const w of waits) {
      const own = work.find(([id]) => id === w[0])!;
      let labelled = 0;
      for (let i = 0; i < taken.changes.length; i += 2) {
        const end = i + 2 < taken.changes.length ? taken.changes[i + 2] : taken.takenUs;
        if (taken.changes[i + 1] === w[0]) labelled += Math.max(0, end - taken.changes[i]);
      }
      // Labelled with its wait, what is not its work would be 20 ms or more. Its work is timed by
      // the wall clock, as the labels are: a busy machine that stretches one stretches the other.
      const rest = labelled - (own[2] - own[1]);
      assert.ok(rest < 12_000, `/wait's label holds its work, not its 20 ms wait (${rest} µs besides its work)`);
      assert.ok(w[2] - w[1] >= 20_000, 'its in-app latency includes the wait');
    }
  } finally {
    server.close();
  }
});

test('route probe: Express names the route pattern, under the router it is mounted on', async () => {
  const app = express();
  const api = express.Router();
  api.get('/orders/:id', (_req, res) => res.send('order'));
  app.use('/api', api);
  app.get('/light/:id', (_req, res) => res.send('light'));
  const server = http.createServer(app);
  const port = await listen(server);
  try {
    run(inAppCall('route-probe', 'start'));
    await turn();
    await get(port, '/api/orders/42');
    await get(port, '/light/7');
    await get(port, '/missing');
    const taken = JSON.parse(String(run(inAppCall('route-probe', 'take')))) as TakenRoutes;
    await turn();
    const routes: Record<string, string | undefined> = {};
    for (let i = 0; i < taken.requests.length; i += 7)
      routes[taken.strings[taken.requests[i + 5]]] =
        taken.requests[i + 6] >= 0 ? taken.strings[taken.requests[i + 6]] : undefined;
    assert.deepEqual(routes, { '/api/orders/42': '/api/orders/:id', '/light/7': '/light/:id', '/missing': undefined });
  } finally {
    server.close();
  }
});
