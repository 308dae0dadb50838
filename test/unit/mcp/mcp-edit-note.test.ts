// verify's word on the edit (src/mcp/edit-note.ts): did it change the line that was measured,
// and did that line's cost move? Two runs' sources and a comparison's rewritten-line row.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Comparison, CostChange, ReportV1, RunSources } from '../../../src/core/index.ts';
import { editNote } from '../../../src/mcp/edit-note.ts';
import { Workspace } from '../../../src/mcp/workspace.ts';

const ws = new Workspace('/w');
const FILE = '/w/server.js';
const base = { lines: [{ file: FILE, line: 2, code: 'hash()', function: 'check' }] } as unknown as ReportV1;
const BEFORE = 'a\nhash()\nc\n';

const sources = (current: string, other?: [string, string]): RunSources => ({
  base: new Map([[FILE, BEFORE], ...(other ? [[other[0], 'x']] : [])] as Array<[string, string]>),
  current: new Map([[FILE, current], ...(other ? [other] : [])]),
});
const comparison = (lines: CostChange[] = [], keptHints: Comparison['keptHints'] = undefined): Comparison =>
  ({ baseId: 'b', currentId: 'c', unit: 'ms/request', lines, functions: [], keptHints }) as unknown as Comparison;

test('no edit at all: said so', () => {
  const n = editNote(ws, comparison(), base, sources(BEFORE));
  assert.equal(n.measuredLineChanged, false);
  assert.deepEqual(n.changedFiles, []);
  assert.match(n.note, /same in both runs: no edit was measured/);
});

test('an edit elsewhere: the measured line was not changed', () => {
  const elsewhere = editNote(ws, comparison(), base, sources('a\nhash()\nc changed\n'));
  assert.equal(elsewhere.measuredLineChanged, false);
  assert.deepEqual(elsewhere.changedFiles, ['server.js']);
  assert.match(elsewhere.note, /did not change the measured line server\.js:2 \(`hash\(\)`\): it changed server\.js/);
  // Lines added above move it, but do not change it.
  const moved = editNote(ws, comparison(), base, sources('// new\na\nhash()\nc\n'));
  assert.equal(moved.measuredLineChanged, false);
  const otherFile = editNote(ws, comparison(), base, sources(BEFORE, ['/w/db.js', 'y']));
  assert.deepEqual(otherFile.changedFiles, ['db.js']);
  assert.match(otherFile.note, /did not change the measured line/);
});

test('the measured line rewritten: whether its cost moved, from its row', () => {
  const row = (verdict: CostChange['verdict'], current: number): CostChange => ({
    name: 'check',
    file: FILE,
    line: 2,
    base: 70,
    current,
    change: current - 70,
    verdict,
    codeChanged: { baseLine: 2, before: 'hash()', after: 'await later(hash())' },
  });
  const after = 'a\nawait later(hash())\nc\n';
  const kept = editNote(ws, comparison([row('within noise', 68)]), base, sources(after));
  assert.equal(kept.measuredLineChanged, true);
  assert.match(
    kept.note,
    /rewrote the measured line server\.js:2 \(now `await later\(hash\(\)\)` at server\.js:2\), but its cost did not move beyond noise \(70 → 68 ms\/request, within noise\)/,
  );
  const fixed = editNote(ws, comparison([row('better', 0.3)]), base, sources(after));
  assert.match(fixed.note, /its cost went 70 → 0\.3 ms\/request, beyond noise/);
});
