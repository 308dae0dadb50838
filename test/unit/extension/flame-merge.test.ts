// The merged flame profile (src/extension/flame/flame-merge.ts): replaying its speedscope events gives the
// same self and total time per function as the original samples weighted the way speedscope's
// Chrome importer weighs them (a sample lasts until the next one), on hand-made profiles with
// known answers, on a seeded random profile with deep and recursive stacks, and on a real capture.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  parseCpuProfileText,
  readCpuProfile,
  type CallFrame,
  type CpuProfile,
} from '../../../src/core/profile/cpuprofile.ts';
import { mergeSamples, mergedSpeedscopeJson } from '../../../src/extension/flame/flame-merge.ts';
import { mergeCacheDir, mergedCopyPath, writeMergedCopy } from '../../../src/extension/flame/flame-merge-file.ts';

const LOGIN = path.join(__dirname, '..', '..', 'fixtures', 'login-api', 'profile.cpuprofile');

type Totals = Map<string, { self: number; total: number }>;
const add = (m: Totals, name: string, self: number, total: number): void => {
  const t = m.get(name) ?? { self: 0, total: 0 };
  t.self += self;
  t.total += total;
  m.set(name, t);
};

interface SpeedscopeFile {
  shared: { frames: Array<{ name: string; file: string; line: number; col: number }> };
  profiles: Array<{
    type: string;
    unit: string;
    startValue: number;
    endValue: number;
    events: Array<{ type: 'O' | 'C'; frame: number; at: number }>;
  }>;
}

/** Self and total time per frame name, replaying the events as speedscope's builder does. */
function replay(json: string): { totals: Totals; endValue: number } {
  const file = JSON.parse(json) as SpeedscopeFile;
  assert.equal(file.profiles.length, 1);
  const p = file.profiles[0];
  assert.equal(p.type, 'evented');
  assert.equal(p.unit, 'microseconds');
  const totals: Totals = new Map();
  const stack: number[] = [];
  let last = p.startValue;
  for (const e of p.events) {
    assert.ok(e.at >= last, 'events in time order');
    const w = e.at - last;
    if (w > 0 && stack.length > 0) {
      add(totals, file.shared.frames[stack[stack.length - 1]].name, w, 0);
      for (const f of new Set(stack)) add(totals, file.shared.frames[f].name, 0, w);
    }
    last = e.at;
    if (e.type === 'O') stack.push(e.frame);
    else assert.equal(stack.pop(), e.frame, 'a close matches the open on top');
  }
  assert.equal(stack.length, 0, 'every frame closed');
  assert.ok(p.endValue >= last);
  return { totals, endValue: p.endValue };
}

/** The same figures straight from the samples, for profiles without "(garbage collector)"/"(program)" samples. */
function fromSamples(profile: CpuProfile): Totals {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (f: CallFrame): string =>
    f.functionName || (f.url ? `(anonymous ${f.url.split('/').pop()}:${f.lineNumber + 1})` : '(anonymous)');
  const ignored = (f: CallFrame): boolean => f.functionName === '(root)' || f.functionName === '(idle)';
  const totals: Totals = new Map();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length - 1; i++) {
    const w = deltas[i + 1];
    const leaf = byId.get(samples[i]);
    if (!leaf || ignored(leaf.callFrame) || w === 0) continue;
    add(totals, name(leaf.callFrame), w, 0);
    const names = new Set<string>();
    for (
      let id: number | undefined = leaf.id;
      id !== undefined && !ignored(byId.get(id)!.callFrame);
      id = parent.get(id)
    )
      names.add(name(byId.get(id)!.callFrame));
    for (const n of names) add(totals, n, 0, w);
  }
  return totals;
}

const frame = (functionName: string, url = '', line = -1): CallFrame => ({
  functionName,
  scriptId: url ? '7' : '0',
  url,
  lineNumber: line,
  columnNumber: url ? 4 : -1,
});

/** (root) → main → work → work (recursion) and (root) → other, (idle), (garbage collector). */
function handMade(samples: number[], timeDeltas: number[]): CpuProfile {
  return readCpuProfile({
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 5, 6, 7] },
      { id: 2, callFrame: frame('main', 'file:///app/main.js', 0), children: [3] },
      { id: 3, callFrame: frame('work', 'file:///app/work.js', 9), children: [4] },
      { id: 4, callFrame: frame('work', 'file:///app/work.js', 9), children: [8] },
      { id: 5, callFrame: frame('(idle)') },
      { id: 6, callFrame: frame('(garbage collector)') },
      { id: 7, callFrame: frame('', 'file:///app/anon.js', 41) },
      { id: 8, callFrame: frame('', 'file:///app/anon.js', 41) },
    ],
    startTime: 0,
    endTime: 100_000,
    samples,
    timeDeltas,
  });
}

