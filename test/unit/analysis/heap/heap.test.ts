// The sampling heap profile analysis (src/core/analysis/heap/heap.ts) on small trees whose answer is
// known: own bytes go to the deepest frame of your code, total bytes count recursion once, and
// the reader rejects what is not a heap profile.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeHeapProfile } from '../../../../src/core/analysis/heap/heap.ts';
import { HeapProfileError, parseHeapProfileText } from '../../../../src/core/profile/heap-profile.ts';
import type { SamplingHeapNode } from '../../../../src/core/profile/heap-profile.ts';

const ROOT = '/app';
let nextId = 1;
function node(
  functionName: string,
  url: string,
  lineNumber: number,
  selfSize: number,
  children: SamplingHeapNode[] = [],
): SamplingHeapNode {
  return {
    callFrame: { functionName, scriptId: '1', url, lineNumber, columnNumber: 0 },
    selfSize,
    id: nextId++,
    children,
  };
}

test('own bytes: the deepest frame of your code; outside bytes: no frame of yours on the stack', () => {
  const head = node('(root)', '', -1, 0, [
    node('handler', 'file:///app/server.js', 9, 100, [
      node('makeRows', 'file:///app/rows.js', 2, 1000, [
        node('push', '', -1, 500), // a built-in: its bytes are makeRows' own
        node('stringify', 'file:///app/node_modules/lib/index.js', 4, 300),
      ]),
    ]),
    node('parserOnHeadersComplete', 'node:_http_common', 70, 50),
  ]);
  const a = analyzeHeapProfile({ head }, ROOT);
  assert.equal(a.totalBytes, 1950);
  assert.equal(a.outsideUserBytes, 50);
  assert.deepEqual(
    a.lines.map((l) => [l.file, l.line, l.function, l.ownBytes]),
    [
      ['/app/rows.js', 3, 'makeRows', 1800],
      ['/app/server.js', 10, 'handler', 100],
    ],
  );
  assert.equal(a.lines[0].ownPct, 92.31);
  const makeRows = a.functions.find((f) => f.name === 'makeRows')!;
  assert.equal(makeRows.selfBytes, 1000);
  assert.equal(makeRows.totalBytes, 1800);
  assert.equal(makeRows.category, 'user');
  assert.equal(a.functions.find((f) => f.name === 'stringify')?.category, 'dependencies');
});

test('recursion: a function on the stack twice counts its bytes once in its total', () => {
  const head = node('(root)', '', -1, 0, [
    node('walk', 'file:///app/tree.js', 0, 10, [
      node('walk', 'file:///app/tree.js', 0, 20, [node('walk', 'file:///app/tree.js', 0, 30)]),
    ]),
  ]);
  const a = analyzeHeapProfile({ head }, ROOT);
  const walk = a.functions.find((f) => f.name === 'walk')!;
  assert.equal(walk.selfBytes, 60);
  assert.equal(walk.totalBytes, 60);
  assert.equal(a.lines.length, 1);
  assert.equal(a.lines[0].ownBytes, 60);
});

test('a deep tree is walked without recursion', () => {
  let leaf = node('deep', 'file:///app/deep.js', 0, 1);
  for (let i = 0; i < 50_000; i++) leaf = node('deep', 'file:///app/deep.js', 0, 1, [leaf]);
  const a = analyzeHeapProfile({ head: node('(root)', '', -1, 0, [leaf]) }, ROOT);
  assert.equal(a.totalBytes, 50_001);
});

test('what is not a heap profile is refused with a reason', () => {
  assert.throws(() => parseHeapProfileText('not json'), HeapProfileError);
  assert.throws(() => parseHeapProfileText('{"nodes": []}'), /no "head" node/);
  assert.throws(
    () =>
      parseHeapProfileText(
        '{"head": {"callFrame": {"functionName": "x", "url": "", "lineNumber": 0}, "selfSize": -1, "id": 1, "children": []}}',
      ),
    /selfSize/,
  );
  assert.throws(() => parseHeapProfileText('{"head": {"selfSize": 1, "id": 1, "children": []}}'), /callFrame/);
});
