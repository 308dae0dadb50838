// Issue 40: the gate's measure, what it could see, and its time budget, on constructed rounds.
// - CPU per request of the app's process tree (/proc, capture/tree-cpu.ts) is preferred to the
//   inspector's, and side by side (`pickMeasure`) the measure whose rounds spread less decides;
// - detectablePct is the slowdown caught in 80% of gates at the run's noise (checked by simulating
//   gates), samplesToDecide the rounds identical code needs to pass;
// - roundsWithin: the rounds a time budget allows.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { compareSideBySide, type SideBySideFigures } from '../../../src/core/verdicts/compare-side-by-side.ts';
import { regressionGate, sensitivity } from '../../../src/core/verdicts/gate.ts';
import type { SubWindowFigures } from '../../../src/core/report/schema.ts';
import { pairedChangeOf, tQuantile } from '../../../src/core/verdicts/verdict.ts';
import { roundsWithin } from '../../../src/core/capture/side-by-side.ts';
import { ticksOfStat, treeCpuMsPerRequest, treeCpuSeconds } from '../../../src/core/capture/tree-cpu.ts';
import { seeingLines } from '../../../src/cli/gate-command.ts';

/** A deterministic normal sampler (mulberry32 + Box–Muller). */
function normal(seed: number): () => number {
  let a = seed >>> 0;
  const uniform = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(uniform() || 1e-12)) * Math.cos(2 * Math.PI * uniform());
}

interface RoundsSpec {
  /** Per round, the current ÷ base ratio of CPU per request (from /proc) and of req/s. */
  cpuRatio: number[];
  rpsRatio: number[];
  utilization: number;
  /** The inspector's CPU per request, per round ratio (default: the /proc one). */
  inspectorCpuRatio?: number[];
  withTree?: boolean;
}

/** Side-by-side figures of R rounds, base CPU 2 ms a request and 500 req/s, as `hotline gate` keeps them. */
function figures(spec: RoundsSpec): SideBySideFigures {
  const n = spec.cpuRatio.length;
  const win = (cpu: number, rps: number): SubWindowFigures => ({
    durationS: 2,
    requests: Math.round(rps * 2),
    perSecond: rps,
    latencyMs: { p50: 10, p99: 20 },
    errors: 0,
    timeouts: 0,
    cpuMsPerRequest: cpu,
    utilization: spec.utilization,
  });
  const inspector = spec.inspectorCpuRatio ?? spec.cpuRatio;
  const side = (id: string, cur: boolean): SideBySideFigures['base'] => ({
    id,
    windows: Array.from({ length: n }, (_, i) => win(cur ? 2 * inspector[i] : 2, cur ? 500 * spec.rpsRatio[i] : 500)),
    latencyP90Ms: Array.from({ length: n }, () => 15),
    latencyMaxMs: Array.from({ length: n }, () => 30),
    non2xx: 0,
    ...(spec.withTree !== false
      ? { treeCpuMsPerRequest: Array.from({ length: n }, (_, i) => (cur ? 2.1 * spec.cpuRatio[i] : 2.1)) }
      : {}),
  });
  return {
    version: 1,
    rounds: n,
    windowS: 2,
    freshEachRound: true,
    base: side('base', false),
    current: side('cur', true),
  };
}

/** R ratios around `change` whose logs have exactly the sample SD `sd` (alternating ±). */
function exact(change: number, sd: number, n: number): number[] {
  const dev = Array.from({ length: n }, (_, i): number => (i % 2 === 0 ? 1 : -1));
  if (n % 2 === 1) dev[n - 1] = 0;
  const ss = dev.reduce((a, b) => a + b * b, 0);
  const scale = sd * Math.sqrt((n - 1) / ss);
  return dev.map((d) => Math.exp(Math.log(1 + change) + d * scale));
}

test('/proc stat: utime+stime+cutime+cstime, after the last ")" of a comm with spaces and parentheses', () => {
  const line = '4242 (node (a) b) S 1 4242 4242 0 -1 4194560 100 0 0 0 120 30 7 3 20 0 11 0 999 1000 50';
  assert.equal(ticksOfStat(line), 120 + 30 + 7 + 3);
  assert.equal(ticksOfStat('garbage'), undefined);
});