test('a hand-made profile: the same self/total per function as its samples, recursion counted once, idle not a frame', () => {
  const profile = handMade([2, 3, 3, 4, 8, 5, 5, 7, 3, 2], [500, 1000, 2000, 1000, 1000, 4000, 1000, 1000, 3000, 7000]);
  const { totals, endValue } = replay(mergedSpeedscopeJson(profile, 'hand.cpuprofile'));
  assert.deepEqual(totals, fromSamples(profile));
  assert.deepEqual(totals.get('work'), { self: 3000 + 1000 + 7000, total: 3000 + 1000 + 4000 + 7000 });
  assert.deepEqual(totals.get('main'), { self: 1000, total: 1000 + 3000 + 1000 + 4000 + 7000 });
  // Anonymous functions are named as speedscope's Chrome importer names them (1-based line).
  assert.deepEqual(totals.get('(anonymous anon.js:42)'), { self: 4000 + 3000, total: 7000 });
  assert.equal(totals.has('(idle)'), false);
  assert.equal(endValue, 100_000, "the profile's length: endTime - startTime");
});

test('a "(garbage collector)" sample sits on top of the stack before it, as speedscope shows it', () => {
  const profile = handMade([3, 6, 6, 3, 5, 6, 2], [0, 1000, 2000, 4000, 8000, 16000, 32000]);
  const file = JSON.parse(mergedSpeedscopeJson(profile, 'gc.cpuprofile')) as SpeedscopeFile;
  const { totals } = replay(JSON.stringify(file));
  assert.deepEqual(totals.get('(garbage collector)'), { self: 6000 + 32000, total: 38000 });
  assert.deepEqual(totals.get('work'), { self: 1000 + 8000, total: 1000 + 6000 + 8000 }, 'GC under work: in its total');
  assert.deepEqual(
    totals.get('main'),
    { self: 0, total: 1000 + 6000 + 8000 },
    'the GC after idle is under no function',
  );
  const names = file.shared.frames.map((f) => f.name);
  assert.deepEqual(file.shared.frames[names.indexOf('work')], {
    name: 'work',
    file: 'file:///app/work.js',
    line: 10,
    col: 5,
  });
});

test('edge cases: one sample, no samples, a negative delta holds the time', () => {
  assert.deepEqual(
    replay(mergedSpeedscopeJson(handMade([3], [10]), 'one')).totals,
    new Map(),
    'the last sample lasts 0',
  );
  assert.deepEqual(replay(mergedSpeedscopeJson(handMade([], []), 'none')).totals, new Map());
  // readCpuProfile clamps a negative delta to 0; the merge holds the time on its own too.
  const raw = { ...handMade([2, 3, 2], [0, 1000, 500]), timeDeltas: [0, 1000, -400] };
  const neg = replay(mergedSpeedscopeJson(raw, 'neg')).totals;
  assert.equal(neg.get('work'), undefined, 'work lasts 0: the next sample holds its time');
  assert.deepEqual(neg.get('main'), { self: 1000, total: 1000 });
});

/** A seeded profile: deep stacks, recursion, repeated calls of the same function under one parent; idle, and GC and program samples if asked. */
function randomProfile(seed: number, sampleCount: number, gcAndProgram = false): CpuProfile {
  let s = seed;
  const rand = (n: number): number => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s >>> 8) % n;
  };
  const nodes: Array<{ id: number; callFrame: CallFrame; children: number[] }> = [
    { id: 1, callFrame: frame('(root)'), children: [] },
  ];
  const parentOf: number[] = [0, 0];
  for (let i = 2; i <= 3000; i++) {
    const parent = rand(10) < 3 ? 1 : 1 + rand(i - 1);
    const fn = rand(60);
    nodes.push({
      id: i,
      callFrame: frame(fn % 13 === 0 ? '' : `f${fn}`, `file:///app/m${fn % 7}.js`, fn * 3),
      children: [],
    });
    nodes[parent - 1].children.push(i);
    parentOf[i] = parent;
  }
  for (const [id, name] of [
    [3001, '(idle)'],
    [3002, '(garbage collector)'],
    [3003, '(program)'],
  ] as const) {
    nodes.push({ id, callFrame: frame(name), children: [] });
    nodes[0].children.push(id);
  }
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  let n = 2;
  for (let i = 0; i < sampleCount; i++) {
    const r = rand(100);
    if (r < 50) {
      // the same node again
    } else if (r < 75)
      n = nodes[n - 1].children.length > 0 ? nodes[n - 1].children[rand(nodes[n - 1].children.length)] : n;
    else if (r < 90) n = parentOf[n] > 1 ? parentOf[n] : n;
    else n = rand(10) === 0 ? 3001 + (gcAndProgram ? rand(3) : 0) : 2 + rand(2999);
    samples.push(n);
    timeDeltas.push(500 + rand(1000));
  }
  return readCpuProfile({
    nodes,
    startTime: 5_000_000,
    endTime: 5_000_000 + timeDeltas.reduce((a, b) => a + b, 0) + 777,
    samples,
    timeDeltas,
  });
}

