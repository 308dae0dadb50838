// The process tree behind a run's cleanup: /proc on Linux, `ps` on macOS and the BSDs. Both are
// read here on one real tree (a child that starts a grandchild) and must give the same answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { descendantsOf, parentsFromPs } from '../../../src/core/app/processes.ts';

test(
  'descendants from /proc and from ps agree, grandchildren included',
  { skip: process.platform !== 'linux', timeout: 30_000 },
  async () => {
    const grandchild = `require('node:child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' }); console.log('up'); setTimeout(() => {}, 30000);`;
    const child = spawn(process.execPath, ['-e', grandchild], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      await once(child.stdout!, 'data');
      const fromProc = descendantsOf(child.pid!);
      assert.equal(fromProc.length, 1, 'one grandchild');
      assert.deepEqual(descendantsOf(child.pid!, parentsFromPs()).sort(), [...fromProc].sort());
    } finally {
      for (const pid of [...descendantsOf(child.pid!), child.pid!]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  },
);
