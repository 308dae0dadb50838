// The data-store hints (src/core/analysis/time/data-store-hints.ts): repeated-query on a line that
// sends many statements a request whose waits are a real share of the request, and db-pool-queue
// on a line whose statements mostly waited for a pool's connection; nowhere else.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dbPoolQueueHint, repeatedQueryHint } from '../../../../src/core/analysis/time/data-store-hints.ts';
import { poolLimitHint, threadpoolWaits } from '../../../../src/core/analysis/time/threadpool-waits.ts';
import type { ThreadpoolWait } from '../../../../src/core/analysis/model.ts';

const wait = (o: Partial<ThreadpoolWait>): ThreadpoolWait => ({
  file: '/app/server.js',
  line: 49,
  function: 'orders',
  api: 'pg',
  target: '127.0.0.1:5432 SELECT * FROM items WHERE order_id = $1',
  count: 800,
  perRequest: 8,
  waitMs: { p50: 1.5, p99: 4, total: 1200 },
  queuedMs: { p50: 0, p99: 0 },
  ...o,
});

test('8 statements a request, 12 ms of a 15 ms request: the hint, with its figures', () => {
  const h = repeatedQueryHint(wait({}), 15, 10_000);
  assert.ok(h);
  assert.equal(h.rule, 'repeated-query');
  assert.equal(h.line, 49);
  assert.match(h.message, /sends 8 pg statements per request/);
  assert.match(h.message, /12 ms of waiting per request, 80% of its 15 ms/);
  assert.match(h.fix, /ANY\(\$1\)/);
});

test('no hint: once a request, a small share of the latency, not a data store, no latency', () => {
  assert.equal(repeatedQueryHint(wait({ perRequest: 1 }), 15, 10_000), undefined);
  assert.equal(repeatedQueryHint(wait({}), 200, 10_000), undefined, '12 ms of 200 ms');
  assert.equal(repeatedQueryHint(wait({ api: 'http.request' }), 15, 10_000), undefined);
  assert.equal(repeatedQueryHint(wait({}), undefined, 10_000), undefined);
});

test('a pool of 2: 365 of 420 ms queued, measured, gives the db-pool-queue hint, not the threadpool one', () => {
  const w = wait({
    perRequest: 1,
    target: '127.0.0.1:5432 SELECT pg_sleep($1)',
    waitMs: { p50: 420, p99: 460, total: 42_000 },
    queuedMs: { p50: 365, p99: 410 },
    poolSize: 2,
  });
  const h = dbPoolQueueHint(w, 10_000);
  assert.ok(h);
  assert.equal(h.rule, 'db-pool-queue');
  assert.match(
    h.message,
    /420 ms a call \(p50\), 365 ms of it \(87%\) for one of its pool's 2 connections; the database answered in about 55 ms/,
  );
  assert.match(h.fix, /`max` of pg's Pool or `pool: { max }` in a Knex config, now 2/);
  assert.equal(poolLimitHint(w, { size: 4, cores: 2 }, 0.5, 10_000), undefined, 'not the threadpool');
  assert.match(dbPoolQueueHint({ ...w, api: 'mysql' }, 10_000)?.fix ?? '', /`connectionLimit`/);
});

test('no db-pool-queue hint: no pool noted, little queued, not a data store', () => {
  const w = wait({ perRequest: 1, waitMs: { p50: 60, p99: 80, total: 6000 }, queuedMs: { p50: 50, p99: 70 } });
  assert.equal(dbPoolQueueHint(w, 10_000), undefined, 'no pool size');
  assert.equal(dbPoolQueueHint({ ...w, poolSize: 10, queuedMs: { p50: 2, p99: 5 } }, 10_000), undefined);
  assert.equal(dbPoolQueueHint({ ...w, poolSize: 10, api: 'http.request' }, 10_000), undefined);
});

test("threadpoolWaits: a data store's measured pool queue is its queued part, the threadpool's replay untouched", () => {
  const rows = threadpoolWaits(
    {
      poolSize: 4,
      cores: 2,
      sites: [['/app/server.js', 52, 3, 'pool']],
      types: ['pg:127.0.0.1:5432 SELECT pg_sleep($1)'],
      // Two exchanges timed from the asking (400 and 300 ms, 350 and 250 of it queued) and one that did not queue.
      requests: [
        [0, 0, 0, 400_000],
        [0, 0, 10_000, 310_000],
        [0, 0, 20_000, 70_000],
      ],
      queued: [
        [0, 350_000, 2],
        [1, 250_000, 2],
      ],
    },
    3,
  );
  assert.equal(rows.length, 1);
  const [w] = rows;
  assert.equal(w.poolSize, 2);
  assert.deepEqual(w.waitMs, { p50: 300, p99: 400, total: 750 });
  assert.deepEqual(w.queuedMs, { p50: 250, p99: 350 }, 'measured, the third not queued');
});