test('a seeded random profile: the fast way (a stack per node) builds the same tree as the step-by-step replay', () => {
  const profile = randomProfile(7, 50_000, true);
  const fast = mergeSamples(profile);
  assert.ok(fast.frames.some((f) => f.name === '(garbage collector)') && fast.frame.length > 1000);
  assert.deepEqual(fast, mergeSamples(profile, { replay: true }));
});

test('a node under "(program)" (not from V8, but valid): replayed as speedscope stacks it', () => {
  const profile = readCpuProfile({
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 3] },
      { id: 2, callFrame: frame('main', 'file:///app/main.js', 0) },
      { id: 3, callFrame: frame('(program)'), children: [4] },
      { id: 4, callFrame: frame('inner', 'file:///app/inner.js', 0) },
    ],
    startTime: 0,
    endTime: 10_000,
    samples: [2, 4, 2],
    timeDeltas: [0, 1000, 2000],
  });
  const { totals } = replay(mergedSpeedscopeJson(profile, 'stacked'));
  // inner's stack: main (the stack before), then (program), then inner.
  assert.deepEqual(totals.get('inner'), { self: 2000, total: 2000 });
  assert.deepEqual(totals.get('(program)'), { self: 0, total: 2000 });
  assert.deepEqual(totals.get('main'), { self: 1000, total: 3000 });
});

test('a seeded random profile (deep, recursive): the same self/total per function, the same length', () => {
  const profile = randomProfile(42, 50_000);
  const { totals, endValue } = replay(mergedSpeedscopeJson(profile, 'random.cpuprofile'));
  const expected = fromSamples(profile);
  assert.ok(expected.size > 50, `${expected.size} functions`);
  assert.deepEqual(totals, expected);
  assert.equal(endValue, profile.endTime - profile.startTime);
});

test('a real capture: the same self/total per function (µs, within rounding)', () => {
  const profile = parseCpuProfileText(fs.readFileSync(LOGIN, 'utf8'));
  const totals = replay(mergedSpeedscopeJson(profile, 'login-api.cpuprofile')).totals;
  const hasOnTop = profile.nodes.some(
    (n) =>
      ['(garbage collector)', '(program)'].includes(n.callFrame.functionName) && (profile.samples ?? []).includes(n.id),
  );
  const expected = fromSamples(profile);
  for (const [name, t] of expected) {
    const got = totals.get(name) ?? { self: 0, total: 0 };
    assert.ok(Math.abs(got.self - t.self) < 1, `${name} self ${got.self} vs ${t.self}`);
    // GC/program samples add to the totals of the functions under them (speedscope stacks them).
    if (!hasOnTop) assert.ok(Math.abs(got.total - t.total) < 1, `${name} total ${got.total} vs ${t.total}`);
    else assert.ok(got.total >= t.total - 1, `${name} total ${got.total} vs at least ${t.total}`);
  }
  assert.ok(totals.get('pbkdf2Sync')!.total > 0);
});

test('the merged copy on disk: the profile untouched, a folder per profile version, old copies pruned', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-merge-file-'));
  try {
    const file = path.join(dir, 'app.cpuprofile');
    fs.copyFileSync(LOGIN, file);
    const before = fs.readFileSync(file);
    const stat = fs.statSync(file);
    const cache = path.join(dir, 'cache');
    const out = path.join(cache, path.relative(mergeCacheDir(), mergedCopyPath(file, stat)));
    assert.equal(path.basename(out), 'app.cpuprofile.speedscope.json');
    assert.notEqual(
      mergedCopyPath(file, { ...stat, mtimeMs: stat.mtimeMs + 1 }),
      mergedCopyPath(file, stat),
      'a changed profile gets a new copy',
    );
    writeMergedCopy(file, out, 'app.cpuprofile (stacks merged)');
    assert.deepEqual(fs.readFileSync(file), before, 'the profile itself is not changed');
    const file0 = JSON.parse(fs.readFileSync(out, 'utf8')) as SpeedscopeFile & { name: string };
    assert.equal(file0.name, 'app.cpuprofile (stacks merged)');
    assert.ok(file0.profiles[0].events.length > 10);
    for (let i = 0; i < 10; i++) {
      const other = path.join(cache, `${String(i).padStart(24, 'a')}`, 'x.speedscope.json');
      fs.mkdirSync(path.dirname(other), { recursive: true });
      fs.writeFileSync(other, '{}');
      fs.utimesSync(
        path.dirname(other),
        new Date(Date.now() - (i + 1) * 60_000),
        new Date(Date.now() - (i + 1) * 60_000),
      );
    }
    fs.rmSync(out);
    writeMergedCopy(file, out, 'app');
    const left = fs.readdirSync(cache);
    assert.equal(left.length, 8, left.join(' '));
    assert.ok(left.includes(path.basename(path.dirname(out))), 'the new copy is kept');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
