// The flame graph's list of a run's profiles (src/extension/flame/run-profiles.ts): the parts of
// report.json it reads, written as analyze-extras.ts writes them.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { runProfiles } from '../../../src/extension/flame/run-profiles.ts';
import type { ReportV1 } from '../../../src/core/report/schema.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-run-profiles-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A real report (a fixture) with the parts the list reads replaced: threads (main first) and heap. */
const BASE = JSON.parse(
  fs.readFileSync(path.join(__dirname, '../../webview/fixtures/workers-heap.json'), 'utf8'),
) as ReportV1;

function writeReport(extra: Partial<ReportV1>): string {
  const report = {
    ...BASE,
    threads: undefined,
    heap: undefined,
    profile: { ...BASE.profile, file: 'profile.cpuprofile' },
    ...extra,
  };
  const file = path.join(dir, 'report.json');
  fs.writeFileSync(file, JSON.stringify(report));
  return file;
}

test('main thread first, then each worker, then the allocations; every file inside the run folder', () => {
  const thread = (id: number, title: string, file: string) => ({
    id,
    title,
    file,
    durationMs: 1,
    samples: 1,
    nonIdleMs: 1,
  });
  const file = writeReport({
    threads: [
      thread(0, 'main', 'profile.cpuprofile'),
      {
        ...thread(3, '[worker 3] hasher', 'worker-3.cpuprofile'),
        topLine: { file: '/app/w.js', line: 10, function: 'f', ownMs: 1, ownPct: 70 },
      },
      thread(4, '[worker 4] evil', '../../etc/passwd'),
    ],
    heap: {
      file: 'heap.heapprofile',
      samplingIntervalBytes: 1,
      totalBytes: 1,
      outsideUserBytes: 0,
      lines: [],
      functions: [],
    },
  });
  assert.deepEqual(runProfiles(file), [
    { label: 'Main thread', description: 'profile.cpuprofile', file: path.join(dir, 'profile.cpuprofile') },
    {
      label: '[worker 3] hasher',
      description: 'worker thread · worker-3.cpuprofile · hottest: w.js:10',
      file: path.join(dir, 'worker-3.cpuprofile'),
    },
    { label: 'Allocations', description: 'heap sampling · heap.heapprofile', file: path.join(dir, 'heap.heapprofile') },
  ]);
});

test('a run without workers or heap, or an unreadable report: the main thread only', () => {
  assert.deepEqual(
    runProfiles(writeReport({})).map((p) => p.label),
    ['Main thread'],
  );
  fs.writeFileSync(path.join(dir, 'report.json'), '{broken');
  assert.deepEqual(
    runProfiles(path.join(dir, 'report.json')).map((p) => p.label),
    ['Main thread'],
  );
});

test('child processes follow the threads, each with its own file; the primary is the main thread already', () => {
  const proc = (pid: number, role: 'primary' | 'worker', file: string) => ({
    pid,
    role,
    ...(role === 'worker' ? { kind: 'cluster' as const } : {}),
    file,
    durationMs: 1,
    samples: 1,
    nonIdleMs: 1,
    sharePct: 50,
  });
  const items = runProfiles(
    writeReport({
      processes: [
        proc(100, 'primary', 'profile.cpuprofile'),
        proc(101, 'worker', 'process-101.cpuprofile'),
        proc(102, 'worker', '../elsewhere.cpuprofile'),
      ],
    }),
  );
  assert.deepEqual(
    items.map((i) => [i.label, path.relative(dir, i.file)]),
    [
      ['Main thread', 'profile.cpuprofile'],
      ['Process 101', 'process-101.cpuprofile'],
    ],
  );
  assert.match(items[1].description, /^cluster process · process-101\.cpuprofile/);
});
