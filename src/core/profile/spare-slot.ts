// A typed array made with one unused element after its end, so that a view shifted by one
// element fits in the same memory. The profile tree's per-sample durations are the time deltas
// shifted by one (each sample lasts until the next one starts) plus one last value: with the
// spare slot they are a view of the reader's own array, not a copy of millions of numbers.
// Only arrays made here are marked: writing past any other array's end could hit a neighbour.

const withSpare = new WeakSet<Int32Array>();

/** The first `length` Int32 elements of `buffer`, which holds at least one more (the spare). */
export function int32ViewWithSpareSlot(buffer: ArrayBuffer, length: number): Int32Array {
  if (buffer.byteLength < (length + 1) * 4) throw new RangeError('no room for the spare slot');
  const a = new Int32Array(buffer, 0, length);
  withSpare.add(a);
  return a;
}

/**
 * The values a[1..], then `last`: a view over a's memory when a was made above (its spare slot
 * takes `last`; a's own values are not changed), else a copy.
 */
export function shiftedWithLast(a: Int32Array, last: number): Int32Array {
  let out: Int32Array;
  if (withSpare.has(a)) out = new Int32Array(a.buffer, a.byteOffset + 4, a.length);
  else {
    out = new Int32Array(a.length);
    out.set(a.subarray(1));
  }
  out[a.length - 1] = last;
  return out;
}
