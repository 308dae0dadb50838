// The analysis on small hand-written profiles (test/helpers/profiles.ts): the edge cases of
// "How time is counted" in docs/architecture.md that a real capture cannot pin down exactly. Every sample
// lasts 1 ms, so expected times are whole milliseconds.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { analyzeProfile } from '../../../src/core/analysis/analyze.ts';
import { readCpuProfile } from '../../../src/core/profile/cpuprofile.ts';
import type { StackCapturesInput } from '../../../src/core/analysis/attribution/stacks.ts';
import type { Analysis, LineCost } from '../../../src/core/analysis/model.ts';
import { buildProfile, nodeId, type BuildOptions, type FrameSpec } from '../../helpers/profiles.ts';

const ROOT = '/ws';
const APP = `${ROOT}/app.js`;

interface Case {
  frames: FrameSpec[];
  /** Source of /ws/app.js (omit for "no source"). */
  app?: string;
  build?: BuildOptions;
  stacks?: StackCapturesInput;
}

function analyze(c: Case): Analysis {
  const raw = buildProfile(c.frames, c.build);
  return analyzeProfile({
    profile: readCpuProfile(raw),
    root: ROOT,
    sources: new Map(c.app === undefined ? [] : [[APP, c.app]]),
    stacks: c.stacks,
  });
}

const line = (a: Analysis, n: number, file = APP): LineCost | undefined =>
  a.lines.find((l) => l.file === file && l.line === n);
const fn = (a: Analysis, name: string) => {
  const found = a.functions.find((f) => f.name === name);
  assert.ok(found, `function ${name} in ${a.functions.map((f) => f.name).join(', ')}`);
  return found;
};
/** 0-based column of `needle` in 1-based `lineNo` of `text`: where V8 puts a function (its "("). */
const col = (text: string, lineNo: number, needle: string): number => {
  const c = text.split('\n')[lineNo - 1].indexOf(needle);
  assert.ok(c >= 0, `${needle} not on line ${lineNo}`);
  return c;
};

describe('a profile whose source changed since it ran', () => {
  const SRC = [
    'function hot() {',
    '  let x = 0;',
    '  for (let i = 0; i < 1e6; i++) x += i;',
    '  return x;',
    '}',
    '',
  ].join('\n');
  const frames: FrameSpec[] = [
    { name: 'hot', file: APP, line0: 0, col0: col(SRC, 1, '('), self: 10, ticks: [[3, 10]] },
  ];

  test('as it ran: the loop line', () => {
    const a = analyze({ app: SRC, frames });
    assert.equal(line(a, 3)!.ownMs, 10);
    assert.equal(line(a, 3)!.code, 'for (let i = 0; i < 1e6; i++) x += i;');
    assert.deepEqual(a.notes, []);
  });

  test('two lines added above: the frame is no function head any more, so the file shows no costs (never the wrong line)', () => {
    const a = analyze({ app: `// added\n// added\n${SRC}`, frames });
    assert.deepEqual(
      a.lines.filter((l) => l.file === APP),
      [],
    );
    assert.deepEqual(
      a.functions.filter((f) => f.file === APP),
      [],
    );
    assert.match(a.notes.join('\n'), /is not the text this profile ran/);
  });
});

