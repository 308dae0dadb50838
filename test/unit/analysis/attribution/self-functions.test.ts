// A function's self time follows its lines (src/core/analysis/attribution/self-functions.ts): when
// V8 inlined a callee into its caller, the callee's lines show in the caller's frame, and the
// stack captures say whose lines they are. Functions must then give the callee that self time, as
// the hot lines do, not the frame it was inlined into. Hand-written profiles (test/helpers/profiles.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProfile } from '../../../../src/core/analysis/analyze.ts';
import { readCpuProfile } from '../../../../src/core/profile/cpuprofile.ts';
import type { StackCapturesInput } from '../../../../src/core/analysis/attribution/stacks.ts';
import type { Analysis } from '../../../../src/core/analysis/model.ts';
import { buildProfile, type FrameSpec } from '../../../helpers/profiles.ts';

const ROOT = '/ws';
const APP = `${ROOT}/server.js`;
const STATS = `${ROOT}/stats.js`;
const SERVER = [
  'const { rankOrders } = require("./stats");',
  '',
  '',
  '',
  '',
  '',
  'function route(orders) {',
  '  const ranked = rankOrders(orders);',
  '  return ranked.length;',
  '}',
  '',
].join('\n');
const STATS_SRC = [
  'exports.rankOrders = function rankOrders(orders) {',
  '  let score = 0;',
  '  for (let i = 0; i < orders.length; i++) score += orders[i] * 31;',
  '  return score;',
  '};',
  '',
].join('\n');

/**
 * route's node holds 90 samples: 85 on "line 3", which is rankOrders' loop (stats.js:3) inlined
 * into route, and 5 on route's own line 9. rankOrders also ran as its own frame (not inlined) for
 * 10 samples. Captures on route's own samples: the top user frame is rankOrders at stats.js:3 for
 * the inlined ones.
 */
function analyze(): Analysis {
  const frames: FrameSpec[] = [
    {
      name: 'route',
      file: APP,
      line0: 6,
      col0: SERVER.split('\n')[6].indexOf('('),
      self: 90,
      ticks: [
        [3, 85],
        [9, 5],
      ],
      children: [
        {
          name: 'rankOrders',
          file: STATS,
          line0: 0,
          col0: STATS_SRC.indexOf('('),
          self: 10,
          ticks: [[3, 10]],
        },
      ],
    },
  ];
  const stacks: StackCapturesInput = {
    frames: [
      { url: APP, line: 8, column: 18, functionName: 'route' },
      { url: STATS, line: 3, column: 50, functionName: 'rankOrders' },
    ],
    captures: [[1, 0]],
    // The first 85 samples are route's own (inlined rankOrders): a capture on each of 40 of them.
    ticks: Array.from({ length: 40 }, (_, k) => [k * 2, 0] as [number, number]),
  };
  return analyzeProfile({
    profile: readCpuProfile(buildProfile(frames)),
    root: ROOT,
    sources: new Map([
      [APP, SERVER],
      [STATS, STATS_SRC],
    ]),
    stacks,
  });
}

test("an inlined callee's lines: its self time in Functions, as in Hot lines", () => {
  const a = analyze();
  const loop = a.lines.find((l) => l.file === STATS && l.line === 3)!;
  assert.equal(loop.ownMs, 95);
  const rank = a.functions.filter((f) => f.name === 'rankOrders');
  assert.equal(rank.length, 1, 'one row for rankOrders, inlined or not');
  assert.equal(rank[0].selfMs, 95);
  const route = a.functions.find((f) => f.name === 'route')!;
  assert.equal(route.selfMs, 5);
  // The caller's total still holds the callee's time, and the callee is its callee.
  assert.equal(route.totalMs, 100);
  assert.equal(rank[0].totalMs, 95);
  assert.equal(route.callees.find((c) => c.name === 'rankOrders')?.totalMs, 95);
  // Functions agree with lines: the function's self share is its lines' own share.
  const linesOfRank = a.lines.filter((l) => l.file === STATS).reduce((s, l) => s + l.ownPct, 0);
  assert.ok(Math.abs(rank[0].selfPct - linesOfRank) < 0.01, `${rank[0].selfPct} vs ${linesOfRank}`);
  assert.ok(rank[0].selfPctPm !== undefined && rank[0].selfPctPm > 0);
});

test('without captures nothing says the line is inlined code: the frame keeps its self time', () => {
  const frames: FrameSpec[] = [
    { name: 'rankOrders', file: STATS, line0: 0, col0: STATS_SRC.indexOf('('), self: 10, ticks: [[3, 10]] },
  ];
  const a = analyzeProfile({
    profile: readCpuProfile(buildProfile(frames)),
    root: ROOT,
    sources: new Map([[STATS, STATS_SRC]]),
  });
  assert.equal(a.functions.find((f) => f.name === 'rankOrders')?.selfMs, 10);
});
