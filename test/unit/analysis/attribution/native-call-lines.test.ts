// A native's position ticks are lines of the JS function that called it
// (src/core/analysis/attribution/call-lines.ts, callLinesOf). Called straight from the user's
// function, they are its calling lines. When V8 inlined Node's JS wrapper (scryptSync) into the
// user's function, the native hangs under the user's frame with the wrapper's line numbers: read
// as the user's lines they put time on lines that never ran (issue 36: a dead branch's line got a
// share in 1 run of 4). Hand-written profiles (test/helpers/profiles.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeProfile } from '../../../../src/core/analysis/analyze.ts';
import { readCpuProfile } from '../../../../src/core/profile/cpuprofile.ts';
import type { StackCapturesInput } from '../../../../src/core/analysis/attribution/stacks.ts';
import type { Analysis } from '../../../../src/core/analysis/model.ts';
import { buildProfile, type FrameSpec } from '../../../helpers/profiles.ts';

const ROOT = '/ws';
const APP = `${ROOT}/server.js`;
const SOURCE = [
  "const crypto = require('node:crypto');", // 1
  'function handler(req, res) {', // 2
  '  if (req.admin) {', // 3
  "    res.push(crypto.scryptSync('pw', 'other', 32)); // never runs", // 4
  '  }', // 5
  "  res.push(crypto.scryptSync('pw', 'salt', 32));", // 6
  '}', // 7
  '',
].join('\n');
const col = SOURCE.split('\n')[1].indexOf('(');

function analyze(nativeTicks: Array<[number, number]>, stacks?: StackCapturesInput): Analysis {
  const frames: FrameSpec[] = [
    {
      name: 'handler',
      file: APP,
      line0: 1,
      col0: col,
      children: [{ name: 'run', self: 100, ticks: nativeTicks }],
    },
  ];
  return analyzeProfile({
    profile: readCpuProfile(buildProfile(frames)),
    root: ROOT,
    sources: new Map([[APP, SOURCE]]),
    stacks,
  });
}

const lineAt = (a: Analysis, n: number) => a.lines.find((l) => l.file === APP && l.line === n && !l.oneOf);

test("a native called from the user's function: its position ticks are the calling line", () => {
  const a = analyze([[6, 100]]);
  assert.equal(lineAt(a, 6)?.totalMs, 100);
  assert.equal(lineAt(a, 6)?.ownMs, 100);
  assert.equal(lineAt(a, 4), undefined);
});

test("a wrapper inlined into the user's function: the wrapper's line numbers are no lines of the user's", () => {
  // V8 inlined scryptSync into handler: `run` under handler, ticked on scryptSync's own lines of
  // node:internal/crypto/scrypt.js (71), and on 4, a line number of the wrapper's file that is
  // also the never-run branch's line here. The captures saw the call on line 6.
  const stacks: StackCapturesInput = {
    frames: [{ url: APP, line: 6, column: 19, functionName: 'handler' }],
    captures: [[0]],
    ticks: Array.from({ length: 40 }, (_, k) => [k * 2, 0] as [number, number]),
  };
  const a = analyze(
    [
      [71, 97],
      [4, 3],
    ],
    stacks,
  );
  assert.equal(lineAt(a, 4), undefined, 'the never-run line has no time at all');
  assert.equal(lineAt(a, 71), undefined);
  assert.equal(lineAt(a, 6)?.totalMs, 100);
  assert.equal(lineAt(a, 6)?.ownMs, 100);
});

test('a line that holds several functions is named after the one that owns its time', () => {
  // The no-gain fix of the e2e suite: three functions on line 2. The wrapper is met first (its own
  // sample there), the callback's native owns the line's time: the row is the callback's. Named
  // after the first one met, the row read "pbkdf2Later" in one run and "setImmediate callback" in
  // the next (CI).
  const source = [
    'function later(x) {', // 1
    '  return new Promise((resolve) => setImmediate(() => resolve(crypto.pbkdf2Sync(x))));', // 2
    '}', // 3
    '',
  ].join('\n');
  const line2 = source.split('\n')[1];
  const frames: FrameSpec[] = [
    { name: 'later', file: APP, line0: 0, col0: source.indexOf('('), self: 1, ticks: [[2, 1]] },
    {
      name: '',
      file: APP,
      line0: 1,
      col0: line2.indexOf('() =>'),
      ticks: [[2, 1]],
      self: 1,
      children: [{ name: 'pbkdf2Sync', self: 40, ticks: [[2, 40]] }],
    },
  ];
  const a = analyzeProfile({
    profile: readCpuProfile(buildProfile(frames)),
    root: ROOT,
    sources: new Map([[APP, source]]),
  });
  const row = lineAt(a, 2);
  assert.equal(row?.ownMs, 42);
  assert.notEqual(row?.function, 'later');
  assert.equal(row?.function, a.functions.find((f) => f.line === 2 && f.file === APP)?.name);
});