describe('recursion', () => {
  const FACT = [
    'function fact(n) {',
    '  if (n <= 1) return 1;',
    '  return n * fact(n - 1);',
    '}',
    'function main() {',
    '  return fact(20);',
    '}',
    '',
  ].join('\n');
  const factFrame = (self: number, ticks: Array<[number, number]>, children?: FrameSpec[]): FrameSpec => ({
    name: 'fact',
    file: APP,
    line0: 0,
    col0: col(FACT, 1, '('),
    self,
    ticks,
    children,
  });
  const frames: FrameSpec[] = [
    {
      name: 'main',
      file: APP,
      line0: 4,
      col0: col(FACT, 5, '('),
      children: [factFrame(1, [[2, 1]], [factFrame(2, [[3, 2]], [factFrame(4, [[2, 4]])])])],
    },
  ];

  test('a function on the stack several times counts each sample once in its total', () => {
    const a = analyze({ frames, app: FACT });
    const fact = fn(a, 'fact');
    assert.equal(fact.selfMs, 7);
    assert.equal(fact.totalMs, 7);
    assert.equal(fn(a, 'main').totalMs, 7);
    assert.ok(fact.totalPct <= 100);
  });

  test('the recursive call line counts each sample once too', () => {
    const a = analyze({ frames, app: FACT });
    // Line 3 calls fact(n - 1): the inner calls (6 samples) once, although it is on the stack twice.
    assert.equal(line(a, 3)!.totalMs, 6);
    assert.equal(line(a, 3)!.ownMs, 2);
    assert.equal(line(a, 2)!.ownMs, 5);
    assert.equal(line(a, 6)!.totalMs, 7);
    assert.equal(line(a, 6)!.ownMs, 0);
  });

  test('call links count each sample once (fact → fact is at most the time under the outer call)', {}, () => {
    const a = analyze({ frames, app: FACT });
    const self = fn(a, 'fact').callees.find((c) => c.name === 'fact')!;
    assert.ok(self.totalMs <= 6, `fact → fact ${self.totalMs} ms`);
    const callee = line(a, 3)!.callees.find((c) => c.name === 'fact')!;
    assert.ok(
      callee.totalMs <= line(a, 3)!.totalMs,
      `line 3 → fact ${callee.totalMs} ms, line total ${line(a, 3)!.totalMs} ms`,
    );
  });

  test(
    'a line with two calls of the same function (fib(n - 1) + fib(n - 2)) has all of their time in its total',
    {},
    () => {
      const FIB = ['function fib(n) {', '  if (n < 2) return n;', '  return fib(n - 1) + fib(n - 2);', '}', ''].join(
        '\n',
      );
      const c = col(FIB, 1, '(');
      const a = analyze({
        app: FIB,
        frames: [
          {
            name: 'fib',
            file: APP,
            line0: 0,
            col0: c,
            self: 1,
            ticks: [[2, 1]],
            children: [{ name: 'fib', file: APP, line0: 0, col0: c, self: 4, ticks: [[2, 4]] }],
          },
        ],
      });
      assert.equal(line(a, 3)!.totalMs, 4);
    },
  );
});

