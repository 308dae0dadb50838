// mergeHeapProfiles: the allocation profiles of several profiled sub-windows become one, by call
// path; bytes add up, samples keep their sizes and point at the merged nodes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergeHeapProfiles } from '../../../src/core/profile/heap-merge.ts';
import type { SamplingHeapNode, SamplingHeapProfile } from '../../../src/core/profile/heap-profile.ts';

const frame = (functionName: string, lineNumber = 0) => ({
  functionName,
  scriptId: '1',
  url: 'file:///app.js',
  lineNumber,
  columnNumber: 0,
});
const node = (id: number, name: string, selfSize: number, children: SamplingHeapNode[] = []): SamplingHeapNode => ({
  id,
  callFrame: frame(name),
  selfSize,
  children,
});

test('two sub-windows: the shared path adds up, a path of one stays, samples follow their nodes', () => {
  const a: SamplingHeapProfile = {
    head: node(1, '(root)', 0, [node(2, 'handler', 100, [node(3, 'build', 400)])]),
    samples: [{ size: 400, nodeId: 3, ordinal: 1 }],
  };
  const b: SamplingHeapProfile = {
    head: node(7, '(root)', 0, [node(8, 'handler', 50, [node(9, 'build', 600), node(10, 'log', 30)])]),
    samples: [
      { size: 600, nodeId: 9, ordinal: 1 },
      { size: 30, nodeId: 10, ordinal: 2 },
    ],
  };
  const m = mergeHeapProfiles([a, b]);
  const handler = m.head.children[0];
  assert.equal(handler.selfSize, 150);
  assert.deepEqual(
    handler.children.map((c) => [c.callFrame.functionName, c.selfSize]),
    [
      ['build', 1000],
      ['log', 30],
    ],
  );
  const byId = new Map<number, SamplingHeapNode>();
  const walk = (n: SamplingHeapNode): void => {
    byId.set(n.id, n);
    n.children.forEach(walk);
  };
  walk(m.head);
  assert.equal(byId.size, 4, 'ids are unique');
  assert.deepEqual(
    m.samples!.map((s) => [byId.get(s.nodeId)!.callFrame.functionName, s.size]),
    [
      ['build', 400],
      ['build', 600],
      ['log', 30],
    ],
  );
  assert.deepEqual(
    m.samples!.map((s) => s.ordinal),
    [1, 3, 4],
    'ordinals stay in order across sub-windows',
  );
  assert.equal(a.head.children[0].selfSize, 100, 'inputs are not changed');
});

test('one profile is returned as it is; none is an error', () => {
  const a: SamplingHeapProfile = { head: node(1, '(root)', 5) };
  assert.equal(mergeHeapProfiles([a]), a);
  assert.throws(() => mergeHeapProfiles([]), /no profile/);
});
