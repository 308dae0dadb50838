// staleness.ts: report lines mapped from the analyzed text (sources.json) to the document now.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mapLines, splitLines } from '../../src/server/staleness.ts';

const original = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
const lines = (text: string): string[] => splitLines(text);

test('identical text maps every line to itself', () => {
  const m = mapLines(original, original, [5, 10]);
  assert.equal(m.identical, true);
  assert.equal(m.changedBeyondMapping, false);
  assert.equal(m.toCurrent(5), 4);
  assert.equal(m.toSnapshot(4), 5);
  assert.equal(m.toCurrent(0), undefined);
  assert.equal(m.toCurrent(999), undefined);
});

test('lines inserted above move the lines below', () => {
  const m = mapLines(original, `a\nb\nc\n${original}`, [5, 10]);
  assert.equal(m.identical, false);
  assert.equal(m.toCurrent(5), 7);
  assert.equal(m.toCurrent(10), 12);
  assert.equal(m.toSnapshot(7), 5);
  assert.equal(m.toSnapshot(0), undefined, 'an inserted line came from nowhere');
  assert.deepEqual(m.dropped, []);
});

test('lines deleted above move the lines below up', () => {
  const m = mapLines(original, lines(original).slice(2).join('\n'), [5]);
  assert.equal(m.toCurrent(5), 2);
  assert.equal(m.toCurrent(1), undefined);
});

test('a changed line is dropped; its neighbours keep their place', () => {
  const edited = lines(original)
    .map((l, i) => (i === 9 ? 'line 10 rewritten' : l))
    .join('\n');
  const m = mapLines(original, edited, [9, 10, 11]);
  assert.equal(m.toCurrent(10), undefined);
  assert.equal(m.toCurrent(9), 8);
  assert.equal(m.toCurrent(11), 10);
  assert.deepEqual(m.dropped, [10]);
  assert.equal(m.changedBeyondMapping, false);
});

test('more than half of the lines of interest dropped: changed beyond mapping', () => {
  const edited = lines(original)
    .map((l, i) => (i >= 3 && i <= 12 ? `${l} changed` : l))
    .join('\n');
  assert.equal(mapLines(original, edited, [5, 10, 15]).changedBeyondMapping, true);
  assert.equal(mapLines(original, edited, [5, 15, 16]).changedBeyondMapping, false, 'exactly one of three');
  assert.equal(mapLines(original, edited, []).changedBeyondMapping, false, 'nothing of interest, nothing stale');
});

test('a rewritten file drops everything', () => {
  const m = mapLines(original, 'something else entirely\n', [1, 5]);
  assert.equal(m.changedBeyondMapping, true);
  assert.deepEqual(m.dropped, [1, 5]);
});

test('CRLF in the document against LF in the snapshot: the line texts still match', () => {
  const m = mapLines(original, original.replace(/\n/g, '\r\n'), [5]);
  assert.equal(m.toCurrent(5), 4);
});

test('a line moved to the end of the file is dropped where it was, not guessed', () => {
  const l = lines(original);
  const moved = [...l.slice(0, 4), ...l.slice(5, 20), l[4], ''].join('\n');
  const m = mapLines(original, moved, [5, 6]);
  assert.equal(m.toCurrent(6), 4);
  const five = m.toCurrent(5);
  assert.ok(five === undefined || lines(moved)[five] === 'line 5', 'if it maps, it maps to its own text');
});
