// The app's output file (src/core/app/output-log.ts): what a child writes to its descriptor and
// what Hotline appends come back whole, in order; the tail starts on a whole character; a follower
// gets every byte once; nothing is left on disk.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { OUTPUT_TAIL_BYTES, OutputLog } from '../../../src/core/app/output-log.ts';

test('a child’s stdout and our appends land in one log, in order; the file is unlinked', async () => {
  const log = OutputLog.open();
  assert.match(fs.readlinkSync(`/proc/self/fd/${log.fd}`), /\(deleted\)$/);
  log.append('before\n');
  const child = spawn(process.execPath, ['-e', 'for (let i = 0; i < 3; i++) console.log(`line ${i}`)'], {
    stdio: ['ignore', log.fd, 'ignore'],
  });
  await once(child, 'exit');
  log.append('after\n');
  assert.equal(log.all(), 'before\nline 0\nline 1\nline 2\nafter\n');
  log.close();
  assert.equal(log.all(), 'before\nline 0\nline 1\nline 2\nafter\n');
  assert.throws(() => fs.fstatSync(log.fd)); // our descriptor is closed
  log.append('ignored once closed\n');
  assert.doesNotMatch(log.all(), /ignored/);
});

test('the tail is the last 16 KiB, from a whole character on', () => {
  const log = OutputLog.open();
  try {
    log.append('x'.repeat(OUTPUT_TAIL_BYTES));
    log.append('é'.repeat(OUTPUT_TAIL_BYTES / 2 + 1)); // two bytes each: the cut falls inside one
    const tail = log.tail();
    assert.ok(!tail.includes('\uFFFD'), 'no broken character at the start');
    assert.ok(/^é+$/.test(tail), tail.slice(0, 20));
    assert.ok(Buffer.byteLength(tail) <= OUTPUT_TAIL_BYTES);
  } finally {
    log.close();
  }
});

test('a follower gets everything once, a character split across reads included; close flushes it', async () => {
  const log = OutputLog.open();
  const got: string[] = [];
  log.follow((t) => got.push(t), 10);
  fs.writeSync(log.fd, Buffer.from([0x61, 0xc3])); // "a", then the first byte of "é"
  await waitFor(() => got.length > 0); // a tick has read both bytes: "a" out, half a character held
  assert.deepEqual(got, ['a']);
  fs.writeSync(log.fd, Buffer.from([0xa9]));
  log.append(' and more\n');
  log.close();
  assert.equal(got.join(''), 'aé and more\n');
});

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(check());
}
