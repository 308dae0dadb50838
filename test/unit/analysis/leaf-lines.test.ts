// The line a function spends its own time on comes from V8's program-counter positions, not from
// where stack captures land (a function's entry, a loop's back edge): recursion, minified code,
// and Hotline's own capture script kept out of the user's profile. Hand-written profiles
// (test/helpers/profiles.ts), every sample 1 ms.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as esbuild from 'esbuild';
import { analyzeProfile } from '../../../src/core/analysis/analyze.ts';
import { readCpuProfile } from '../../../src/core/profile/cpuprofile.ts';
import { OWN_FRAMES_NAME, withoutOwnFrames } from '../../../src/core/profile/own-frames.ts';
import type { StackCapturesInput } from '../../../src/core/analysis/attribution/stacks.ts';
import type { Analysis, LineCost } from '../../../src/core/analysis/model.ts';
import type { SourceMapInput } from '../../../src/core/analysis/attribution/sourcemaps.ts';
import { buildProfile, type FrameSpec } from '../../helpers/profiles.ts';

const ROOT = '/ws';
const APP = `${ROOT}/app.js`;

function analyze(
  frames: FrameSpec[],
  sources: Array<[string, string]>,
  stacks?: StackCapturesInput,
  sourceMaps: SourceMapInput[] = [],
): Analysis {
  return analyzeProfile({
    profile: readCpuProfile(buildProfile(frames)),
    root: ROOT,
    sources: new Map(sources),
    stacks,
    sourceMaps,
  });
}

const line = (a: Analysis, n: number, file = APP): LineCost | undefined =>
  a.lines.find((l) => l.file === file && l.line === n && !l.oneOf);

describe('recursion', () => {
  const FIB = ['function fib(n) {', '  return n < 2 ? n : fib(n - 1) + fib(n - 2);', '}', ''].join('\n');
  const c = FIB.indexOf('(');

  test('captures that all land at the entry of inlined recursive calls leave the split to the position ticks', () => {
    // One fib node (V8 inlined fib into itself): the program counter split its 10 samples 4 / 6.
    const frames: FrameSpec[] = [
      {
        name: 'fib',
        file: APP,
        line0: 0,
        col0: c,
        self: 10,
        ticks: [
          [1, 4],
          [2, 6],
        ],
      },
    ];
    const at = (lineNo: number, column: number) => ({ url: APP, line: lineNo, column, functionName: 'fib' });
    // Every capture: fib → fib → fib (two inlined), the top one at its head (entry).
    const stacks: StackCapturesInput = {
      frames: [at(2, 23), at(1, c + 1)],
      captures: [[1, 0, 0]],
      ticks: Array.from({ length: 10 }, (_, s) => [s, 0] as [number, number]),
    };
    const a = analyze(frames, [[APP, FIB]], stacks);
    assert.equal(line(a, 1)!.ownMs, 4);
    assert.equal(line(a, 2)!.ownMs, 6);
  });
});

describe('a helper inlined from another file whose line numbers are also lines of the caller', () => {
  const WORK = [
    'function work() {',
    '  let acc = 0;',
    '  for (let i = 0; i < 9; i++) acc += mix(i);',
    '  return acc;',
    '}',
    '',
  ].join('\n');
  const MIX_FILE = `${ROOT}/mix.js`;
  const MIX = [
    'function mix(s) {',
    '  let h = s;',
    '  for (let i = 0; i < 99; i++) h = (h * 31) | 0;',
    '  return h;',
    '}',
    '',
  ].join('\n');

  test('the captures that landed on that line say whose line it is; the position ticks say how much', () => {
    // work's node: 8 samples on "line 3", which is mix's loop (inlined), not work's own loop.
    const frames: FrameSpec[] = [
      { name: 'work', file: APP, line0: 0, col0: WORK.indexOf('('), self: 8, ticks: [[3, 8]] },
    ];
    const stacks: StackCapturesInput = {
      frames: [
        { url: APP, line: 3, column: 39, functionName: 'work' },
        { url: MIX_FILE, line: 3, column: 40, functionName: 'mix' },
      ],
      captures: [[1, 0]],
      ticks: Array.from({ length: 8 }, (_, s) => [s, 0] as [number, number]),
    };
    const a = analyze(
      frames,
      [
        [APP, WORK],
        [MIX_FILE, MIX],
      ],
      stacks,
    );
    assert.equal(line(a, 3, MIX_FILE)!.ownMs, 8);
    assert.equal(line(a, 3), undefined);
  });
});

