// The Runs view's times (extension/views/run-time-text.ts): 24-hour, whatever the locale.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runTimeLong, runTimeShort } from '../../../src/extension/views/run-time-text.ts';

test('an afternoon run reads 14:02:11 today, "Nov 3 14:02" before, never AM/PM', () => {
  const at = new Date(2026, 10, 3, 14, 2, 11);
  assert.equal(runTimeShort(at.toISOString(), 'id', new Date(2026, 10, 3, 18, 0, 0)), '14:02:11');
  assert.equal(runTimeShort(at.toISOString(), 'id', new Date(2026, 10, 4, 9, 0, 0)), 'Nov 3 14:02');
  assert.equal(runTimeLong(at.toISOString(), 'id'), '2026-11-03 14:02:11');
  const morning = new Date(2026, 10, 3, 0, 5, 9).toISOString();
  assert.equal(runTimeShort(morning, 'id', new Date(2026, 10, 3, 1, 0, 0)), '00:05:09');
});

test('an unreadable time falls back to the run id', () => {
  assert.equal(runTimeShort('not a date', 'run-1'), 'run-1');
  assert.equal(runTimeLong('', 'run-1'), 'run-1');
});
