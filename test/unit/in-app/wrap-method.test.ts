// Wrapping a library's method for as long as a probe is on (src/core/in-app/scripts/shared/
// wrap-method.ts): the original is called through, put back with its own descriptor, and a
// wrapper someone laid over ours meanwhile is left in place.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ownerOf, wrapMethod } from '../../../src/core/in-app/scripts/shared/wrap-method.ts';

class Pool {
  size = 2;
  acquire(n: number): number {
    return this.size + n;
  }
}

test('a wrapped method calls through with its this; undo puts the original back, non-enumerable as it was', () => {
  const proto = ownerOf(Pool, 'acquire')!;
  assert.equal(proto, Pool.prototype);
  const original = Pool.prototype.acquire;
  const seen: number[] = [];
  const undo = wrapMethod(
    proto,
    'acquire',
    (orig) =>
      function (this: never, ...args: unknown[]): unknown {
        seen.push(args[0] as number);
        return orig.apply(this, args);
      },
  );
  assert.notEqual(Pool.prototype.acquire, original);
  assert.equal(new Pool().acquire(3), 5);
  assert.deepEqual(seen, [3]);
  undo();
  assert.equal(Pool.prototype.acquire, original);
  assert.equal(Object.getOwnPropertyDescriptor(Pool.prototype, 'acquire')!.enumerable, false);
});

test("undo leaves a later wrapper in place; a method the class does not own, or no class, is not one's to wrap", () => {
  const undo = wrapMethod(ownerOf(Pool, 'acquire')!, 'acquire', (orig) => orig);
  const theirs = function (this: Pool): number {
    return -1;
  };
  Pool.prototype.acquire = theirs;
  undo();
  assert.equal(Pool.prototype.acquire, theirs);
  class Child extends Pool {}
  assert.equal(ownerOf(Child, 'acquire'), undefined);
  assert.equal(ownerOf({ acquire: () => 1 }, 'acquire'), undefined);
  assert.equal(ownerOf(undefined, 'acquire'), undefined);
});