describe('call-site lines', () => {
  const CHECK = [
    "const crypto = require('node:crypto');",
    'function check(a, b) {',
    '  if (crypto.timingSafeEqual(a, b)) return true;',
    '  return crypto.timingSafeEqual(b, a);',
    '}',
    '',
  ].join('\n');

  test('a native child with position ticks names the exact line (not inferred), even with two same-named calls', () => {
    const a = analyze({
      app: CHECK,
      frames: [
        {
          name: 'check',
          file: APP,
          line0: 1,
          col0: col(CHECK, 2, '('),
          children: [{ name: 'timingSafeEqual', self: 6, ticks: [[4, 6]] }],
        },
      ],
    });
    assert.equal(line(a, 3), undefined, 'nothing on line 3');
    const l4 = line(a, 4)!;
    assert.equal(l4.ownMs, 6);
    assert.equal(l4.totalMs, 6);
    assert.deepEqual(l4.callees, [{ name: 'timingSafeEqual', file: '', line: 0, totalMs: 6, inferred: false }]);
  });

  test('a native child whose ticks name two lines splits by ticks, exactly', () => {
    const a = analyze({
      app: CHECK,
      frames: [
        {
          name: 'check',
          file: APP,
          line0: 1,
          col0: col(CHECK, 2, '('),
          children: [
            {
              name: 'timingSafeEqual',
              self: 8,
              ticks: [
                [3, 2],
                [4, 6],
              ],
            },
          ],
        },
      ],
    });
    assert.equal(line(a, 3)!.ownMs, 2);
    assert.equal(line(a, 4)!.ownMs, 6);
    assert.equal(line(a, 3)!.callees[0].inferred, false);
  });

  const RUN = [
    "const lib = require('lib');",
    'function run(a) {',
    '  lib.work(a);',
    '  if (a) lib.work(a);',
    '}',
    '',
  ].join('\n');
  const runFrames: FrameSpec[] = [
    {
      name: 'run',
      file: APP,
      line0: 1,
      col0: col(RUN, 2, '('),
      children: [{ name: 'work', file: `${ROOT}/node_modules/lib/index.js`, line0: 0, col0: 10, self: 10 }],
    },
  ];

  test('several calls with the callee’s name and nothing measured: one record "one of lines 3, 4", neither line alone', () => {
    const a = analyze({ app: RUN, frames: runFrames });
    assert.ok(
      !a.lines.some((l) => l.file === APP && l.oneOf === undefined && (l.line === 3 || l.line === 4)),
      'no time on line 3 or 4 alone',
    );
    const either = a.lines.find((l) => l.oneOf !== undefined)!;
    assert.deepEqual(either.oneOf, [3, 4]);
    assert.equal(either.line, 3);
    assert.equal(either.ownMs, 10);
    assert.equal(either.totalMs, 10);
    assert.equal(either.callees[0].name, 'work');
    assert.equal(either.callees[0].inferred, true);
    assert.equal(fn(a, 'work').category, 'dependencies');
  });

  const LIB = `${ROOT}/node_modules/lib/index.js`;
  const runAt = (lineNo: number) => ({
    url: APP,
    line: lineNo,
    column: 3,
    functionName: 'run',
  });
  const workFrame = { url: LIB, line: 1, column: 12, functionName: 'work' };

  test('stack captures split a callee’s time by the calling lines they saw, measured (not inferred)', () => {
    // Samples 0–9 are all in work(); three ticks saw run() at line 3, one at line 4.
    const stacks: StackCapturesInput = {
      frames: [runAt(3), runAt(4), workFrame],
      captures: [
        [2, 0],
        [2, 1],
      ],
      ticks: [
        [0, 0],
        [4, 0],
        [7, 0],
        [9, 1],
      ],
    };
    const a = analyze({ app: RUN, frames: runFrames, stacks });
    assert.equal(line(a, 3)!.ownMs, 7.5);
    assert.equal(line(a, 4)!.ownMs, 2.5);
    assert.equal(line(a, 3)!.totalMs, 7.5);
    assert.equal(line(a, 3)!.callees[0].inferred, false);
    assert.ok(!a.lines.some((l) => l.oneOf), 'nothing left as "one of"');
  });

  test('a capture that landed after the callee returned says nothing about the call', () => {
    // The only tick's stack has run() but no frame of the callee's script any more.
    const stacks: StackCapturesInput = { frames: [runAt(4)], captures: [[0]], ticks: [[3, 0]] };
    const a = analyze({ app: RUN, frames: runFrames, stacks });
    assert.equal(line(a, 4), undefined);
    assert.deepEqual(a.lines.find((l) => l.oneOf)?.oneOf, [3, 4]);
  });

  test('an anonymous callback is named after the call it is passed to, and its caller’s line is that call', () => {
    const SRC = [
      'function outer(list) {',
      '  return list.map((x) => heavy(x));',
      '}',
      'function heavy(x) { return x * 2; }',
      '',
    ].join('\n');
    const a = analyze({
      app: SRC,
      frames: [
        {
          name: 'outer',
          file: APP,
          line0: 0,
          col0: col(SRC, 1, '('),
          children: [
            {
              name: '',
              file: APP,
              line0: 1,
              col0: col(SRC, 2, '(x)'),
              self: 2,
              ticks: [[2, 2]],
              children: [{ name: 'heavy', file: APP, line0: 3, col0: col(SRC, 4, '('), self: 5, ticks: [[4, 5]] }],
            },
          ],
        },
      ],
    });
    const cb = fn(a, 'list.map callback');
    assert.equal(cb.line, 2);
    assert.equal(cb.totalMs, 7);
    const call = line(a, 2)!;
    assert.equal(call.totalMs, 7);
    assert.ok(call.callees.some((c) => c.name === 'list.map callback' && c.totalMs === 7));
    assert.equal(line(a, 4)!.ownMs, 5);
  });

  test('a route handler passed with a path is named with it; top-level code is (top level)', () => {
    const SRC = [
      "const app = require('express')();",
      "app.get('/users', (req, res) => {",
      '  res.json(load());',
      '});',
      'function load() { return []; }',
      '',
    ].join('\n');
    const a = analyze({
      app: SRC,
      frames: [
        { name: '', file: APP, line0: 0, col0: 0, self: 1, ticks: [[1, 1]] },
        { name: '', file: APP, line0: 1, col0: col(SRC, 2, '(req'), self: 3, ticks: [[3, 3]] },
      ],
    });
    assert.equal(fn(a, "app.get('/users') callback").line, 2);
    assert.equal(fn(a, '(top level)').line, 1);
    assert.equal(line(a, 3)!.function, "app.get('/users') callback");
  });

  test('without the source the call is put on the caller’s own line, inferred, with a note', () => {
    const a = analyze({
      frames: [
        {
          name: 'handler',
          file: APP,
          line0: 9,
          col0: 16,
          children: [{ name: 'pbkdf2Sync', file: 'node:internal/crypto/pbkdf2', line0: 30, col0: 20, self: 4 }],
        },
      ],
    });
    const l = line(a, 10)!;
    assert.equal(l.ownMs, 4);
    assert.equal(l.callees[0].inferred, true);
    assert.ok(
      a.notes.some((n) => n.includes(APP) && /No source/.test(n)),
      a.notes.join('\n'),
    );
  });

  test('a source that does not parse degrades the same way, with a note', () => {
    const a = analyze({
      app: 'function handler( {{{ not javascript',
      frames: [
        {
          name: 'handler',
          file: APP,
          line0: 0,
          col0: 16,
          children: [{ name: 'work', file: 'node:internal/x', line0: 1, col0: 1, self: 2 }],
        },
      ],
    });
    assert.equal(line(a, 1)!.ownMs, 2);
    assert.ok(
      a.notes.some((n) => n.includes(APP) && /parse/.test(n)),
      a.notes.join('\n'),
    );
  });
});

