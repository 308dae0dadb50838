// The shared rules of src/core/common: which hosts are this machine (the security check behind
// the inspector, the load and attach) and whether a path is inside a folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { isBelow, isLoopback, isWithin } from '../../../src/core/common/index.ts';

test('isLoopback: localhost, 127.0.0.0/8 and ::1, with or without brackets', () => {
  for (const host of ['localhost', 'LocalHost', '127.0.0.1', '127.1.2.3', '127.255.255.255', '::1', '[::1]']) {
    assert.equal(isLoopback(host), true, host);
  }
});

test('isLoopback: anything else is another machine, however it looks', () => {
  const others = [
    '',
    '0.0.0.0',
    '128.0.0.1',
    '10.0.0.1',
    '127.0.0.300', // not an address
    '127.0.0.1.evil.com',
    '127.evil.com',
    'localhost.evil.com',
    '::',
    '::2',
    '[::1',
    '::ffff:127.0.0.1', // what a URL parser leaves of an IPv4-mapped address: refused, not guessed
    '0:0:0:0:0:0:0:1', // uncompressed: URL parsing gives ::1, raw text is refused
    'example.com',
  ];
  for (const host of others) assert.equal(isLoopback(host), false, host);
});

test('isLoopback agrees with how URLs name hosts', () => {
  assert.equal(isLoopback(new URL('http://[0:0:0:0:0:0:0:1]:80/').hostname), true);
  assert.equal(isLoopback(new URL('http://127.1/').hostname), true); // parsed to 127.0.0.1
  assert.equal(isLoopback(new URL('http://LOCALHOST:3000/').hostname), true);
  assert.equal(isLoopback(new URL('http://2130706433/').hostname), true); // 127.0.0.1 as one number
  assert.equal(isLoopback(new URL('http://0x7f000001/').hostname), true);
  assert.equal(isLoopback(new URL('http://[::ffff:7f00:1]/').hostname), false);
});

test('isWithin / isBelow: the folder itself, files below it, and nothing that leaves it', () => {
  const root = path.resolve('/srv/app');
  assert.equal(isWithin(root, root), true);
  assert.equal(isBelow(root, root), false);
  for (const inside of ['a.js', 'lib/a.js', '..hidden/a.js', '...']) {
    const file = path.join(root, 'x', inside);
    assert.equal(isWithin(root, file), true, file);
    assert.equal(isBelow(root, file), true, file);
  }
  for (const outside of ['/srv/app2/a.js', '/srv/a.js', '/', '/srv/app/../b.js']) {
    assert.equal(isWithin(root, path.resolve(outside)), false, outside);
  }
  assert.equal(isWithin(root, 'relative/a.js'), false);
  assert.equal(isWithin('relative', path.join(root, 'a.js')), false);
});
