// The code Hotline runs inside the app (src/core/in-app/scripts/), compiled as it ships and run in
// this very process through the same expressions the inspector evaluates (inAppCall), so what is
// tested is the text the app gets. Each script's behaviour where it has logic: the stall probe's
// gaps, the wait probe's threadpool requests on their calling line, the console swap, the boot
// threads, the loop probe's marks, the stack capture; and every script leaves the process as it
// found it.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import * as vm from 'node:vm';
import { Worker } from 'node:worker_threads';
import { CAPTURE_SLOT, CAPTURE_UNUSABLE, inAppCall, type InAppScript } from '../../../src/core/in-app/index.ts';
import { compiledScript } from '../../../src/core/in-app/compiled.ts';
import { markedLine, REPO_ROOT } from '../../helpers/integration.ts';

const run = (expression: string): unknown => vm.runInThisContext(expression);
const SCRIPTS_DIR = path.resolve(__dirname, '../../../src/core/in-app/scripts');
const slot = (name: string): unknown => (globalThis as unknown as Record<symbol, unknown>)[Symbol.for(name)];
/** Holds the event loop at least `ms`, on the monotonic clock the probes read (Date.now's whole
 * milliseconds let a "120 ms" block end at 119.7: a unit run saw that gap). */
const busy = (ms: number): void => {
  const end = process.hrtime.bigint() + BigInt(ms) * 1_000_000n;
  while (process.hrtime.bigint() < end) {
    // holds the event loop
  }
};
const POOL_JS = path.join(REPO_ROOT, 'test', 'helpers', 'pool-call.cjs');
const pool = createRequire(__filename)(POOL_JS) as { hashOnce(): Promise<void> };
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('every script compiles to one expression whose value holds its exported functions', () => {
  const names = fs
    .readdirSync(SCRIPTS_DIR)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.slice(0, -3) as InAppScript);
  assert.ok(names.length >= 9, `scripts found: ${names.join(', ')}`);
  for (const name of names) {
    const text = compiledScript(name);
    assert.doesNotMatch(text, /^\s*(import|export)\s/m, `${name}: no module syntax left`);
    const exports = run(text) as Record<string, unknown>;
    const source = fs.readFileSync(path.join(SCRIPTS_DIR, `${name}.ts`), 'utf8');
    for (const [, fn] of source.matchAll(/^export function (\w+)/gm))
      assert.equal(typeof exports[fn], 'function', `${name}.${fn} is callable`);
  }
});

test('stall probe: a blocked loop is one gap of at least its length; take leaves nothing', async () => {
  run(inAppCall('stall-probe', 'start', 40, 10));
  await new Promise((resolve) => setTimeout(resolve, 30));
  busy(120);
  await new Promise((resolve) => setTimeout(resolve, 30));
  const taken = JSON.parse(String(run(inAppCall('stall-probe', 'take')))) as { gaps: number[]; clipped: number };
  assert.equal(slot('hotline.stalls'), undefined);
  assert.equal(taken.gaps.length, 2, `one gap: ${JSON.stringify(taken)}`);
  assert.ok(taken.gaps[1] - taken.gaps[0] >= 120_000, `the gap covers the 120 ms block: ${taken.gaps}`);
  const again = JSON.parse(String(run(inAppCall('stall-probe', 'take')))) as { gaps: number[] };
  assert.deepEqual(again.gaps, [], 'taken twice: no probe, no gaps');
});

