// hint-range.ts: the squiggle of a hint's diagnostic covers the call expression of its API.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callRange, lineRange } from '../../src/server/hint-range.ts';

const cover = (text: string, api: string): string | undefined => {
  const r = callRange(text, api);
  return r && text.slice(r.start, r.end);
};

test('a qualified call, arguments and all', () => {
  assert.equal(
    cover("  const hash = crypto.pbkdf2Sync(password, user.salt, 10000, 512, 'sha512');", 'crypto.pbkdf2Sync'),
    "crypto.pbkdf2Sync(password, user.salt, 10000, 512, 'sha512')",
  );
});

test('a destructured name, nested parentheses and quotes with parentheses in them', () => {
  assert.equal(cover("x = pbkdf2Sync(f(a), ')', b) + 1;", 'crypto.pbkdf2Sync'), "pbkdf2Sync(f(a), ')', b)");
});

test('a module label (zlib) finds the qualified call after it', () => {
  assert.equal(cover('  const out = zlib.gzipSync(buf);', 'zlib'), 'zlib.gzipSync(buf)');
});

test('a call that goes on to the next line ends at the end of this one', () => {
  assert.equal(cover('  return JSON.stringify(rows,   ', 'JSON.stringify'), 'JSON.stringify(rows,');
});

test('whole words only; a name not called is the fallback; absent is undefined', () => {
  assert.equal(cover('const readFileSyncish = 1; fs.readFileSync(p)', 'fs.readFileSync'), 'fs.readFileSync(p)');
  assert.equal(cover('const f = crypto.pbkdf2Sync;', 'crypto.pbkdf2Sync'), 'crypto.pbkdf2Sync');
  assert.equal(callRange('  await verify(user, password)', 'crypto.pbkdf2Sync'), undefined);
  assert.equal(callRange('anything', '(garbage collector)'), undefined);
});

test('the whole line without its indentation', () => {
  assert.deepEqual(lineRange('    foo();  '), { start: 4, end: 10 });
  assert.deepEqual(lineRange('   '), { start: 0, end: 0 });
});