describe('position ticks', () => {
  const SRC = [
    'function helper(x) {',
    '  return x * 2;',
    '}',
    'function outer(list) {',
    '  let s = 0;',
    '  for (const x of list) s += helper(x);',
    '  return s;',
    '}',
    '',
    'module.exports = { outer };',
    '',
  ].join('\n');
  const outer = (ticks: Array<[number, number]>, self: number): FrameSpec[] => [
    { name: 'outer', file: APP, line0: 3, col0: col(SRC, 4, '('), self, ticks },
  ];

  test('ticks outside the function’s source range are dropped from its lines; on a line of another function of the file they are that function inlined', () => {
    const a = analyze({
      app: SRC,
      frames: outer(
        [
          [6, 6],
          [2, 4],
        ],
        10,
      ),
    });
    const l6 = line(a, 6)!;
    assert.equal(l6.function, 'outer');
    assert.equal(l6.selfMs, 6);
    assert.equal(l6.ownMs, 6);
    const l2 = line(a, 2)!;
    assert.equal(l2.function, 'helper', 'not one of outer’s lines');
    assert.equal(l2.selfMs, 4);
    assert.ok(a.lines.filter((l) => l.function === 'outer').every((l) => l.line >= 4 && l.line <= 8));
    assert.equal(fn(a, 'outer').selfMs, 10, 'the function keeps its self time');
  });

  test('ticks on lines in no function of the file (inlined from another file) go to the function’s own lines in proportion', () => {
    const a = analyze({
      app: SRC,
      frames: outer(
        [
          [5, 1],
          [6, 3],
          [10, 4],
          [40, 4],
        ],
        12,
      ),
    });
    assert.equal(line(a, 10), undefined);
    assert.equal(line(a, 40), undefined);
    assert.equal(line(a, 5)!.selfMs, 3);
    assert.equal(line(a, 6)!.selfMs, 9);
  });

  test('when every tick is outside the function and any other, its time goes to the function’s own line', () => {
    const a = analyze({ app: SRC, frames: outer([[10, 5]], 5) });
    assert.equal(line(a, 10), undefined);
    assert.equal(line(a, 4)!.ownMs, 5);
    assert.equal(line(a, 4)!.function, 'outer');
  });

  test('ticks split a node’s self time by line in proportion', () => {
    const a = analyze({
      app: SRC,
      frames: outer(
        [
          [5, 1],
          [6, 3],
        ],
        8,
      ),
    });
    assert.equal(line(a, 5)!.selfMs, 2);
    assert.equal(line(a, 6)!.selfMs, 6);
  });
});

