// The serial-awaits hint (src/core/analysis/time/serial-awaits.ts) on constructed traces: many
// requests at once, each making a call on line 40 and one on line 41, one after the other or
// together (Promise.all). The order is told from the records, chance pairings across the
// interleaved requests removed; the hint only when the source says independent and the pair is a
// real share of the request.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { serialAwaitsHints, serialEvidence } from '../../../../src/core/analysis/time/serial-awaits.ts';
import { threadpoolWaits, type WaitTraceInput } from '../../../../src/core/analysis/time/threadpool-waits.ts';

const FILE = '/app/server.js';

/** A seeded generator (mulberry32): the same trace every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `connections` clients in a closed loop for `seconds`, each request a pg wait of `aMs` on line 40
 * and a mysql wait of `bMs` on line 41, `serial` (B made 50–400 µs after A's answer) or together
 * (B made 0–100 µs after A), then `restMs` of other work; the next request 0.2–1 ms after the answer.
 */
function trace(o: {
  connections: number;
  serial: boolean;
  aMs?: number;
  bMs?: number;
  restMs?: number;
  seconds?: number;
}) {
  const rnd = random(o.connections * 7 + (o.serial ? 1 : 2));
  const aMs = o.aMs ?? 50;
  const bMs = o.bMs ?? 50;
  const end = (o.seconds ?? 3) * 1e6;
  const requests: Array<[number, number, number, number]> = [];
  const latencies: number[] = [];
  for (let c = 0; c < o.connections; c++) {
    let t = rnd() * 5000;
    while (t < end) {
      const aMade = t;
      const aDone = aMade + aMs * 1000 * (0.95 + 0.15 * rnd());
      const bMade = o.serial ? aDone + 50 + 350 * rnd() : aMade + 100 * rnd();
      const bDone = bMade + bMs * 1000 * (0.95 + 0.15 * rnd());
      requests.push([0, 0, aMade, aDone], [1, 1, bMade, bDone]);
      const answered = Math.max(aDone, bDone) + (o.restMs ?? 1) * 1000;
      latencies.push((answered - t) / 1000);
      t = answered + 200 + 800 * rnd();
    }
  }
  const input: WaitTraceInput = {
    poolSize: 4,
    cores: 2,
    sites: [
      [FILE, 40, 5, '/serial'],
      [FILE, 41, 5, '/serial'],
    ],
    types: ['pg:127.0.0.1:5432 SELECT pg_sleep($1)', 'mysql:127.0.0.1:3306 SELECT SLEEP(?)'],
    requests,
    served: latencies.length,
  };
  latencies.sort((x, y) => x - y);
  return { input, latencyMs: latencies[Math.floor(latencies.length / 2)] };
}

/** As the source tells it when nothing is shared: the earlier line first (await-dependence.ts). */
const inOrder = (a: { line: number }, b: { line: number }): boolean => a.line < b.line;

function hints(t: ReturnType<typeof trace>, independent: typeof inOrder = inOrder) {
  const waits = threadpoolWaits(t.input, t.input.served);
  return serialAwaitsHints(t.input, waits, t.latencyMs, 10_000, independent);
}

for (const connections of [1, 8, 64]) {
  test(`serial and independent at ${connections} connections: the hint on the second line, with its figures`, () => {
    const t = trace({ connections, serial: true });
    const h = hints(t);
    assert.equal(h.length, 1, JSON.stringify(h));
    assert.equal(h[0].rule, 'serial-awaits');
    assert.equal(h[0].line, 41);
    assert.equal(h[0].api, 'mysql');
    assert.match(
      h[0].message,
      /^Two independent waits, 5\d ms on server\.js:40 \(pg 127\.0\.0\.1:5432 SELECT pg_sleep\(\$1\)\) and 5\d ms on server\.js:41 \(mysql 127\.0\.0\.1:3306 SELECT SLEEP\(\?\)\), one after another: 1\d\d ms per request, \d+% of its 1\d\d ms \(p50\); run together they would take about 5\d ms\./,
    );
    assert.match(h[0].fix, /Promise\.all/);
  });

  test(`Promise.all at ${connections} connections: never the hint`, () => {
    const t = trace({ connections, serial: false });
    assert.deepEqual(hints(t), []);
  });
}

