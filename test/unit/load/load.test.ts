// LoadRun against a real HTTP server in this process, with the real runner child
// (dist/load-runner.js: run `node esbuild.mjs` first). Phases are switched on the runner's own
// ticks, never on sleeps; assertions are about behaviour, not speed.

import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import {
  LoadError,
  LoadRun,
  normalizeLoadOptions,
  resolveRunnerPath,
  type LoadPhase,
  type LoadTick,
  type PhaseResult,
} from '../../../src/core/load/load-run.ts';
import { parseRunnerMessage, type ParentMessage } from '../../../src/core/load/runner-protocol.ts';
import { latencyHistogram, summarize } from '../../../src/core/load/runner.ts';
import type { LatencySummary } from '../../../src/core/report/index.ts';

const TEST_TIMEOUT = { timeout: 20_000 };

let server: http.Server;
let base = '';
let okServed = 0;
let mixedSeen = 0;

before(async () => {
  server = http.createServer((req, res) => {
    switch (req.url) {
      case '/ok': {
        const until = performance.now() + 1; // a little CPU per request
        while (performance.now() < until);
        okServed++;
        res.end('ok');
        return;
      }
      case '/fail':
        res.statusCode = 500;
        res.end('no');
        return;
      case '/hang':
        return; // never answers
      case '/mixed':
        if (++mixedSeen % 10 === 0) return; // every 10th request never answers
        res.end('ok');
        return;
      case '/close':
        res.setHeader('connection', 'close');
        res.end('ok');
        return;
      default:
        res.statusCode = 404;
        res.end();
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

/** Collects ticks; `when(pred)` resolves on the first tick (past or future) matching pred. */
class Ticks {
  readonly all: LoadTick[] = [];
  private waiters: { pred: (t: LoadTick) => boolean; resolve: (t: LoadTick) => void }[] = [];
  readonly on = (t: LoadTick): void => {
    this.all.push(t);
    this.waiters = this.waiters.filter((w) => (w.pred(t) ? (w.resolve(t), false) : true));
  };
  when(pred: (t: LoadTick) => boolean): Promise<LoadTick> {
    const seen = this.all.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ pred, resolve }));
  }
  of(phase: LoadPhase): LoadTick[] {
    return this.all.filter((t) => t.phase === phase);
  }
}

function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function assertSane(r: PhaseResult, phase: LoadPhase): void {
  assert.equal(r.phase, phase);
  assert.ok(r.durationS > 0);
  for (const l of [r.latencyMs, r.completedLatencyMs]) {
    assert.ok(l.p50 <= l.p90 && l.p90 <= l.p99 && l.p99 <= l.max, JSON.stringify(l));
    assert.ok(l.mean <= l.max);
  }
  const byCode = Object.values(r.statusCodes).reduce((a, b) => a + b, 0);
  assert.equal(byCode, r.requests.total);
  assert.ok(r.errors >= r.timeouts);
  assert.ok(r.loadCpu >= 0);
}

test('options: non-loopback and malformed targets are refused with LoadError', async () => {
  for (const url of [
    'http://example.com/',
    'http://10.0.0.1:3000/',
    'http://[::2]/',
    'http://128.0.0.1/',
    'ftp://127.0.0.1/',
    '/login',
  ]) {
    await assert.rejects(
      LoadRun.start({ url }),
      (e: unknown) => e instanceof LoadError && e.code === 'bad-options',
      url,
    );
  }
  for (const url of [
    'http://127.0.0.1:1/a',
    'http://127.9.8.7/',
    'http://localhost:3000/',
    'http://[::1]:3000/',
    'https://127.0.0.1/',
  ]) {
    assert.doesNotThrow(() => normalizeLoadOptions({ url }), url);
  }
  assert.deepEqual(normalizeLoadOptions({ url: 'http://127.0.0.1:3000/x?y=1' }), {
    url: 'http://127.0.0.1:3000/x?y=1',
    method: 'GET',
    headers: {},
    connections: 10,
    pipelining: 1,
    timeoutS: 10,
  });
  const refused = [
    { method: 'HEAD' }, // autocannon would wait for a body: every request times out
    { connections: 0 },
    { pipelining: 1.5 },
    { timeoutS: 0.5 }, // autocannon's minimum is 1 s
    { headers: { 'x-a': 'b\r\nInjected: 1' } },
  ];
  for (const extra of refused) {
    assert.throws(() => normalizeLoadOptions({ url: 'http://127.0.0.1/', ...extra }), LoadError, JSON.stringify(extra));
  }
});

test('summarize: timeouts enter the percentiles at the timeout value', () => {
  const of = (ms: number[]): ReturnType<typeof latencyHistogram> => {
    const h = latencyHistogram();
    for (const v of ms) h.recordValue(v * 1000);
    return h;
  };
  // HDR keeps 3 significant digits: each figure is within 0.1% of the exact one.
  const near = (actual: LatencySummary, expected: LatencySummary): void => {
    for (const k of ['mean', 'p50', 'p90', 'p99', 'max'] as const) {
      assert.ok(Math.abs(actual[k] - expected[k]) <= expected[k] * 0.001, `${k}: ${actual[k]} ≈ ${expected[k]}`);
    }
  };
  const ten = of([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  near(summarize(ten, 55), { mean: 5.5, p50: 5, p90: 9, p99: 10, max: 10 });
  // 10 completed + 10 timeouts at 1000 ms: half the requests took >= 1000 ms.
  near(summarize(ten, 55, 10, 1000), { mean: 502.75, p50: 10, p90: 1000, p99: 1000, max: 1000 });
  // A completion slower than the timeout value stays above it.
  near(summarize(of([1, 1200]), 1201, 2, 1000), { mean: 800.25, p50: 1000, p90: 1200, p99: 1200, max: 1200 });
  assert.deepEqual(summarize(latencyHistogram(), 0), { mean: 0, p50: 0, p90: 0, p99: 0, max: 0 });
  // The figures of the completed requests are not changed by summarizing with timeouts.
  near(summarize(ten, 55), { mean: 5.5, p50: 5, p90: 9, p99: 10, max: 10 });
});

test('three phases on one continuous load: counts per phase, ticks, no lost requests', TEST_TIMEOUT, async () => {
  const ticks = new Ticks();
  const connections = 4;
  okServed = 0;
  const run = await LoadRun.start({ url: `${base}/ok`, connections }, ticks.on);
  assert.equal(run.phase, 'warmup');
  assert.ok(run.pid > 0);

  await ticks.when((t) => t.phase === 'warmup' && t.second === 1);
  const warmup = await run.switchPhase('measured');
  await ticks.when((t) => t.phase === 'measured' && t.second === 1);
  const measured = await run.switchPhase('profiled');
  await ticks.when((t) => t.phase === 'profiled' && t.second === 1);
  const profiled = await run.finish();

  const results: [PhaseResult, LoadPhase][] = [
    [warmup, 'warmup'],
    [measured, 'measured'],
    [profiled, 'profiled'],
  ];
  for (const [r, phase] of results) {
    assertSane(r, phase);
    assert.ok(r.requests.total > 0, `${phase}: requests counted`);
    assert.ok(r.requests.perSecond > 0);
    assert.equal(r.statusCodes['200'], r.requests.total);
    assert.equal(r.non2xx, 0);
    assert.equal(r.errors, 0);
    assert.equal(r.timeouts, 0);
    assert.deepEqual(r.latencyMs, r.completedLatencyMs, 'no timeouts: both summaries agree');
    assert.ok(r.latencyMs.p50 > 0);
    assert.ok(r.bytesPerSecond > 0);
  }
  // One continuous load: every response the server sent is in exactly one phase, except the
  // at most one in flight per connection when the load stopped.
  const counted = warmup.requests.total + measured.requests.total + profiled.requests.total;
  assert.ok(okServed >= counted && okServed - counted <= connections, `served ${okServed}, counted ${counted}`);

  // Ticks: phases in order, seconds increasing from 1 within each phase.
  const order = ticks.all.map((t) => t.phase).filter((p, i, a) => a.indexOf(p) === i);
  assert.deepEqual(order, ['warmup', 'measured', 'profiled']);
  for (const phase of order) {
    assert.deepEqual(
      ticks.of(phase).map((t) => t.second),
      ticks.of(phase).map((_, i) => i + 1),
    );
  }
  assert.ok(ticks.all.every((t) => t.errors === 0 && t.non2xx === 0));
  assert.ok(ticks.of('measured')[0].requests > 0);

  await run.exited;
  assert.ok(isGone(run.pid), 'runner gone after finish');
  await assert.rejects(run.switchPhase('measured'), (e: unknown) => e instanceof LoadError && e.code === 'finished');
});

test(
  'sub-windows: a phase entered again adds to its total (time, requests, exact percentiles)',
  TEST_TIMEOUT,
  async () => {
    const ticks = new Ticks();
    const run = await LoadRun.start({ url: `${base}/ok`, connections: 2 }, ticks.on);
    const windows: PhaseResult[] = [];
    await ticks.when((t) => t.phase === 'warmup' && t.second === 1);
    for (const phase of ['measured', 'profiled', 'measured', 'profiled'] as const) {
      await run.switchPhase(phase);
      await ticks.when((t) => t.phase === phase && t.second === 1);
      windows.push(await run.switchPhase('warmup'));
    }
    assert.equal(run.total('measured')?.requests.total, windows[0].requests.total + windows[2].requests.total);
    assert.equal(run.total('profiled')?.requests.total, windows[1].requests.total + windows[3].requests.total);
    const sumS = windows[0].durationS + windows[2].durationS;
    assert.ok(
      Math.abs(run.total('measured')!.durationS - sumS) < 0.01,
      `total ${run.total('measured')!.durationS} s = ${sumS} s of sub-windows, not the time between them`,
    );
    const maxOf = Math.max(windows[0].latencyMs.max, windows[2].latencyMs.max);
    assert.equal(run.total('measured')!.latencyMs.max, maxOf);
    await run.finish();
  },
);

test('non-2xx responses are counted per status code', TEST_TIMEOUT, async () => {
  const ticks = new Ticks();
  const run = await LoadRun.start({ url: `${base}/fail`, connections: 2 }, ticks.on);
  await ticks.when((t) => t.second === 1);
  const r = await run.finish();
  assertSane(r, 'warmup');
  assert.ok(r.requests.total > 0);
  assert.equal(r.non2xx, r.requests.total);
  assert.deepEqual(r.statusCodes, { '500': r.requests.total });
  assert.equal(r.errors, 0);
  assert.ok(ticks.all[0].non2xx > 0);
});

test('timeouts are errors and count in latencyMs at the timeout value', TEST_TIMEOUT, async () => {
  const ticks = new Ticks();
  let errorsSeen = 0;
  const run = await LoadRun.start({ url: `${base}/mixed`, connections: 4, timeoutS: 1 }, (t) => {
    errorsSeen += t.errors;
    ticks.on(t);
  });
  await ticks.when(() => errorsSeen >= 4);
  const r = await run.finish();
  assertSane(r, 'warmup');
  assert.ok(r.timeouts >= 1, 'timeouts counted');
  assert.equal(r.errors, r.timeouts, 'only timeouts went wrong');
  assert.ok(r.requests.total > 0, 'the other requests completed');
  assert.deepEqual(Object.keys(r.statusCodes), ['200']);
  assert.ok(r.latencyMs.max >= 1000, `latencyMs.max ${r.latencyMs.max} includes the 1 s timeouts`);
  assert.ok(r.latencyMs.mean > r.completedLatencyMs.mean);
  if (r.timeouts / (r.timeouts + r.requests.total) > 0.01) {
    assert.ok(r.latencyMs.p99 >= 1000, 'over 1% timed out, so p99 is at least the timeout');
  }
});

test('requests that never answer: no completions, every one timed out', TEST_TIMEOUT, async () => {
  const ticks = new Ticks();
  const run = await LoadRun.start({ url: `${base}/hang`, connections: 2, timeoutS: 1 }, ticks.on);
  await ticks.when((t) => t.errors > 0);
  const r = await run.finish();
  assert.equal(r.requests.total, 0);
  assert.ok(r.timeouts >= 1);
  assert.deepEqual(r.latencyMs, { mean: 1000, p50: 1000, p90: 1000, p99: 1000, max: 1000 });
  assert.deepEqual(r.completedLatencyMs, { mean: 0, p50: 0, p90: 0, p99: 0, max: 0 });
});

test('an unreachable target still returns figures, with the errors counted', TEST_TIMEOUT, async () => {
  const closed = http.createServer();
  closed.listen(0, '127.0.0.1');
  await once(closed, 'listening');
  const port = (closed.address() as AddressInfo).port;
  closed.close();
  await once(closed, 'close');

  const ticks = new Ticks();
  const run = await LoadRun.start({ url: `http://127.0.0.1:${port}/`, connections: 2 }, ticks.on);
  await ticks.when((t) => t.second === 1);
  const r = await run.finish();
  assertSane(r, 'warmup');
  assert.equal(r.requests.total, 0);
  assert.ok(r.errors > 0, 'connection refusals counted');
  assert.equal(r.timeouts, 0);
  assert.ok(ticks.all[0].errors > 0);
});

test('responses with Connection: close keep honest latencies across reconnects', TEST_TIMEOUT, async () => {
  // Unrepaired, autocannon@9 times every response after a reconnect from a lost request:
  // the p50 of this trivial route grows to hundreds of ms within two seconds.
  const ticks = new Ticks();
  const run = await LoadRun.start({ url: `${base}/close`, connections: 2 }, ticks.on);
  await ticks.when((t) => t.second === 2);
  const r = await run.finish();
  assert.ok(r.requests.total > 0);
  assert.equal(r.errors, 0);
  // Each connection sends its requests one after another (no pipelining), so the latencies it
  // times cannot add up to more than the window: timed from a lost request's start they did
  // (hundreds of ms each, thousands of requests), whatever the machine's speed. Summed from the
  // mean; the slack: one request per connection in flight across the window's edge.
  const summedMs = r.completedLatencyMs.mean * r.requests.total;
  assert.ok(
    summedMs <= 2 * (r.durationS * 1000 + r.completedLatencyMs.max),
    `latencies sum to ${summedMs.toFixed(0)} ms over 2 connections in a ${r.durationS} s window`,
  );
});

test('kill() stops the runner at once and leaves no process; idempotent', TEST_TIMEOUT, async () => {
  const run = await LoadRun.start({ url: `${base}/ok`, connections: 2 });
  const pid = run.pid;
  assert.ok(!isGone(pid));
  run.kill();
  run.kill();
  await assert.rejects(run.switchPhase('measured'), (e: unknown) => e instanceof LoadError && e.code === 'killed');
  await assert.rejects(run.finish(), (e: unknown) => e instanceof LoadError && e.code === 'killed');
  await run.exited;
  assert.ok(isGone(pid), 'runner process is gone');
  run.kill(); // after exit: still no throw
});

test('the runner exits when its IPC channel closes (no orphan load)', TEST_TIMEOUT, async () => {
  const child = fork(resolveRunnerPath(), [], { execArgv: [], stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
  const started = new Promise<void>((resolve) => {
    child.on('message', (raw: unknown) => {
      if (parseRunnerMessage(raw)?.type === 'started') resolve();
    });
  });
  child.send({ type: 'unknown-message' }); // ignored by contract
  const start: ParentMessage = {
    type: 'start',
    options: normalizeLoadOptions({ url: `${base}/ok`, connections: 2 }),
  };
  child.send(start);
  await started;
  const exited = once(child, 'exit');
  child.disconnect();
  const [code] = (await exited) as [number | null];
  assert.equal(code, 0);
  assert.ok(child.pid !== undefined && isGone(child.pid));
});
