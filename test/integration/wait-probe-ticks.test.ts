// The wait probe (src/core/inspector/wait-probe.ts) is started and taken through the inspector,
// whose messages Node serves from an interrupt on top of whatever the app runs. Code served that
// way must never call process.nextTick: landing between Node's last look at an empty tick queue
// and its clearing of "a tick is scheduled" (processTicksAndRejections), it strands the queue and
// no nextTick callback of the app runs again — the app stops serving while its loop still turns
// (a CI run of the truth suite lost its load this way, 2026-11-27; bench/JOURNAL.md, "two faults found in CI").
// Here an app that drains ticks all the time gets the probe started and taken over and over, from
// four sessions at once, for a few seconds; its ticks must keep running. With the probe's earlier
// process.nextTick the queue stranded within 1–3 s here.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';
import CDP from 'chrome-remote-interface';
import { startWaitProbe, takeWaitTrace } from '../../src/core/inspector/wait-probe.ts';
import { REPO_ROOT } from '../helpers/integration.ts';

const APP = path.join(REPO_ROOT, 'test', 'apps', 'tick-spinner', 'server.js');
const HAMMER_MS = 6000;
const SESSIONS = 4;

test('the wait probe, started and taken from interrupts over and over, never strands the app’s tick queue', async (t) => {
  const app = spawn(process.execPath, ['--inspect=127.0.0.1:0', APP], { stdio: ['ignore', 'ignore', 'pipe'] });
  t.after(() => app.kill('SIGKILL'));
  const port = await new Promise<number>((resolve, reject) => {
    let err = '';
    app.stderr.on('data', (d: Buffer) => {
      err += String(d);
      const m = /ws:\/\/127\.0\.0\.1:(\d+)\//.exec(err);
      if (m) resolve(Number(m[1]));
    });
    app.on('exit', (code) => reject(new Error(`the app exited (${code}): ${err}`)));
  });
  const clients = await Promise.all(Array.from({ length: SESSIONS }, () => CDP({ host: '127.0.0.1', port })));
  t.after(() => Promise.all(clients.map((c) => c.close())));
  const ticks = async (): Promise<number> =>
    Number((await clients[0]!.Runtime.evaluate({ expression: 'globalThis.ticks', returnByValue: true })).result.value);

  const end = Date.now() + HAMMER_MS;
  let rounds = 0;
  await Promise.all(
    clients.map(async (c) => {
      const evaluate = async (expression: string) =>
        (await c.Runtime.evaluate({ expression, returnByValue: true })).result.value;
      while (Date.now() < end) {
        await startWaitProbe(evaluate);
        await takeWaitTrace(evaluate);
        rounds++;
      }
    }),
  );
  // The app's ticks still run: the count grows over the next half second.
  const before = await ticks();
  await new Promise((r) => setTimeout(r, 500));
  const after = await ticks();
  t.diagnostic(`${rounds} probe starts and takes; ticks ${before} → ${after}`);
  assert.ok(rounds >= 50, `the probe ran ${rounds} times`);
  assert.ok(after > before, `the app's nextTick queue stopped draining (ticks stayed at ${before})`);
});