test('the evidence: serial B follows A after chance is removed; together it is made with A', () => {
  const calls = (t: ReturnType<typeof trace>, site: number) => {
    const rs = t.input.requests.filter((r) => r[0] === site);
    return { made: rs.map((r) => r[2]).sort((x, y) => x - y), done: rs.map((r) => r[3]).sort((x, y) => x - y) };
  };
  const serial = trace({ connections: 64, serial: true });
  const s = serialEvidence(calls(serial, 0), calls(serial, 1));
  assert.ok(s && s.serial >= 0.9 && s.together <= 0.1, JSON.stringify(s));
  const together = trace({ connections: 64, serial: false });
  const p = serialEvidence(calls(together, 0), calls(together, 1));
  assert.ok(p && p.together >= 0.9, JSON.stringify(p));
  // The other way round (B's answer, then the next request's A) is the turnaround between requests.
  const back = serialEvidence(calls(together, 1), calls(together, 0));
  assert.ok(back && back.together >= 0.9, JSON.stringify(back));
});

test('no hint when the source says the second uses the first result', () => {
  const t = trace({ connections: 8, serial: true });
  assert.deepEqual(
    hints(t, () => false),
    [],
  );
});

test('no hint when the two waits are a small share of the request', () => {
  // 10 + 10 ms of waiting in a request that then works 100 ms more: 17%.
  const t = trace({ connections: 8, serial: true, aMs: 10, bMs: 10, restMs: 100 });
  assert.deepEqual(hints(t), []);
  // The same pair in a request that works 20 ms more: about half of it, the hint.
  assert.equal(hints(trace({ connections: 8, serial: true, aMs: 10, bMs: 10, restMs: 20 })).length, 1);
});

test('no hint for lines in different functions, or a line called many times a request', () => {
  const t = trace({ connections: 8, serial: true });
  const other = { ...t.input, sites: [t.input.sites[0], [FILE, 41, 5, 'other'] as const] };
  assert.deepEqual(serialAwaitsHints(other, threadpoolWaits(other, other.served), t.latencyMs, 10_000, inOrder), []);
  const fewer = { ...t.input, served: Math.round(t.input.served! / 3) };
  assert.deepEqual(serialAwaitsHints(fewer, threadpoolWaits(fewer, fewer.served), t.latencyMs, 10_000, inOrder), []);
});

/** Recorded by the probe on test/apps/datastores at 32 connections (WAIT_MS=50; sites' folder renamed /app). */
const recorded = (name: string): WaitTraceInput =>
  JSON.parse(
    fs.readFileSync(path.join(__dirname, '..', '..', '..', 'fixtures', 'waits', name), 'utf8'),
  ) as WaitTraceInput;

test('recorded at 32 connections: /serial (pg then mysql) gets the hint, /parallel (both sent, then awaited) none', () => {
  // Requests in step at 32 connections make unrelated calls a turnaround apart (56% of /serial's
  // mysql calls within 2 ms of some pg call made, 15% within 0.5 ms): together is told at 0.5 ms,
  // where Promise.all's calls are (99%).
  const serial = recorded('serial-32.json');
  const s = serialAwaitsHints(serial, threadpoolWaits(serial, serial.served), 127.1, 1544.57, inOrder);
  assert.equal(s.length, 1, JSON.stringify(s));
  assert.equal(s[0].line, 58);
  assert.match(
    s[0].message,
    /on server\.js:57 \(pg .*on server\.js:58 \(mysql .*one after another: 1\d\d ms per request/,
  );
  const parallel = recorded('parallel-32.json');
  assert.deepEqual(
    serialAwaitsHints(parallel, threadpoolWaits(parallel, parallel.served), 118.27, 1734.54, inOrder),
    [],
  );
  // Whichever order the source had them in.
  assert.deepEqual(
    serialAwaitsHints(parallel, threadpoolWaits(parallel, parallel.served), 118.27, 1734.54, () => true),
    [],
  );
});
