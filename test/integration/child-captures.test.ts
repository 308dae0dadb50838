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
import { StackSampler } from '../../src/core/capture/stack-sampler.ts';
import { saveProcesses } from '../../src/core/capture/child-profiles.ts';
import type { ExtrasRecord } from '../../src/core/store/index.ts';
import { tempDir } from '../helpers/integration.ts';

/** Busy in JS all the time: every capture finds a stack. */
const BUSY = `
function spin(n) { let x = 0; for (let i = 0; i < n; i++) x = (x + Math.imul(i, 40503)) | 0; return x; }
setInterval(() => spin(2e6), 1);
setTimeout(() => {}, 60000);`;

let child: ChildProcess | undefined;
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
    child!.stderr!.setEncoding('utf8').on('data', (s: string) => {
      err += s;
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

const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

test(
  'captures tick only while the child is profiled, and every tick falls in one of its segments',
  { timeout: 60_000 },
  async () => {
    const info = await busyChild();
    const processes = new ProcessProfilers<StackSampler>((channel) =>
      StackSampler.start(channel, 200, { paused: true }),
    );
    try {
      processes.add(info);
      // Sub-window 1 in two segments, a pause (a measured sub-window), sub-window 2.
      await processes.startWindow(1000, true);
      await wait(700);
      await processes.nextSegment();
      await wait(700);
      await processes.pauseWindow();
      await wait(700);
      await processes.startWindow(1000, false);
      await wait(700);
      const [capture] = await processes.finish();
      assert.equal(capture.segments.length, 3);
      assert.ok(capture.companion, 'its captures ran');
      const stacks = capture.companion.result(capture.segments);
      assert.ok(stacks.ticks.length > 100, `${stacks.ticks.length} ticks in ~2.1 s at 200/s`);
      // Sent between a segment's start and its end: never in the pause, never while restarting.
      const outside = stacks.timing.filter(
        ([sentUs]) => !capture.segments.some((s) => sentUs >= s.startTime && sentUs <= s.endTime),
      );
      assert.deepEqual(outside, [], 'captures sent while the profiler was stopped');
      assert.equal(stacks.unmatchedTicks, 0);
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
    await wait(500);
    const [capture] = await processes.finish();
    assert.equal(capture.segments.length, 1);
    assert.ok((capture.segments[0].samples?.length ?? 0) > 100);
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
