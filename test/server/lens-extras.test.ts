// The texts of the allocations lens and of worker-thread costs (src/server/lens-text.ts): what a
// person reads, and that each figure says what it is a share of.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  formatBytes,
  functionLensText,
  heapLensText,
  lineHoverMarkdown,
  lineLensText,
} from '../../src/server/lens-text.ts';
import type { FunctionCost, LineCost } from '../../src/core/analysis/model.ts';

test('bytes as people read them (powers of 1024)', () => {
  assert.equal(formatBytes(0), '0 B');
  assert.equal(formatBytes(812), '812 B');
  assert.equal(formatBytes(3174), '3.1 KB');
  assert.equal(formatBytes(42 * 1024), '42 KB');
  assert.equal(formatBytes(12.4 * 1024 * 1024), '12 MB');
  assert.equal(formatBytes(1.25 * 1024 ** 3), '1.3 GB');
  assert.equal(formatBytes(Number.NaN), '0 B');
});

test("the allocations lens: the function's share of the run's rates, or its bytes without a load", () => {
  const heap = { totalBytes: 100 * 1024 * 1024, bytesPerSecond: 20 * 1024 * 1024, bytesPerRequest: 8 * 1024 };
  assert.equal(heapLensText({ ownBytes: 60 * 1024 * 1024, ownPct: 60 }, heap), 'allocates 12 MB/s · 4.8 KB/request');
  assert.equal(
    heapLensText({ ownBytes: 5 * 1024 * 1024, ownPct: 41 }, { totalBytes: 12 * 1024 * 1024 }),
    'allocates 5.0 MB (41% of allocations)',
  );
});

test('worker lines and functions say their percentage is of the worker threads', () => {
  const line = { ownMs: 2562, ownPct: 71.3, thread: 'worker' } as const;
  assert.equal(lineLensText(line, undefined, { capacity: { wallMs: 2000 } }), 'own 2.6 s (71% of worker threads)');
  assert.equal(
    lineLensText({ ownMs: 812, ownPct: 41 }, undefined, { capacity: { wallMs: 2000 } }),
    'own 812 ms · 41% of a core',
  );
  const fn = { totalMs: 3000, totalPct: 83, selfMs: 10, thread: 'worker' } as FunctionCost;
  assert.equal(
    functionLensText(fn, { capacity: { wallMs: 2000 } }),
    'total 3.0 s (83% of worker threads) · self 10 ms',
  );
  const l: LineCost = {
    file: '/app/w.js',
    line: 10,
    function: 'slowHash',
    ownMs: 2562,
    ownPct: 71.3,
    selfMs: 2562,
    totalMs: 2562,
    selfPct: 71.3,
    totalPct: 71.3,
    callees: [{ name: 'inner', file: '/app/w.js', line: 3, totalMs: 1800, inferred: false }],
    thread: 'worker',
  };
  const md = lineHoverMarkdown(
    { line: l, hints: [] },
    { nonIdleMs: 100, workersNonIdleMs: 3600, underLoad: true, root: '/app', capacity: { wallMs: 2000 } },
  );
  assert.match(md, /slowHash` · worker threads/);
  assert.match(md, /inner` `w\.js:3` — 1\.8 s \(50%\)/, "callee shares are of the workers' time too");
  assert.match(md, /non-idle CPU time of the worker threads, all workers together \(3\.6 s under load\)/);
});
