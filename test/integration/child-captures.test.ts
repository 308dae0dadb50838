// A child process's stack captures over the real inspector (ProcessProfilers with StackSampler
// as its companion, as a run sets them up): they tick only while the child's profiler runs (not
// in the gap of a measured sub-window, not while a segment restarts), their ticks match the
// child's merged profile, and captures that cannot start cost only a note, never the profile.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, test } from 'node:test';
import { ProcessProfilers, type ProcessInfo } from '../../src/core/inspector/index.ts';
import { StackSampler } from '../../src/core/capture/stacks/stack-sampler.ts';
import { saveProcesses } from '../../src/core/capture/extras/child-profiles.ts';
import type { ExtrasRecord } from '../../src/core/store/index.ts';
import type { CdpChannel } from '../../src/core/inspector/index.ts';
import { tempDir } from '../helpers/integration.ts';
import { waitFor } from '../helpers/waits.ts';

/** Busy in JS all the time: every capture finds a stack. A '*' on stderr per spin (its progress). */
const BUSY = `
function spin(n) { let x = 0; for (let i = 0; i < n; i++) x = (x + Math.imul(i, 40503)) | 0; return x; }
setInterval(() => { spin(2e6); process.stderr.write('*'); }, 1);
setTimeout(() => {}, 60000);`;

let child: ChildProcess | undefined;
/** Spins the child has done so far (its '*' on stderr). */
let spins = 0;
afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
});