test(
  "the process tree's CPU holds a child's CPU, alive and once reaped",
  { skip: process.platform !== 'linux' },
  async () => {
    const before = treeCpuSeconds(process.pid)!;
    assert.ok(before >= 0);
    // A child that burns ~0.4 s of CPU, says how much it used, and waits to be told to exit.
    const child = spawn(
      process.execPath,
      [
        '-e',
        "const t=Date.now();let x=0;while(Date.now()-t<400)x+=Math.sqrt(x+1);const u=process.cpuUsage();process.stdout.write(String((u.user+u.system)/1e6)+'\\n');process.stdin.once('data',()=>process.exit(0));",
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
    const childCpuS = Number(chunk.toString());
    assert.ok(childCpuS > 0.1, `the child used ${childCpuS} s`);
    const alive = treeCpuSeconds(process.pid)!;
    // Ticks of 10 ms at both ends: within 0.03 s of the child's own count, plus this process's.
    assert.ok(alive - before >= childCpuS - 0.03, `tree +${alive - before} s, child ${childCpuS} s`);
    child.stdin.write('x');
    await once(child, 'exit');
    const reaped = treeCpuSeconds(process.pid)!;
    assert.ok(reaped - before >= childCpuS - 0.03, `after the exit: tree +${reaped - before} s, child ${childCpuS} s`);
    assert.equal(treeCpuSeconds(-1), undefined);
  },
);

test('CPU per request over a window is a ratio of rates: the marks and the load may span different times', () => {
  // 1.5 s of CPU in 3 s between the marks (0.5 core), 1000 requests in the load's 2 s: 1 ms each.
  assert.equal(
    treeCpuMsPerRequest({ cpuS: 10, atS: 100 }, { cpuS: 11.5, atS: 103 }, { requests: 1000, durationS: 2 }),
    1,
  );
  assert.equal(
    treeCpuMsPerRequest({ cpuS: 10, atS: 100 }, { cpuS: 10, atS: 103 }, { requests: 1000, durationS: 2 }),
    undefined,
  );
  assert.equal(treeCpuMsPerRequest(undefined, { cpuS: 1, atS: 1 }, { requests: 10, durationS: 1 }), undefined);
  assert.equal(treeCpuMsPerRequest({ cpuS: 0, atS: 0 }, { cpuS: 1, atS: 1 }, { requests: 0, durationS: 1 }), undefined);
});

test("/proc CPU per request is compared when both sides have it for every round, else the inspector's", () => {
  const spec = { cpuRatio: exact(0, 0.005, 6), rpsRatio: exact(0, 0.005, 6), utilization: 0.95 };
  // The inspector's reading says +10%; the tree's says no change: the tree's is compared.
  const f = figures({ ...spec, inspectorCpuRatio: Array.from({ length: 6 }, () => 1.1) });
  const cpu = compareSideBySide(f).load!.cpuPerRequestMs!;
  assert.equal(cpu.base, 2.1);
  assert.ok(Math.abs(cpu.noise!.changePct) < 0.5, JSON.stringify(cpu));
  const partial = figures({ ...spec, inspectorCpuRatio: Array.from({ length: 6 }, () => 1.1) });
  partial.current.treeCpuMsPerRequest = partial.current.treeCpuMsPerRequest!.slice(0, 5);
  const fallback = compareSideBySide(partial).load!.cpuPerRequestMs!;
  assert.equal(fallback.base, 2);
  assert.equal(fallback.noise!.changePct, 10);
});

test('side by side, CPU per request decides an app whose loop had room when its rounds spread less', () => {
  // Identical code; req/s rounds spread 8% (a neighbour's bursts), CPU per request 1%.
  const f = figures({ cpuRatio: exact(0, 0.01, 10), rpsRatio: exact(0, 0.08, 10), utilization: 0.5 });
  const c = compareSideBySide(f, 0.99);
  const picked = regressionGate(c, 5, { pickMeasure: true, confidence: 0.99, cpuSource: '/proc' });
  assert.ok(picked.decided);
  assert.deepEqual(picked.decidedBy?.figures, ['cpu/request']);
  assert.match(picked.decidedBy!.why, /CPU per request \(\/proc\): its rounds spread less/);
  assert.equal(picked.failed, false);
  assert.equal(picked.inconclusive, false);
  assert.ok(picked.checks.find((x) => x.figure === 'req/s')?.notGated);
  // The same rounds without the choice: req/s and p99 decide, and cannot rule out 5%.
  const plain = regressionGate(c, 5, { confidence: 0.99 });
  assert.ok(plain.decided);
  assert.deepEqual(plain.decidedBy?.figures, ['req/s', 'latency p99']);
  assert.equal(plain.inconclusive, true);
});

test('side by side, req/s and latency decide an app whose loop had room when CPU per request spreads more', () => {
  const f = figures({ cpuRatio: exact(0, 0.08, 10), rpsRatio: exact(0, 0.01, 10), utilization: 0.5 });
  const v = regressionGate(compareSideBySide(f, 0.99), 5, { pickMeasure: true, confidence: 0.99 });
  assert.ok(v.decided);
  assert.deepEqual(v.decidedBy?.figures, ['req/s', 'latency p99']);
  assert.match(v.checks.find((x) => x.figure === 'cpu/request')!.notGated!, /interval is the wider/);
});

test('a saturated app is decided by CPU per request whatever the spreads, and a 10% costlier one fails', () => {
  const same = regressionGate(
    compareSideBySide(figures({ cpuRatio: exact(0, 0.05, 10), rpsRatio: exact(0, 0.01, 10), utilization: 0.97 })),
    5,
    { pickMeasure: true },
  );
  assert.ok(same.decided);
  assert.deepEqual(same.decidedBy?.figures, ['cpu/request']);
  assert.match(same.decidedBy!.why, /saturated/);
  const slower = regressionGate(
    compareSideBySide(figures({ cpuRatio: exact(0.1, 0.015, 10), rpsRatio: exact(-0.09, 0.1, 10), utilization: 0.5 })),
    5,
    { pickMeasure: true },
  );
  assert.ok(slower.decided);
  assert.equal(slower.failed, true);
  assert.deepEqual(slower.decidedBy?.figures, ['cpu/request']);
});

test('the detectable change: max(h, ln(1+T)) + 0.84·SE, smaller with quieter or more rounds, never under T', () => {
  const at = (sd: number, n: number, level = 0.95): ReturnType<typeof sensitivity> => {
    const noise = pairedChangeOf(Array(n).fill(1), exact(0, sd, n), 'lower-is-better', level)!;
    return sensitivity({ base: 1, current: 1, change: 0, noise }, 5, level);
  };
  // By hand: 10 rounds, SD 3%: SE = 0.03/√10, h = t(9)·SE; the limit ln 1.05 is the larger.
  const se = 0.03 / Math.sqrt(10);
  const h = tQuantile(0.95, 9) * se;
  const expected = (Math.exp(Math.max(h, Math.log(1.05)) + 0.8416 * se) - 1) * 100;
  const s = at(0.03, 10);
  assert.ok(Math.abs(s.detectablePct! - expected) <= 0.15, `${s.detectablePct} vs ${expected}`);
  assert.ok(Math.abs(s.spreadPct! - 3.05) <= 0.15, `spread ${s.spreadPct}`);
  // Noisy rounds: the interval's half-width is past the limit and sets the figure.
  const noisy = at(0.1, 5);
  assert.ok(noisy.detectablePct! > 15, `${noisy.detectablePct}`);
  assert.ok(at(0.03, 20).detectablePct! < s.detectablePct!);
  assert.ok(at(0.01, 10).detectablePct! >= 5);
  // Rounds for identical code to pass: fewer than now when it is quiet, more when it is not.
  assert.ok(at(0.01, 10).samplesToDecide! <= 10);
  assert.ok(noisy.samplesToDecide! > 5);
});

test('simulated gates: a slowdown of detectablePct is caught in about 80% of them, none flags identical code often', () => {
  const n = 10;
  const sd = 0.04;
  const level = 0.95;
  const reference = pairedChangeOf(Array(n).fill(1), exact(0, sd, n), 'lower-is-better', level)!;
  const { detectablePct } = sensitivity({ base: 1, current: 1, change: 0, noise: reference }, 5, level);
  const z = normal(40);
  const run = (changePct: number): { regressed: number; ok: number } => {
    let regressed = 0;
    let ok = 0;
    for (let g = 0; g < 2000; g++) {
      const ratios = Array.from({ length: n }, () => Math.exp(Math.log(1 + changePct / 100) + sd * z()));
      const noise = pairedChangeOf(
        Array(n).fill(2),
        ratios.map((r) => 2 * r),
        'lower-is-better',
        level,
      )!;
      const v = regressionGate(
        {
          baseId: 'b',
          load: {
            requestsPerSecond: { base: 500, current: 500, change: 0 },
            latencyMs: {
              p50: { base: 10, current: 10, change: 0 },
              p90: { base: 10, current: 10, change: 0 },
              p99: { base: 0, current: 0, change: 0 },
              max: { base: 10, current: 10, change: 0 },
            },
            errors: { base: 0, current: 0, change: 0 },
            timeouts: { base: 0, current: 0, change: 0 },
            non2xx: { base: 0, current: 0, change: 0 },
            cpuPerRequestMs: { base: 2, current: 2, change: 0, changePct: noise.changePct, noise },
            saturated: true,
          },
        },
        5,
        { pickMeasure: true, confidence: level },
      );
      assert.ok(v.decided);
      if (v.failed) regressed++;
      else if (!v.inconclusive) ok++;
    }
    return { regressed, ok };
  };
  const caught = run(detectablePct!).regressed / 2000;
  assert.ok(caught >= 0.72 && caught <= 0.88, `caught ${caught} at ${detectablePct}%`);
  const same = run(0);
  assert.ok(same.regressed / 2000 <= 0.01, `false alarms ${same.regressed}`);
});

test('what the gate says it could see, and what to change when it cannot decide', () => {
  const f = figures({ cpuRatio: exact(0, 0.06, 5), rpsRatio: exact(0, 0.1, 5), utilization: 0.97 });
  const v = regressionGate(compareSideBySide(f, 0.99), 5, { pickMeasure: true, confidence: 0.99, cpuSource: '/proc' });
  assert.ok(v.decided && v.inconclusive);
  const lines = seeingLines(v, 5, 12, 270);
  assert.match(lines[0], /^gate: decided by CPU per request \(\/proc\)/);
  assert.match(lines[1], /^gate: could see: a \d+\.\d% slowdown would have been caught \(in 80% of gates\)/);
  assert.match(
    lines[2],
    new RegExp(`^gate: to decide within 5% at this noise takes about ${v.samplesToDecide} rounds`),
  );
  assert.ok(v.samplesToDecide! * 12 > 270);
  assert.match(lines[2], /a longer --max-time \(now 270 s\)/);
  // Decided: no advice line.
  const quiet = regressionGate(
    compareSideBySide(figures({ cpuRatio: exact(0, 0.005, 5), rpsRatio: exact(0, 0.1, 5), utilization: 0.97 })),
    5,
    { pickMeasure: true },
  );
  assert.ok(quiet.decided && !quiet.inconclusive && !quiet.failed);
  assert.equal(seeingLines(quiet, 5, 12, 270).length, 2);
});

test('a time budget caps the rounds at what fits at the first round’s pace, within the first look and the cap', () => {
  assert.equal(roundsWithin(270, 11, 5, 100), 24);
  assert.equal(roundsWithin(30, 11, 5, 100), 5);
  assert.equal(roundsWithin(10_000, 11, 5, 40), 40);
  assert.equal(roundsWithin(270, 0, 5, 40), 40);
});
