// Threadpool waits (src/core/analysis/time/threadpool-waits.ts) on request traces whose pool schedule follows by
// construction: the FIFO replay gives each request the start a pool of N threads gave it, the
// waits are grouped per calling line and API, and the UV_THREADPOOL_SIZE hint appears only when
// most of a wait is queueing, saying whether raising the pool can help. And mergeWaitTraces
// renumbers the sub-windows' lines and types into one list.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  inferStarts,
  poolLimitHint,
  threadpoolWaits,
  type WaitTraceInput,
} from '../../../../src/core/analysis/time/threadpool-waits.ts';
import { mergeWaitTraces } from '../../../../src/core/capture/extras/wait-traces.ts';
import type { WaitTrace } from '../../../../src/core/inspector/wait-probe.ts';

const ms = (v: number): number => v * 1000;

/** `count` requests made at once on one line, each running `runMs` on a pool of `size` threads (callbacks on time). */
function burst(count: number, size: number, runMs: number): Omit<WaitTrace, 'pending' | 'dropped' | 'activeUs'> {
  const requests: Array<[number, number, number, number]> = [];
  for (let i = 0; i < count; i++) {
    const round = Math.floor(i / size);
    requests.push([0, 0, 0, ms((round + 1) * runMs)]);
  }
  return {
    poolSize: size,
    cores: 8,
    sites: [['/ws/server.js', 18, 22, 'hashPassword']],
    types: ['PBKDF2REQUEST'],
    requests,
  };
}