/** A busy `node` with its inspector on 127.0.0.1 at a port the OS picks, as the preload opens a child's. */
async function busyChild(): Promise<ProcessInfo> {
  child = spawn(process.execPath, ['--inspect=127.0.0.1:0', '-e', BUSY], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no inspector within 20 s: ${err}`)), 20_000);
    spins = 0;
    child!.stderr!.setEncoding('utf8').on('data', (s: string) => {
      for (const c of s) if (c === '*') spins++;
      err += s.replace(/\*/g, '');
      const m = /Debugger listening on (ws:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child!.once('exit', () => reject(new Error(`the child exited: ${err}`)));
  });
  return { pid: child.pid!, ppid: process.pid, kind: 'spawn', url, argv: [] };
}

/** Captures answered so far (the companion's own count: result() of no segments matches none). */
const answered = (sampler: StackSampler | undefined): number => sampler?.result([]).tickCount ?? 0;

/** Until `sampler` has `more` captures answered beyond what it had when called. */
async function moreCaptures(sampler: () => StackSampler | undefined, more: number): Promise<number> {
  const from = answered(sampler());
  return waitFor(`${more} more stack captures answered (from ${from})`, () => {
    const now = answered(sampler());
    return now >= from + more && now;
  });
}

test(
  'captures tick only while the child is profiled, and every tick falls in one of its segments',
  { timeout: 60_000 },
  async () => {
    const info = await busyChild();
    let sampler: StackSampler | undefined;
    let channel: CdpChannel | undefined;
    const processes = new ProcessProfilers<StackSampler>(async (c) => {
      channel = c;
      return (sampler = await StackSampler.start(c, 200, { paused: true }));
    });
    try {
      processes.add(info);
      // Sub-window 1 in two segments, a pause (a measured sub-window), sub-window 2; each profiled
      // part lasts until its captures came (a state: a busy machine only makes it longer).
      await processes.startWindow(1000, true);
      await moreCaptures(() => sampler, 40);
      await processes.nextSegment();
      await moreCaptures(() => sampler, 40);
      await processes.pauseWindow();
      // The pause lasts until a second sampler on the same child, ticking all along, got its
      // captures: the paused one had every chance to send some, and must not have.
      const paused = answered(sampler);
      const control = await StackSampler.start(channel!, 200);
      await moreCaptures(() => control, 20);
      await control.stop();
      assert.equal(answered(sampler), paused, 'no capture while the child was not profiled');
      await processes.startWindow(1000, false);
      await moreCaptures(() => sampler, 40);
      const [capture] = await processes.finish();
      assert.equal(capture.segments.length, 3);
      assert.ok(capture.companion, 'its captures ran');
      const stacks = capture.companion.result(capture.segments);
      // Sent by the sender thread on a session of its own, not by this thread's timers.
      assert.equal(stacks.sentBy, 'thread');
      assert.ok(stacks.ticks.length >= 120, `${stacks.ticks.length} ticks: at least the 3 × 40 waited for`);
      // Sent between a segment's start and its end: never in the pause, never while restarting.
      const outside = stacks.timing.filter(
        ([sentUs]) => !capture.segments.some((s) => sentUs >= s.startTime && sentUs <= s.endTime),
      );
      assert.deepEqual(outside, [], 'captures sent while the profiler was stopped');
      // A tick in a gap the child did not run in (descheduled on a busy machine) is dropped, not
      // matched: unmatched ticks are a fact of the machine, but every tick is accounted for.
      assert.equal(stacks.ticks.length + stacks.unmatchedTicks + (stacks.unusableTicks ?? 0), stacks.tickCount);
      assert.ok(
        stacks.frames.some((f) => f.functionName === 'spin'),
        JSON.stringify(stacks.frames.slice(0, 5)),
      );
      // Saved beside its profile, its ticks pointing into that profile's samples.
      const runDir = tempDir();
      const record: ExtrasRecord = { workers: [], notes: [] };
      saveProcesses(runDir, [capture], record);
      const entry = record.processes?.[0];
      assert.equal(entry?.stacks, `process-${info.pid}.stacks.json`);
      const saved = JSON.parse(fs.readFileSync(path.join(runDir, entry.stacks), 'utf8')) as { sampleCount: number };
      const profile = JSON.parse(fs.readFileSync(path.join(runDir, entry.file), 'utf8')) as { samples: number[] };
      assert.equal(saved.sampleCount, profile.samples.length);
      assert.deepEqual(record.notes, []);
    } finally {
      await processes.dispose();
    }
  },
);

test('captures that cannot start leave the child profiled, with a note', { timeout: 60_000 }, async () => {
  const info = await busyChild();
  const processes = new ProcessProfilers<StackSampler>(() => Promise.reject(new Error('refused by the test')));
  try {
    processes.add(info);
    await processes.startWindow(1000, true);
    // Profiled while it spins 20 times (each ~ms of JS): its profile has samples of them.
    const from = spins;
    await waitFor('the child spun 20 times while profiled', () => spins >= from + 20);
    const [capture] = await processes.finish();
    assert.equal(capture.segments.length, 1);
    assert.ok((capture.segments[0].samples?.length ?? 0) > 0);
    assert.equal(capture.companionFailed, 'refused by the test');
    const runDir = tempDir();
    const record: ExtrasRecord = { workers: [], notes: [] };
    saveProcesses(runDir, [capture], record);
    assert.equal(record.processes?.[0].stacks, undefined);
    assert.ok(fs.existsSync(path.join(runDir, record.processes![0].file)));
    assert.match(record.notes.join('\n'), /stack captures did not run \(refused by the test\)/);
  } finally {
    await processes.dispose();
  }
});

test('a session whose inspector address is unknown is captured by timers instead', { timeout: 60_000 }, async () => {
  const info = await busyChild();
  let sampler: StackSampler | undefined;
  const processes = new ProcessProfilers<StackSampler>(async (c) => {
    // The same connection without its address: the sender thread cannot open a session of its own.
    const bare: CdpChannel = { send: (m, p) => c.send(m, p), on: (e, h) => c.on(e, h) };
    return (sampler = await StackSampler.start(bare, 200, { paused: true }));
  });
  try {
    processes.add(info);
    await processes.startWindow(1000, true);
    await moreCaptures(() => sampler, 40);
    const [capture] = await processes.finish();
    const stacks = capture.companion!.result(capture.segments);
    assert.equal(stacks.sentBy, 'timers');
    assert.ok(stacks.ticks.length >= 40, `${stacks.ticks.length} ticks`);
  } finally {
    await processes.dispose();
  }
});
