// parseCpuProfileBytes (cpuprofile-reader.ts): the bytes of a file give the same profile and
// the same errors as parseCpuProfileText on its text, whatever the layout: key order,
// whitespace, keys inside strings and call frames, escapes, BOM, fractions, big ids, duplicate
// keys, wrappers, broken JSON. Typed arrays come back only where the fast path applied.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { parseCpuProfileText } from '../../../src/core/profile/cpuprofile.ts';
import { parseCpuProfileBytes, readCpuProfileBytes } from '../../../src/core/profile/cpuprofile-reader.ts';
import { FIXTURES_DIR } from '../../helpers/fixtures.ts';
import { outcome } from '../../helpers/profiles.ts';

function same(text: string): string {
  const fromBytes = outcome(() => parseCpuProfileBytes(Buffer.from(text, 'utf8')));
  assert.equal(
    fromBytes,
    outcome(() => parseCpuProfileText(text)),
    text.slice(0, 200),
  );
  return fromBytes;
}

const cf = (name: string): string =>
  `{"functionName":${JSON.stringify(name)},"scriptId":"1","url":"file:///a.js","lineNumber":0,"columnNumber":0}`;
const nodes = `[{"id":1,"callFrame":${cf('(root)')},"children":[2]},{"id":2,"callFrame":${cf('samples')},"hitCount":3,"positionTicks":[{"line":1,"ticks":3}]}]`;
const profile = (extra: string): string => `{"nodes":${nodes},"startTime":10,"endTime":5000${extra}}`;

describe('parseCpuProfileBytes', () => {
  test('a real profile: the same profile, its sample arrays typed', () => {
    for (const name of ['login-api', 'file-server']) {
      const file = path.join(FIXTURES_DIR, name, 'profile.cpuprofile');
      const bytes = fs.readFileSync(file);
      const p = parseCpuProfileBytes(bytes);
      assert.ok(p.samples instanceof Int32Array && p.timeDeltas instanceof Int32Array, name);
      assert.ok(p.samples.length > 100, name);
      assert.equal(
        outcome(() => p),
        outcome(() => parseCpuProfileText(bytes.toString('utf8'))),
        name,
      );
    }
  });

  test('layouts: key order, whitespace, BOM, wrapper, keys named samples elsewhere', () => {
    const body = `{\n "timeDeltas" : [ 1 , 2,3 ] ,\r\n\t"samples":[2,2,2], "nodes":${nodes},"startTime":10,"endTime":5000}`;
    assert.match(same(body), /"samples":\[2,2,2\]/);
    same(`\ufeff${body}`);
    same(`  ${profile(',"samples":[2],"timeDeltas":[7]')}  \n`);
    same(`{"profile":${profile(',"samples":[2],"timeDeltas":[7]')}}`);
    // "samples" as a string value and inside an object: never taken for the top-level key.
    same(
      `{"meta":{"samples":[1,1]},"note":"\\"samples\\":[9]",${profile(',"samples":[2,1],"timeDeltas":[1,1]').slice(1)}`,
    );
    same(profile(',"samples":[],"timeDeltas":[]'));
    same(profile(''));
  });

  test('numbers: fractions, exponents, negatives, -0, big ids and deltas', () => {
    assert.match(same(profile(',"samples":[2,2,2],"timeDeltas":[1.5,2e2,-3]')), /"timeDeltas":\[1.5,200,0\]/);
    same(profile(',"samples":[2,2],"timeDeltas":[-0,0.0]'));
    same(profile(',"samples":[2],"timeDeltas":[1E+1]'));
    same(profile(',"samples":[2],"timeDeltas":[12345678901234567890]'));
    same(profile(',"samples":[2],"timeDeltas":[1e400]'));
    same(profile(',"samples":[2],"timeDeltas":[3000000000]'));
    const big = `{"nodes":[{"id":3000000000,"callFrame":${cf('x')}}],"startTime":0,"endTime":9,"samples":[3000000000,3000000000],"timeDeltas":[1,2]}`;
    same(big);
    assert.ok(parseCpuProfileBytes(Buffer.from(big)).samples instanceof Float64Array);
  });

  test('what JSON or the profile rules refuse: the same error', () => {
    for (const extra of [
      ',"samples":[2,],"timeDeltas":[1]',
      ',"samples":[02],"timeDeltas":[1]',
      ',"samples":[+2],"timeDeltas":[1]',
      ',"samples":[.5],"timeDeltas":[1]',
      ',"samples":[2.],"timeDeltas":[1]',
      ',"samples":[1e],"timeDeltas":[1]',
      ',"samples":[2 2],"timeDeltas":[1]',
      ',"samples":[NaN],"timeDeltas":[1]',
      ',"samples":["2"],"timeDeltas":[1]',
      ',"samples":[[2]],"timeDeltas":[1]',
      ',"samples":[2],"timeDeltas":[1,2]',
      ',"samples":[9],"timeDeltas":[1]',
      ',"samples":[2.5],"timeDeltas":[1]',
      ',"samples":[2],"timeDeltas":[null]',
      ',"samples":[2],"timeDeltas":{}',
      ',"samples":[2],"samples":[2,2],"timeDeltas":[1,1]',
      ',"s\\u0061mples":[2,2],"samples":[2],"timeDeltas":[1]',
      ',"samples":[2],"timeDeltas":[1e999999]',
      ',"samples":[2],"timeDeltas":[1]} trailing',
      ',"samples":[2]',
    ]) {
      same(profile(extra));
    }
    for (const cut of [0, 1, 5, 40, 200])
      same(profile(',"samples":[2,2],"timeDeltas":[1,1]').slice(0, -cut || undefined));
    same('');
    same('[]');
    same('{}');
  });

  test('the loader is called again only when the fast path gives up', () => {
    let calls = 0;
    const text = profile(',"samples":[2],"timeDeltas":[1]');
    readCpuProfileBytes(() => (calls++, Buffer.from(text)));
    assert.equal(calls, 1);
    // consume: a fresh, unpooled buffer's memory is handed back once scanned (detached).
    const fresh = Buffer.alloc(Buffer.byteLength(text), text);
    const p = readCpuProfileBytes(() => fresh, { consume: true });
    assert.equal(fresh.byteLength, 0);
    assert.deepEqual(Array.from(p.samples ?? []), [2]);
    calls = 0;
    assert.throws(
      () => readCpuProfileBytes(() => (calls++, Buffer.from(profile(',"samples":[2,],"timeDeltas":[1]')))),
      /not JSON/,
    );
    assert.equal(calls, 2);
  });

  test('node objects in an unusual shape are copied as readCpuProfile copies them', () => {
    const odd =
      `{"nodes":[{"callFrame":{"url":"","functionName":"(root)","lineNumber":0,"columnNumber":0,"scriptId":7},"id":1,"extra":1,"children":[2]},` +
      `{"id":2,"callFrame":${cf('b')},"positionTicks":[{"ticks":1,"line":1}]}],"startTime":0,"endTime":9,"samples":[2],"timeDeltas":[1]}`;
    const out = same(odd);
    assert.ok(!out.includes('extra'));
  });
});