describe('threadpool waits', () => {
  test('the FIFO replay starts each request when a thread frees up', () => {
    // 6 requests at t=0 on 2 threads, 10 ms each: they start at 0,0,10,10,20,20.
    const t = burst(6, 2, 10);
    assert.deepEqual([...inferStarts(t.requests, 2)], [0, 0, 10, 10, 20, 20].map(ms));
    // With 8 threads none queues.
    assert.deepEqual([...inferStarts(t.requests, 8)], [0, 0, 0, 0, 0, 0]);
    // A request made after the pool drained starts when made; never after its own callback.
    const later: WaitTraceInput['requests'] = [
      [0, 0, 0, ms(10)],
      [0, 0, ms(50), ms(55)],
      [0, 0, ms(50), ms(60)],
      [0, 0, ms(51), ms(58)],
    ];
    assert.deepEqual([...inferStarts(later, 2)], [0, ms(50), ms(50), ms(55)]);
  });

  test('waits per line and API: wait measured, queued from the replay, per request', () => {
    const t = burst(8, 2, 10);
    const [w] = threadpoolWaits(t, 8);
    assert.equal(w.file, '/ws/server.js');
    assert.equal(w.line, 18);
    assert.equal(w.function, 'hashPassword');
    assert.equal(w.api, 'crypto.pbkdf2');
    assert.equal(w.count, 8);
    assert.equal(w.perRequest, 1);
    // Waits 10,10,20,20,30,30,40,40 ms; queued 0,0,10,10,20,20,30,30.
    assert.deepEqual(w.waitMs, { p50: 20, p99: 40, total: 200 });
    assert.deepEqual(w.queuedMs, { p50: 10, p99: 30 });
  });

  test('requests still waiting at a sub-window end count per request and hold their thread, but have no wait', () => {
    const t: WaitTraceInput = {
      ...burst(2, 1, 10),
      pending: [[0, 0, ms(5), ms(100)]],
    };
    // 2 ended + 1 pending of 3 HTTP requests; the pending one held the only thread from 20 ms on.
    const [w] = threadpoolWaits(t, 3);
    assert.equal(w.count, 2);
    assert.equal(w.perRequest, 1);
    assert.deepEqual([...inferStarts([...t.requests, ...t.pending!], 1)], [0, ms(10), ms(20)]);
  });

  test('requests with no line of the user code are left out; two APIs on one line are two entries', () => {
    const t: WaitTraceInput = {
      poolSize: 4,
      cores: 2,
      sites: [['/ws/a.js', 3, 1, 'f']],
      types: ['FSREQCALLBACK', 'ZLIB'],
      requests: [
        [0, 0, 0, ms(1)],
        [0, 1, 0, ms(4)],
        [-1, 0, 0, ms(2)],
      ],
    };
    const waits = threadpoolWaits(t, undefined);
    assert.deepEqual(
      waits.map((w) => [w.api, w.count, w.perRequest]),
      [
        ['zlib', 1, 0],
        ['fs', 1, 0],
      ],
    );
  });

  test('the UV_THREADPOOL_SIZE hint: only when most of the wait is queued, and whether raising it helps', () => {
    const queued = threadpoolWaits(burst(32, 2, 10), 32)[0];
    const hint = poolLimitHint(queued, { size: 2, cores: 8 }, 1.2, 1000);
    assert.ok(hint, 'a hint when 32 requests share 2 threads');
    assert.equal(hint.rule, 'threadpool-queue');
    assert.equal(hint.line, 18);
    assert.match(hint.message, /UV_THREADPOOL_SIZE=2/);
    assert.match(hint.message, /queued for one of the threadpool's 2 threads/);
    assert.match(hint.fix, /UV_THREADPOOL_SIZE=8/);
    // Every core busy: more threads would only share them.
    const busy = poolLimitHint(queued, { size: 2, cores: 2 }, 1.95, 1000);
    assert.match(busy!.fix, /would not help: the app already keeps its 2 cores busy/);
    // Twice as many requests as threads: half the wait queued, not the pool's limit (the line is 0.6).
    assert.equal(poolLimitHint(threadpoolWaits(burst(32, 16, 10), 32)[0], { size: 16, cores: 8 }, 1, 1000), undefined);
    assert.equal(poolLimitHint(threadpoolWaits(burst(4, 4, 10), 4)[0], { size: 4, cores: 8 }, 1, 1000), undefined);
  });

  test("mergeWaitTraces renumbers each sub-window's lines and types", () => {
    const a: WaitTrace = { ...burst(2, 2, 10), pending: [[0, 0, ms(5), ms(30)]], dropped: 0, activeUs: ms(30) };
    const b = {
      poolSize: 2,
      cores: 8,
      sites: [
        ['/ws/other.js', 5, 1, 'g'] as [string, number, number, string],
        ['/ws/server.js', 18, 22, 'hashPassword'] as [string, number, number, string],
      ],
      types: ['ZLIB', 'PBKDF2REQUEST'],
      requests: [
        [0, 0, ms(100), ms(101)],
        [1, 1, ms(100), ms(110)],
        [-1, 1, ms(100), ms(110)],
      ] as Array<[number, number, number, number]>,
      pending: [],
      dropped: 2,
      activeUs: ms(20),
    };
    const m = mergeWaitTraces([a, b])!;
    assert.deepEqual(
      m.sites.map((s) => s[0]),
      ['/ws/server.js', '/ws/other.js'],
    );
    assert.deepEqual(m.types, ['PBKDF2REQUEST', 'ZLIB']);
    assert.deepEqual(m.requests.slice(2), [
      [1, 1, ms(100), ms(101)],
      [0, 0, ms(100), ms(110)],
      [-1, 0, ms(100), ms(110)],
    ]);
    assert.deepEqual(m.pending, [[0, 0, ms(5), ms(30)]]);
    assert.equal(m.dropped, 2);
    assert.equal(m.activeUs, ms(50));
    assert.equal(mergeWaitTraces([]), undefined);
  });

  test('outgoing HTTP calls: measured waits with their target, nothing queued, and they take no pool thread', () => {
    // 4 pbkdf2 at t=0 on 2 threads (10 ms each), and at t=0 two HTTP calls answering after 50 ms on
    // another line: the HTTP calls queue for nothing and do not push the pbkdf2 calls back.
    const t: WaitTraceInput = {
      poolSize: 2,
      cores: 8,
      sites: [
        ['/ws/server.js', 18, 22, 'hashPassword'],
        ['/ws/server.js', 30, 5, 'fetchDownstream'],
      ],
      types: ['PBKDF2REQUEST', 'http:GET 127.0.0.1:4000', 'fetch:GET 127.0.0.1:4000'],
      requests: [
        [1, 1, 0, ms(50)],
        [1, 1, 0, ms(52)],
        [0, 0, 0, ms(10)],
        [0, 0, 0, ms(10)],
        [0, 0, 0, ms(20)],
        [0, 0, 0, ms(20)],
        [1, 2, 0, ms(60)],
      ],
    };
    const waits = threadpoolWaits(t, 2);
    const http = waits.find((w) => w.api === 'http.request')!;
    assert.deepEqual(
      { line: http.line, target: http.target, count: http.count, perRequest: http.perRequest },
      { line: 30, target: 'GET 127.0.0.1:4000', count: 2, perRequest: 1 },
    );
    assert.deepEqual(http.waitMs, { p50: 50, p99: 52, total: 102 });
    assert.deepEqual(http.queuedMs, { p50: 0, p99: 0 });
    const fetch = waits.find((w) => w.api === 'fetch')!;
    assert.equal(fetch.waitMs.p50, 60);
    const pool = waits.find((w) => w.api === 'crypto.pbkdf2')!;
    assert.equal(pool.target, undefined);
    assert.deepEqual(pool.queuedMs, { p50: 0, p99: 10 });
    assert.equal(poolLimitHint(http, { size: 2, cores: 8 }, 0.1, 1000), undefined);
  });
});
