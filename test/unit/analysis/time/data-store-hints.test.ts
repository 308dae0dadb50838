// The repeated-query hint (src/core/analysis/time/data-store-hints.ts): on a line that sends many
// statements a request whose waits are a real share of the request, and nowhere else.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { repeatedQueryHint } from '../../../../src/core/analysis/time/data-store-hints.ts';
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
