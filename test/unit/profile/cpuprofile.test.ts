// readCpuProfile / parseCpuProfileText (cpuprofile.ts): every broken input is a ProfileFormatError
// that says where; a good one comes back as fresh objects with negative deltas clamped. And
// buildProfileTree (profile.ts): the sample timeline and per-node times the analysis builds on.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ProfileFormatError, parseCpuProfileText, readCpuProfile } from '../../../src/core/profile/cpuprofile.ts';
import { buildProfileTree } from '../../../src/core/profile/profile-tree.ts';
import { loadFixture } from '../../helpers/fixtures.ts';
import { buildProfile } from '../../helpers/profiles.ts';

/** (root) → a → b, with two samples of b and one of a. */
function good(): Record<string, unknown> & { nodes: Array<Record<string, unknown>> } {
  const cf = (name: string, url = 'file:///app/x.js') => ({
    functionName: name,
    scriptId: '1',
    url,
    lineNumber: 0,
    columnNumber: 0,
  });
  return {
    nodes: [
      { id: 1, callFrame: cf('(root)', ''), hitCount: 0, children: [2] },
      { id: 2, callFrame: cf('a'), hitCount: 1, children: [3], positionTicks: [{ line: 1, ticks: 1 }] },
      { id: 3, callFrame: cf('b'), hitCount: 2 },
    ],
    startTime: 100,
    endTime: 4100,
    samples: [3, 2, 3],
    timeDeltas: [1000, 1000, 1000],
  };
}

function rejects(input: unknown, where: string | RegExp, message?: RegExp): void {
  assert.throws(
    () => readCpuProfile(input),
    (err: unknown) => {
      assert.ok(err instanceof ProfileFormatError, `a ProfileFormatError, got ${String(err)}`);
      if (typeof where === 'string') assert.equal(err.where, where);
      else assert.match(err.where ?? '', where);
      assert.ok(err.message.includes(`(at ${err.where})`));
      if (message) assert.match(err.message, message);
      return true;
    },
  );
}

/** A copy of good() with `edit` applied. */
function broken(edit: (p: ReturnType<typeof good>) => void): unknown {
  const p = good();
  edit(p);
  return p;
}