describe('odd sample data', () => {
  const SRC = ['function f() {', '  return 1;', '}', ''].join('\n');

  test('negative time deltas are clamped: no negative time anywhere', () => {
    const raw = buildProfile(
      [
        { name: 'f', file: APP, line0: 0, col0: 10, self: 3, ticks: [[2, 3]] },
        { name: '(idle)', self: 2 },
      ],
      { interleave: true },
    );
    raw.timeDeltas = [1000, 1000, -300, 1000, 1000];
    const a = analyzeProfile({ profile: readCpuProfile(raw), root: ROOT, sources: new Map([[APP, SRC]]) });
    for (const v of Object.values(a.categories)) assert.ok(v >= 0);
    for (const f of a.functions) assert.ok(f.selfMs >= 0 && f.totalMs >= 0, `${f.name} ${f.selfMs} ${f.totalMs}`);
    for (const l of a.lines) assert.ok(l.ownMs >= 0 && l.selfMs >= 0 && l.totalMs >= 0);
    assert.ok(a.durationMs > 0);
  });

  test('a profile without samples (hit counts only) still analyses, time spread by hit count', () => {
    const raw = buildProfile(
      [
        { name: 'f', file: APP, line0: 0, col0: 10, self: 4, ticks: [[2, 4]] },
        { name: '(idle)', self: 6 },
      ],
      { hitCountsOnly: true },
    );
    assert.equal(raw.samples, undefined);
    const a = analyzeProfile({ profile: readCpuProfile(raw), root: ROOT, sources: new Map([[APP, SRC]]) });
    assert.equal(a.samples, 10);
    assert.equal(a.durationMs, (raw.endTime - raw.startTime) / 1000);
    assert.ok(Math.abs(a.categories.user / a.categories.idle - 4 / 6) < 1e-3);
    assert.equal(a.lines[0].line, 2);
    assert.equal(a.lines[0].ownPct, 100);
  });

  test('a profile with no samples and no hits gives zeros, not NaN', () => {
    const raw = buildProfile([{ name: 'f', file: APP, line0: 0, col0: 10 }], { hitCountsOnly: true });
    const a = analyzeProfile({ profile: readCpuProfile(raw), root: ROOT });
    assert.equal(a.samples, 0);
    for (const v of Object.values(a.categories)) assert.equal(v, 0);
    assert.deepEqual(a.lines, []);
    assert.ok(!JSON.stringify(a).includes('null'), 'no NaN (JSON null) in the result');
  });

  test('the input profile is not mutated by the analysis', () => {
    const raw = buildProfile([{ name: 'f', file: APP, line0: 0, col0: 10, self: 3, ticks: [[2, 3]] }]);
    const profile = readCpuProfile(raw);
    const before = structuredClone(profile);
    deepFreeze(profile);
    analyzeProfile({ profile, root: ROOT, sources: new Map([[APP, SRC]]) });
    assert.deepEqual(profile, before);
  });

  test('a gap before the first sample is nobody’s time: percentages are of the sampled non-idle time', {}, () => {
    const a = analyze({
      app: SRC,
      frames: [{ name: 'f', file: APP, line0: 0, col0: 10, self: 10, ticks: [[2, 10]] }],
      build: { firstDeltaUs: 5000 },
    });
    assert.equal(a.categories.user, 10);
    assert.equal(a.nonIdleMs, 10);
    assert.equal(a.lines[0].ownPct, 100);
    assert.equal(a.durationMs, 10);
  });

  test('a native frame named like an Object.prototype method (an addon’s toString) is native time', {}, () => {
    const a = analyze({
      app: SRC,
      frames: [{ name: 'f', file: APP, line0: 0, col0: 10, children: [{ name: 'toString', self: 10 }] }],
    });
    assert.deepEqual(Object.keys(a.categories).sort(), [
      'dependencies',
      'gc',
      'idle',
      'native',
      'nodeInternals',
      'program',
      'user',
    ]);
    assert.equal(a.categories.native, 10);
    assert.equal(a.functions.find((f) => f.name === 'toString')?.category, 'native');
  });

  test('every function of your code is kept past the functions limit', () => {
    const frames: FrameSpec[] = [];
    for (let i = 0; i < 5; i++)
      frames.push({ name: `internal${i}`, file: 'node:internal/x', line0: i, col0: 0, self: 10 });
    frames.push({ name: 'f', file: APP, line0: 0, col0: 10, self: 1, ticks: [[2, 1]] });
    const a = analyzeProfile({
      profile: readCpuProfile(buildProfile(frames)),
      root: ROOT,
      sources: new Map([[APP, SRC]]),
      limits: { functions: 2 },
    });
    assert.ok(a.functions.some((f) => f.name === 'f'));
    assert.ok(a.functions.length <= 3);
  });

  test('nodeId helper finds built nodes', () => {
    const raw = buildProfile([{ name: 'f', file: APP, self: 1 }]);
    assert.equal(raw.nodes.find((n) => n.id === nodeId(raw, 'f'))!.callFrame.url, 'file:///ws/app.js');
  });
});

