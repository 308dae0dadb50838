// NumberList (src/core/profile/number-list.ts): the numbers come back exactly, in order, as
// Int32 with a spare slot after them (the profile tree views the time deltas shifted by one),
// whether the count was given, given wrong, or unknown, and as doubles once one is not an int32.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { NumberList } from '../../../src/core/profile/number-list.ts';
import { shiftedWithLast } from '../../../src/core/profile/spare-slot.ts';

function filled(values: number[], expected?: number): Int32Array | Float64Array {
  const list = new NumberList(expected);
  for (const v of values) {
    // As the scan writes: straight into the array while it has room and the value is an int32.
    if (list.at < list.current.length && !list.floats && (v | 0) === v) list.current[list.at++] = v;
    else list.push(v);
  }
  return list.done();
}

const ramp = (n: number): number[] => Array.from({ length: n }, (_, i) => (i * 7919) % 100_003);

describe('NumberList', () => {
  for (const [name, count, expected] of [
    ['count unknown, past the first size', 3_000_000, undefined],
    ['count unknown, none', 0, undefined],
    ['count given', 2_500_000, 2_500_000],
    ['count given too small', 1_500_000, 1_000],
    ['count given too large', 1_000, 50_000],
  ] as const) {
    test(`${name}: the same numbers, Int32 with a spare slot`, () => {
      const values = ramp(count);
      const out = filled(values, expected);
      assert.ok(out instanceof Int32Array);
      assert.equal(out.length, count);
      assert.deepEqual(Array.from(out), values);
      if (count > 0) {
        // The spare slot: a view shifted by one, over the same memory, the values left alone.
        const shifted = shiftedWithLast(out, -1);
        assert.equal(shifted.buffer, out.buffer, 'a view, not a copy');
        assert.deepEqual(Array.from(shifted), [...values.slice(1), -1]);
        assert.deepEqual(Array.from(out), values);
      }
    });
  }

  test('a value that is not an int32 turns the list into doubles, exactly', () => {
    const values = [...ramp(1_200_000), 2 ** 40, 0.5, -3];
    for (const expected of [undefined, values.length]) {
      const out = filled(values, expected);
      assert.ok(out instanceof Float64Array);
      assert.deepEqual(Array.from(out), values);
    }
  });
});
