// The claim contract of `hotline mcp`'s verify tool (src/mcp/claims.ts): which figures decide,
// and the one word an assistant may say from them. Synthetic comparisons: each case sets only
// the figures the rule reads.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Comparison, Delta } from '../../../src/core/index.ts';
import { verdictOf, type Verdict } from '../../../src/mcp/claims.ts';

type Word = 'better' | 'worse' | 'within noise' | 'too short';

/** A figure moved by `pct`, with its 95% interval and its verdict (4 sub-windows a side). */
function d(
  base: number,
  pct: number,
  verdict: Word,
  interval: [number, number] | undefined = [pct - 5, pct + 5],
): Delta {
  return {
    base,
    current: base * (1 + pct / 100),
    change: (base * pct) / 100,
    changePct: pct,
    noise: {
      changePct: pct,
      ...(interval && verdict !== 'too short' ? { lowPct: interval[0], highPct: interval[1] } : {}),
      verdict,
      samples: verdict === 'too short' ? { base: 2, current: 2 } : { base: 4, current: 4 },
    },
  };
}

function comparison(o: {
  rps: Delta;
  p99: Delta;
  cpu?: Delta;
  saturated?: boolean;
  loop?: { busy: [number, number]; p99: Delta };
}): Comparison {
  const flat = d(1, 0, 'within noise');
  return {
    baseId: 'base',
    currentId: 'now',
    unit: 'ms/request',
    categories: {} as Comparison['categories'],
    functions: [],
    lines: [],
    load: {
      requestsPerSecond: o.rps,
      latencyMs: { p50: flat, p90: flat, p99: o.p99, max: flat },
      errors: flat,
      timeouts: flat,
      non2xx: flat,
      ...(o.cpu ? { cpuPerRequestMs: o.cpu } : {}),
      saturated: o.saturated ?? false,
    },
    ...(o.loop
      ? {
          eventLoop: {
            p50: flat,
            p99: o.loop.p99,
            max: flat,
            utilization: { base: o.loop.busy[0], current: o.loop.busy[1], change: 0 },
          },
        }
      : {}),
  };
}

const verdict = (c: Comparison): Verdict => {
  const v = verdictOf(c);
  assert.ok(!('none' in v), 'a verdict');
  return v;
};

test('faster only when a deciding figure is better beyond noise and none is worse; the interval comes with it', () => {
  const v = verdict(comparison({ rps: d(10, 40, 'better', [12, 70]), p99: d(900, -3, 'within noise') }));
  assert.equal(v.claim, 'faster');
  assert.equal(v.decidedBy.figure, 'req/s');
  assert.deepEqual(v.decidedBy.interval, { lowPct: 12, highPct: 70 });
  assert.match(v.mayClaim, /^Faster: req\/s \+40% \(95% interval \+12% to \+70%\)/);
});

test('within noise, slower, mixed and too short are never faster', () => {
  const noise = verdict(comparison({ rps: d(10, 8, 'within noise'), p99: d(900, -6, 'within noise') }));
  assert.equal(noise.claim, 'within noise');
  assert.match(noise.mayClaim, /Do not say it is faster/);
  const slower = verdict(comparison({ rps: d(10, -30, 'worse', [-50, -10]), p99: d(900, 2, 'within noise') }));
  assert.equal(slower.claim, 'slower');
  assert.equal(slower.decidedBy.figure, 'req/s');
  const mixed = verdict(comparison({ rps: d(10, 30, 'better', [10, 50]), p99: d(900, 40, 'worse', [5, 80]) }));
  assert.equal(mixed.claim, 'mixed');
  assert.match(mixed.mayClaim, /do not call it faster/);
  const short = verdict(comparison({ rps: d(10, 60, 'too short'), p99: d(900, -50, 'too short') }));
  assert.equal(short.claim, 'too short to tell');
  assert.equal(short.decidedBy.interval, null);
  assert.match(short.mayClaim, /too short to tell \(2 sub-windows a side/);
});

test('a loop saturated in both runs: CPU per request decides, req/s and p99 do not', () => {
  const c = comparison({
    rps: d(10, 50, 'better', [20, 80]),
    p99: d(900, -40, 'better', [-60, -20]),
    cpu: d(70, 1, 'within noise'),
    saturated: true,
    loop: { busy: [0.99, 0.98], p99: d(500, -10, 'better', [-15, -5]) },
  });
  const v = verdict(c);
  assert.equal(v.claim, 'within noise', 'a busier or quieter machine moved req/s; the code did not change the CPU');
  assert.deepEqual(
    v.figures.map((f) => f.figure),
    ['cpu/request'],
  );
});

test('an edit that freed a saturated loop: its delay p99 decides too', () => {
  const c = comparison({
    rps: d(10, -5, 'within noise'),
    p99: d(900, 10, 'within noise'),
    cpu: d(70, 2, 'within noise'),
    loop: { busy: [0.99, 0.1], p99: d(600, -97, 'better', [-98, -95]) },
  });
  const v = verdict(c);
  assert.equal(v.claim, 'faster');
  assert.equal(v.decidedBy.figure, 'loop delay p99');
  assert.match(v.mayClaim, /loop delay p99 -97% \(95% interval -98% to -95%\)/);
  // The same loop still saturated after the edit: its delay does not decide.
  const still = verdict(
    comparison({
      rps: d(10, -5, 'within noise'),
      p99: d(900, 10, 'within noise'),
      loop: { busy: [0.99, 0.97], p99: d(600, -20, 'better') },
    }),
  );
  assert.equal(still.claim, 'within noise');
});

test('a run without sub-windows has no verdict figure: too short to tell, never a claim from one number', () => {
  const bare = (base: number, current: number): Delta => ({ base, current, change: current - base });
  const v = verdict(comparison({ rps: bare(10, 30), p99: bare(900, 100) }));
  assert.equal(v.claim, 'too short to tell');
  assert.match(v.mayClaim, /no sub-windows/);
});

test('no load figures: no verdict, a reason', () => {
  const c = comparison({ rps: d(1, 0, 'within noise'), p99: d(1, 0, 'within noise') });
  delete c.load;
  assert.deepEqual(verdictOf(c), { none: 'one of the runs has no load figures: nothing to claim about requests' });
});
