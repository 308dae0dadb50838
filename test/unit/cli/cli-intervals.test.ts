// The CLI prints each share with the half-width of its 95% interval (report ownPctPm / selfPctPm,
// src/core/analysis/time/share-interval.ts): "66.4% ±2.1" in the hot lines and the functions, the
// columns kept aligned, and nothing for a report that has none (an older version's).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderAnalysis } from '../../../src/cli/render.ts';
import type { Analysis, FunctionCost, LineCost } from '../../../src/core/analysis/model.ts';

const line = (n: number, ownPct: number, ownPctPm?: number): LineCost => ({
  file: '/app/server.js',
  line: n,
  function: 'handler',
  ownMs: ownPct * 10,
  ownPct,
  ...(ownPctPm !== undefined ? { ownPctPm } : {}),
  selfMs: 0,
  totalMs: ownPct * 10,
  selfPct: 0,
  totalPct: ownPct,
  callees: [],
});
const fn = (selfPctPm?: number): FunctionCost => ({
  name: 'handler',
  file: '/app/server.js',
  line: 5,
  column: 0,
  category: 'user',
  selfMs: 100,
  totalMs: 1000,
  selfPct: 10,
  ...(selfPctPm !== undefined ? { selfPctPm } : {}),
  totalPct: 100,
  callers: [],
  callees: [],
});
const analysis = (lines: LineCost[], functions: FunctionCost[]): Analysis => ({
  durationMs: 1000,
  samples: 1000,
  intervalUs: 1000,
  nonIdleMs: 1000,
  categories: { user: 1000, dependencies: 0, nodeInternals: 0, native: 0, gc: 0, idle: 0, program: 0 },
  functions,
  lines,
  hints: [],
  notes: [],
});
const render = (a: Analysis): string => renderAnalysis(a, { cwd: '/app', color: false }).join('\n');

test('hot lines and functions carry "±" with their interval, aligned', () => {
  const out = render(analysis([line(6, 66.4, 2.13), line(7, 30.1, 12.5), line(9, 3.5)], [fn(0.7)]));
  const rows = out.split('\n').filter((l) => l.includes('server.js:'));
  assert.match(rows[0], /66\.4% ±2\.1 /);
  assert.match(rows[1], /30\.1% ±12\.5/);
  // A row without one keeps the column: the bars start at the same place.
  assert.doesNotMatch(rows[2], /±/);
  const barAt = (r: string): number => r.indexOf('%') + 7;
  assert.equal(barAt(rows[0]), barAt(rows[2]));
  assert.match(out, /10\.0% ±0\.7\s+self/);
});

test('a report without intervals prints as before', () => {
  const out = render(analysis([line(6, 66.4)], [fn()]));
  assert.doesNotMatch(out, /±/);
  assert.match(out, / 66\.4% /);
  assert.match(out, /10\.0% self/);
});