test('wait probe: a pbkdf2 request is noted on the line that made it, from made to its callback', async () => {
  run(inAppCall('wait-probe', 'start', null));
  await turn(); // the hook is enabled by an immediate
  await pool.hashOnce();
  const taken = JSON.parse(String(run(inAppCall('wait-probe', 'take')))) as {
    sites: Array<[string, number, number, string]>;
    types: string[];
    requests: number[];
  };
  await turn(); // its hooks go off by an immediate
  assert.equal(slot('hotline.waits'), undefined);
  const i = taken.types.indexOf('PBKDF2REQUEST');
  assert.ok(i >= 0, `types: ${taken.types}`);
  const q = [];
  for (let k = 0; k < taken.requests.length; k += 4)
    if (taken.requests[k + 1] === i) q.push(taken.requests.slice(k, k + 4));
  assert.equal(q.length, 1);
  const [site, , made, done] = q[0];
  assert.equal(taken.sites[site][0], POOL_JS);
  assert.equal(taken.sites[site][1], markedLine(POOL_JS, 'POOL LINE'), 'the line of the pbkdf2 call');
  assert.ok(done > made);
});

test('console: swapped for a copy on the same streams in a window, put back after; an app-replaced method stays', () => {
  const original = { log: console.log, warn: console.warn };
  run(inAppCall('console', 'record'));
  const mine = (): void => undefined;
  console.warn = mine; // the app's own logger replaced this one
  try {
    const n = Number(run(inAppCall('console', 'swap')));
    assert.ok(n >= 5, `swapped ${n}`);
    assert.notEqual(console.log, original.log, 'log is the copy');
    assert.equal(console.warn, mine, "the app's replacement is left alone");
    run(inAppCall('console', 'restore'));
    assert.equal(console.log, original.log, 'log is put back');
    assert.equal(console.warn, mine);
  } finally {
    console.warn = original.warn;
    delete (globalThis as unknown as Record<symbol, unknown>)[Symbol.for('hotline.console')];
  }
});

test('boot threads: the workers made before the first listening are the boot; later ones are not', async () => {
  run(inAppCall('boot-threads', 'track'));
  const before = new Worker('1', { eval: true });
  const bootId = before.threadId; // -1 once it has exited
  await new Promise((resolve) => before.once('exit', resolve));
  run(inAppCall('boot-threads', 'bootEnds'));
  const after = new Worker('1', { eval: true });
  await new Promise((resolve) => after.once('exit', resolve));
  assert.equal(run(inAppCall('boot-threads', 'read')), bootId);
  assert.ok(after.threadId !== bootId);
  delete (globalThis as unknown as Record<symbol, unknown>)[Symbol.for('hotline.bootThreads')];
});

test('loop probe: a sub-window with a blocked loop closes with its p99 above the block; stop removes it', async () => {
  run(inAppCall('loop-probe', 'start'));
  run(inAppCall('loop-probe', 'edge', null, 'profiled', 10));
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    busy(60);
  }
  await new Promise((resolve) => setTimeout(resolve, 25));
  const mark = JSON.parse(String(run(inAppCall('loop-probe', 'edge', 'profiled', null, 10)))) as {
    closedP99Ns: number;
    cpuUs: number;
  };
  assert.ok(mark.closedP99Ns >= 60e6, `p99 ${mark.closedP99Ns} ns`);
  assert.ok(mark.cpuUs > 0);
  const read = JSON.parse(String(run(inAppCall('loop-probe', 'read', 'profiled')))) as { count: number };
  assert.ok(read.count > 0);
  run(inAppCall('loop-probe', 'stop'));
  assert.equal(slot('hotline.probe'), undefined);
});

test('stack capture: the caller frames below the call, the moment first; the slot removed at uninstall', () => {
  run(inAppCall('stack-capture', 'install'));
  const capture = slot(CAPTURE_SLOT) as () => string;
  function outer(): string {
    return capture();
  }
  const text = outer();
  assert.notEqual(text, CAPTURE_UNUSABLE);
  const [atUs, first] = text.split('\n');
  assert.ok(Number(atUs) > 0);
  const [file, , , fn] = first.split('\u0001');
  assert.equal(file, __filename);
  assert.equal(fn, 'outer', 'the capture function itself is left out');
  run(inAppCall('stack-capture', 'uninstall'));
  assert.equal(slot(CAPTURE_SLOT), undefined);
});