describe('hints', () => {
  test('a dependency’s xxxSync API is a library-sync hint on the user line that calls it', () => {
    const SRC = [
      "const bcrypt = require('bcryptjs');",
      'function login(pw, hash) {',
      '  return bcrypt.compareSync(pw, hash);',
      '}',
      '',
    ].join('\n');
    const a = analyze({
      app: SRC,
      frames: [
        {
          name: 'login',
          file: APP,
          line0: 1,
          col0: col(SRC, 2, '('),
          children: [
            {
              name: 'compareSync',
              file: `${ROOT}/node_modules/bcryptjs/dist/bcrypt.js`,
              line0: 200,
              col0: 20,
              self: 9,
            },
          ],
        },
        { name: '(idle)', self: 1 },
      ],
    });
    const hint = a.hints.find((h) => h.rule === 'library-sync')!;
    assert.ok(hint, JSON.stringify(a.hints));
    assert.deepEqual([hint.api, hint.function, hint.file, hint.line], ['compareSync', 'login', APP, 3]);
    assert.equal(hint.totalPct, 100);
  });

  test('nested matches count once, at the outermost (execSync over spawnSync)', () => {
    const SRC = [
      "const cp = require('node:child_process');",
      'function build() {',
      "  return cp.execSync('make');",
      '}',
      '',
    ].join('\n');
    const a = analyze({
      app: SRC,
      frames: [
        {
          name: 'build',
          file: APP,
          line0: 1,
          col0: col(SRC, 2, '('),
          children: [
            {
              name: 'execSync',
              file: 'node:child_process',
              line0: 10,
              col0: 17,
              self: 1,
              children: [
                {
                  name: 'spawnSync',
                  file: 'node:child_process',
                  line0: 20,
                  col0: 18,
                  self: 1,
                  children: [{ name: 'spawnSync', self: 8 }],
                },
              ],
            },
          ],
        },
      ],
    });
    const hints = a.hints.filter((h) => h.rule === 'child-process-sync');
    assert.equal(hints.length, 1, JSON.stringify(a.hints));
    assert.equal(hints[0].api, 'child_process.execSync');
    assert.equal(hints[0].line, 3);
    assert.equal(hints[0].totalMs, 10);
  });

  test('a hot line whose text calls JSON.parse gets the json-large hint; below 5% nothing is hinted', () => {
    const SRC = ['function parse(text) {', '  const data = JSON.parse(text);', '  return data;', '}', ''].join('\n');
    const make = (self: number, idle: number): Analysis =>
      analyze({
        app: SRC,
        frames: [
          { name: 'parse', file: APP, line0: 0, col0: col(SRC, 1, '('), self, ticks: [[2, self]] },
          { name: '(idle)', self: idle },
          { name: 'other', file: 'node:internal/y', line0: 0, col0: 0, self: 100 - self },
        ],
      });
    const hot = make(30, 5);
    const hint = hot.hints.find((h) => h.rule === 'json-large')!;
    assert.deepEqual([hint.api, hint.line, hint.function, hint.totalPct], ['JSON.parse', 2, 'parse', 30]);
    assert.equal(make(4, 5).hints.length, 0);
  });

  test(
    'a crypto frame named like an Object.prototype method (X509Certificate toString) is not a blocking-crypto API',
    {},
    () => {
      const SRC = ['function show(cert) {', '  return cert.toString();', '}', ''].join('\n');
      const a = analyze({
        app: SRC,
        frames: [
          {
            name: 'show',
            file: APP,
            line0: 0,
            col0: col(SRC, 1, '('),
            children: [{ name: 'toString', file: 'node:internal/crypto/x509', line0: 100, col0: 10, self: 10 }],
          },
        ],
      });
      assert.deepEqual(a.hints, []);
    },
  );

  test('garbage collection above 15% of non-idle time is a gc-pressure hint', () => {
    const a = analyze({
      frames: [
        { name: '(garbage collector)', self: 20 },
        { name: 'work', file: 'node:internal/z', line0: 0, col0: 0, self: 80 },
        { name: '(idle)', self: 50 },
      ],
    });
    const gc = a.hints.find((h) => h.rule === 'gc-pressure')!;
    assert.ok(gc);
    assert.equal(gc.totalPct, 20);
    assert.equal(a.categories.gc, 20);
    assert.equal(a.categories.idle, 50);
  });
});

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