describe('readCpuProfile rejects', () => {
  test('not JSON (parseCpuProfileText)', () => {
    assert.throws(
      () => parseCpuProfileText('{"nodes": ['),
      (err: unknown) => err instanceof ProfileFormatError && err.where === 'file' && /not JSON/.test(err.message),
    );
    assert.throws(() => parseCpuProfileText(''), ProfileFormatError);
  });

  test('something that is not an object', () => {
    rejects(null, '$');
    rejects([], '$');
    rejects('profile', '$');
  });

  test('nodes missing, not an array, or empty', () => {
    rejects(
      broken((p) => delete (p as Record<string, unknown>).nodes),
      '$.nodes',
    );
    rejects(
      broken((p) => ((p as Record<string, unknown>).nodes = {})),
      '$.nodes',
    );
    rejects(
      broken((p) => (p.nodes = [])),
      '$.nodes',
      /no nodes/,
    );
  });

  test('start and end times that are not numbers', () => {
    rejects(
      broken((p) => (p.startTime = '100')),
      '$.startTime',
    );
    rejects(
      broken((p) => delete p.endTime),
      '$.endTime',
    );
    rejects(
      broken((p) => (p.endTime = Number.NaN)),
      '$.endTime',
    );
  });

  test('duplicate ids', () => {
    rejects(
      broken((p) => (p.nodes[2].id = 2)),
      '$.nodes[2].id',
      /appears twice/,
    );
  });

  test('a child id that names no node', () => {
    rejects(
      broken((p) => (p.nodes[1].children = [3, 99])),
      '$.nodes[1].children',
      /99/,
    );
  });

  test('a node with two parents', () => {
    rejects(
      broken((p) => (p.nodes[0].children = [2, 3])),
      '$.nodes[1].children',
      /two parents/,
    );
  });

  test('a node that is its own child', () => {
    rejects(
      broken((p) => (p.nodes[2].children = [3])),
      '$.nodes[2].children',
      /its own child/,
    );
  });

  test('a cycle: every node has a parent, or a loop cut off from the root', () => {
    rejects(
      broken((p) => (p.nodes[2].children = [1])),
      '$.nodes',
      /cycle/,
    );
    rejects(
      broken((p) => {
        p.nodes[1].children = [];
        p.nodes.push({
          id: 4,
          callFrame: { functionName: 'c', scriptId: '1', url: '', lineNumber: 0, columnNumber: 0 },
          children: [3],
        });
        p.nodes[2].children = [4];
      }),
      '$.nodes',
      /cycle/,
    );
  });

  test('two roots', () => {
    rejects(
      broken((p) => (p.nodes[1].children = [])),
      '$.nodes',
      /no parent/,
    );
  });

  test('a sample naming no node', () => {
    rejects(
      broken((p) => (p.samples = [3, 7, 3])),
      '$.samples[1]',
    );
    rejects(
      broken((p) => (p.samples = [3, '2', 3])),
      '$.samples[1]',
    );
    rejects(
      broken((p) => (p.samples = 'all')),
      '$.samples',
    );
  });

  test('timeDeltas of the wrong length or type', () => {
    rejects(
      broken((p) => (p.timeDeltas = [1000, 1000])),
      '$.timeDeltas',
      /2 entries for 3 samples/,
    );
    rejects(
      broken((p) => (p.timeDeltas = [1000, null, 1000])),
      '$.timeDeltas[1]',
    );
    rejects(
      broken((p) => (p.timeDeltas = {})),
      '$.timeDeltas',
    );
  });

  test('wrong types inside a node', () => {
    rejects(
      broken((p) => (p.nodes[1] = 'a' as unknown as Record<string, unknown>)),
      '$.nodes[1]',
    );
    rejects(
      broken((p) => (p.nodes[1].id = '2')),
      '$.nodes[1].id',
    );
    rejects(
      broken((p) => (p.nodes[1].id = 2.5)),
      '$.nodes[1].id',
    );
    rejects(
      broken((p) => delete p.nodes[1].callFrame),
      '$.nodes[1].callFrame',
    );
    rejects(
      broken((p) => ((p.nodes[1].callFrame as Record<string, unknown>).functionName = 7)),
      '$.nodes[1].callFrame.functionName',
    );
    rejects(
      broken((p) => ((p.nodes[1].callFrame as Record<string, unknown>).url = null)),
      '$.nodes[1].callFrame.url',
    );
    rejects(
      broken((p) => ((p.nodes[1].callFrame as Record<string, unknown>).lineNumber = '0')),
      '$.nodes[1].callFrame.lineNumber',
    );
    rejects(
      broken((p) => ((p.nodes[1].callFrame as Record<string, unknown>).columnNumber = 0.5)),
      '$.nodes[1].callFrame.columnNumber',
    );
    rejects(
      broken((p) => (p.nodes[1].hitCount = -1)),
      '$.nodes[1].hitCount',
    );
    rejects(
      broken((p) => (p.nodes[1].children = 3)),
      '$.nodes[1].children',
    );
    rejects(
      broken((p) => (p.nodes[1].children = ['3'])),
      '$.nodes[1].children[0]',
    );
    rejects(
      broken((p) => (p.nodes[1].positionTicks = {})),
      '$.nodes[1].positionTicks',
    );
    rejects(
      broken((p) => (p.nodes[1].positionTicks = [{ line: 0, ticks: 1 }])),
      '$.nodes[1].positionTicks[0]',
      /line >= 1/,
    );
    rejects(
      broken((p) => (p.nodes[1].positionTicks = [{ line: 3, ticks: -2 }])),
      '$.nodes[1].positionTicks[0]',
    );
  });

  test('an error says what and where in its message', () => {
    try {
      readCpuProfile(broken((p) => (p.samples = [3, 9, 3])));
      assert.fail('no error');
    } catch (err) {
      assert.ok(err instanceof ProfileFormatError);
      assert.equal(err.name, 'ProfileFormatError');
      assert.equal(err.message, 'sample 1 names no node (at $.samples[1])');
    }
  });
});

describe('readCpuProfile accepts', () => {
  test('a good profile, returned as fresh objects; the input is not mutated', () => {
    const input = good();
    input.timeDeltas = [1000, -20, 1000];
    const before = structuredClone(input);
    deepFreeze(input);
    const out = readCpuProfile(input);
    assert.deepEqual(input, before);
    assert.deepEqual(out.timeDeltas, [1000, 0, 1000], 'negative deltas clamped to 0');
    assert.notEqual(out.nodes, input.nodes);
    assert.notEqual(out.nodes[1], input.nodes[1]);
    assert.notEqual(out.nodes[1].children, input.nodes[1].children);
    assert.notEqual(out.nodes[1].positionTicks, input.nodes[1].positionTicks);
    assert.deepEqual(
      out.nodes.map((n) => n.id),
      [1, 2, 3],
    );
    assert.deepEqual(out.samples, [3, 2, 3]);
  });

  test('the Chrome DevTools wrapper {profile: {...}}', () => {
    assert.deepEqual(readCpuProfile({ profile: good() }).samples, [3, 2, 3]);
    assert.equal(parseCpuProfileText(JSON.stringify({ profile: good() })).nodes.length, 3);
  });

  test('numeric script ids and extra fields; no samples at all', () => {
    const p = good();
    (p.nodes[1].callFrame as Record<string, unknown>).scriptId = 42;
    (p.nodes[1].callFrame as Record<string, unknown>).codeType = 'JS';
    delete p.samples;
    delete p.timeDeltas;
    const out = readCpuProfile(p);
    assert.equal(out.nodes[1].callFrame.scriptId, '42');
    assert.equal(out.samples, undefined);
    assert.equal(out.timeDeltas, undefined);
    assert.ok(!('codeType' in out.nodes[1].callFrame));
  });

  test('every captured fixture', () => {
    for (const name of ['login-api', 'ts-app-json', 'file-server'] as const) {
      const f = loadFixture(name);
      assert.equal(f.profile.nodes.length, f.raw.nodes.length);
      assert.equal(f.profile.samples!.length, f.raw.samples!.length);
    }
  });
});