describe('a minified line', () => {
  const SRC_FILE = `${ROOT}/src.js`;
  const SRC = [
    'module.exports = function sum(n) {',
    '  let a = 0;',
    '  for (let i = 0; i < n; i++) a += i;',
    '  return a;',
    '};',
    '',
  ].join('\n');
  const OUT = `${ROOT}/out.js`;
  const built = esbuild.transformSync(SRC, {
    minify: true,
    sourcemap: 'external',
    sourcefile: SRC_FILE,
    format: 'cjs',
  });
  const code = built.code.trimEnd();
  const maps: SourceMapInput[] = [{ generatedFile: OUT, map: built.map, mapFile: `${OUT}.map` }];
  const head = code.indexOf('(');
  const frames: FrameSpec[] = [{ name: 'sum', file: OUT, line0: 0, col0: head, self: 10, ticks: [[1, 10]] }];
  const frame = (column: number) => ({ url: OUT, line: 1, column: column + 1, functionName: 'sum' });
  const everyTick = (capture: number, count = 10) =>
    Array.from({ length: count }, (_, s) => [s, capture] as [number, number]);

  test('holds everything on line 1 of its script', () => assert.equal(code.includes('\n'), false));

  test('without captures: "one of" the function\'s lines, none of them alone', () => {
    const a = analyze(
      frames,
      [
        [OUT, code],
        [SRC_FILE, SRC],
      ],
      undefined,
      maps,
    );
    const oneOf = a.lines.find((l) => l.oneOf);
    assert.ok(oneOf, JSON.stringify(a.lines));
    assert.equal(oneOf.file, SRC_FILE);
    assert.ok(oneOf.oneOf!.includes(3), `${oneOf.oneOf}`);
    assert.equal(oneOf.ownMs, 10);
    assert.ok(!a.lines.some((l) => !l.oneOf && l.ownMs > 0), 'no single line named');
  });

  test('captures only at the function\'s entry: still "one of"', () => {
    const stacks: StackCapturesInput = { frames: [frame(head)], captures: [[0]], ticks: everyTick(0) };
    const a = analyze(
      frames,
      [
        [OUT, code],
        [SRC_FILE, SRC],
      ],
      stacks,
      maps,
    );
    assert.equal(a.lines.find((l) => l.oneOf)?.ownMs, 10);
  });

  test("captures inside its body (the loop) place the time on the loop's line", () => {
    const stacks: StackCapturesInput = { frames: [frame(code.indexOf('+='))], captures: [[0]], ticks: everyTick(0) };
    const a = analyze(
      frames,
      [
        [OUT, code],
        [SRC_FILE, SRC],
      ],
      stacks,
      maps,
    );
    assert.equal(line(a, 3, SRC_FILE)?.ownMs, 10, JSON.stringify(a.lines));
  });
});

describe("Hotline's own capture script", () => {
  const RUN = [
    'function run() {',
    '  let x = 0;',
    '  for (let i = 0; i < 9; i++) x += i;',
    '  return x;',
    '}',
    '',
  ].join('\n');
  const frames: FrameSpec[] = [
    {
      name: 'run',
      file: APP,
      line0: 0,
      col0: RUN.indexOf('('),
      self: 6,
      ticks: [[3, 6]],
      children: [
        {
          name: '',
          file: 'hotline:stack-capture',
          line0: 0,
          col0: 0,
          self: 1,
          children: [{ name: 'hotlineStack', file: 'hotline:stack-capture', line0: 1, col0: 2, self: 2 }],
        },
      ],
    },
  ];

  test("is no callee, line, or function of the user's code, and its time is one figure under the root", () => {
    const a = analyze(frames, [[APP, RUN]]);
    assert.equal(line(a, 3)!.ownMs, 6);
    assert.equal(line(a, 3)!.totalMs, 6);
    assert.deepEqual(line(a, 3)!.callees, []);
    assert.ok(!a.functions.some((f) => f.file.startsWith('hotline:')), a.functions.map((f) => f.name).join());
    assert.deepEqual(a.functions.find((f) => f.name === 'run')!.callees, []);
    assert.equal(a.categories.program, 3);
  });

  test("the saved profile keeps every sample, the capture's ones on one labelled node", () => {
    const raw = readCpuProfile(buildProfile(frames));
    const clean = withoutOwnFrames(raw);
    assert.equal(clean.samples?.length, raw.samples?.length);
    assert.deepEqual(
      clean.nodes.filter((n) => n.callFrame.url.startsWith('hotline:')).map((n) => n.callFrame.functionName),
      [OWN_FRAMES_NAME],
    );
    const own = clean.nodes.find((n) => n.callFrame.functionName === OWN_FRAMES_NAME)!;
    assert.equal(Array.from(clean.samples!).filter((id) => id === own.id).length, 3);
    const root = clean.nodes.find((n) => n.callFrame.functionName === '(root)')!;
    assert.ok(root.children!.includes(own.id));
    assert.equal(withoutOwnFrames(clean), clean, 'a clean profile is returned as is');
  });
});

describe("V8's synthetic frames", () => {
  test('(idle), (program) and (garbage collector) are in the categories, not among the functions', () => {
    const RUN = ['function run() {', '  return 1;', '}', ''].join('\n');
    const a = analyze(
      [
        { name: '(idle)', file: '', line0: -1, col0: -1, self: 90 },
        { name: '(program)', file: '', line0: -1, col0: -1, self: 4 },
        { name: '(garbage collector)', file: '', line0: -1, col0: -1, self: 2 },
        { name: 'run', file: APP, line0: 0, col0: RUN.indexOf('('), self: 4, ticks: [[2, 4]] },
      ],
      [[APP, RUN]],
    );
    assert.deepEqual(
      a.functions.map((f) => f.name),
      ['run'],
    );
    assert.equal(a.functions[0].selfPct, 40);
    assert.deepEqual([a.categories.idle, a.categories.program, a.categories.gc], [90, 4, 2]);
  });
});