describe('buildProfileTree', () => {
  test('parents, pre-order, self and subtree time from the samples', () => {
    const t = buildProfileTree(readCpuProfile(good()));
    assert.deepEqual(Array.from(t.parent), [-1, 0, 1]);
    assert.deepEqual(Array.from(t.preorder), [0, 1, 2]);
    assert.equal(t.root, 0);
    // Samples start at 1000, 2000, 3000 µs after startTime; the last lasts until endTime (1000 µs).
    assert.equal(t.firstSampleUs, 1000);
    assert.deepEqual(Array.from(t.sampleDurationUs), [1000, 1000, 1000]);
    assert.deepEqual(Array.from(t.selfUs), [0, 1000, 2000]);
    assert.deepEqual(Array.from(t.subtreeUs), [3000, 3000, 2000]);
    assert.equal(t.intervalUs, 1000);
  });

  test('the last sample is capped at the median interval when the profile ran on long after it', () => {
    const p = good();
    p.endTime = 1_000_000;
    const t = buildProfileTree(readCpuProfile(p));
    assert.equal(t.sampleDurationUs[2], 1000);
  });

  test('clamped negative deltas give zero-length samples, never negative ones', () => {
    const p = good();
    p.timeDeltas = [1000, -500, 1000];
    const t = buildProfileTree(readCpuProfile(p));
    assert.deepEqual(Array.from(t.sampleDurationUs), [0, 1000, 1000]);
    for (const v of t.selfUs) assert.ok(v >= 0);
  });

  test("a file's Int32Array deltas give the durations and interval of the same deltas as a plain array", () => {
    // The typed path sums and finds the median interval in one pass (profile.ts); the plain one
    // is the reference. Negative deltas, a median past the histogram and a single sample included.
    const cases: Array<{ samples: number[]; deltas: number[]; endTime?: number }> = [
      { samples: [3, 2, 3, 3], deltas: [1000, 1200, 900, 1100] },
      { samples: [3, 2, 3, 2], deltas: [1000, -500, 1000, 800] },
      { samples: [3, 2, 3], deltas: [5, 70000, 90000], endTime: 1_000_000 },
      { samples: [2], deltas: [700] },
    ];
    for (const c of cases) {
      const base = { ...good(), samples: c.samples, timeDeltas: c.deltas, endTime: c.endTime ?? 4100 };
      const plain = buildProfileTree(readCpuProfile(base));
      const typed = buildProfileTree(
        readCpuProfile({ ...base, samples: Int32Array.from(c.samples), timeDeltas: Int32Array.from(c.deltas) }),
      );
      assert.equal(typed.intervalUs, plain.intervalUs, `interval of ${c.deltas.join(',')}`);
      assert.deepEqual(Array.from(typed.sampleDurationUs), Array.from(plain.sampleDurationUs));
      assert.deepEqual(Array.from(typed.selfUs), Array.from(plain.selfUs));
    }
  });

  test('frames shared by nodes (same function at two stack positions) are one frame', () => {
    const raw = buildProfile([
      {
        name: 'f',
        file: '/app/x.js',
        line0: 2,
        col0: 10,
        self: 1,
        children: [{ name: 'g', file: '/app/x.js', line0: 5, col0: 10, self: 1 }],
      },
      { name: 'g', file: '/app/x.js', line0: 5, col0: 10, self: 1 },
    ]);
    const t = buildProfileTree(readCpuProfile(raw));
    assert.equal(t.frames.length, 3, '(root), f, g');
    const g = t.frames.findIndex((f) => f.functionName === 'g');
    assert.equal(Array.from(t.nodeFrame).filter((f) => f === g).length, 2);
  });

  test('without samples the hit counts are spread over the wall time', () => {
    const p = good();
    delete p.samples;
    delete p.timeDeltas;
    const t = buildProfileTree(readCpuProfile(p));
    assert.equal(t.sampleNode.length, 3);
    assert.equal(t.durationUs, 4000);
    assert.deepEqual(
      Array.from(t.selfUs).map((v) => Math.round(v)),
      [0, 1333, 2667],
    );
  });
});

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
