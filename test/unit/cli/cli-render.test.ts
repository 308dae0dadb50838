// The terminal report reads well on what new users met: an attached pid named once, a worker per
// request grouped into one line, repeated notes counted, a long function name kept apart from the
// source beside it; and docs/cli.md names every file a run folder holds.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { groupNotes, renderReport } from '../../../src/cli/render.ts';
import type { ReportV1, ThreadSummary } from '../../../src/core/report/schema.ts';
import * as store from '../../../src/core/store/store.ts';
import { LOAD_LOG_FILE } from '../../../src/core/load/external.ts';
import { TIMELINE_FILE } from '../../../src/core/analysis/time/timeline.ts';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const APP = path.join(ROOT, 'test', 'apps', 'worker-app');
const zero = { user: 0, dependencies: 0, nodeInternals: 0, native: 0, gc: 0, idle: 0, program: 0 };

function report(extra: Partial<ReportV1>): ReportV1 {
  return {
    version: 1,
    id: '20261124-000000-abcd',
    startedAt: '2026-11-24T00:00:00Z',
    app: { command: ['node', 'server.js'], cwd: APP, pid: 22867, url: 'http://127.0.0.1:4000/' },
    settings: {
      url: '/',
      method: 'GET',
      connections: 10,
      durationS: 2,
      warmupS: 1,
      samplingIntervalUs: 1000,
      timeoutS: 10,
      pipelining: 1,
      headers: {},
    },
    profile: { file: 'profile.cpuprofile', durationMs: 2000, samples: 2000, intervalUs: 1000 },
    categories: { ...zero, user: 100, idle: 1900 },
    nonIdleMs: 100,
    functions: [],
    lines: [],
    hints: [],
    notes: [],
    ...extra,
  } as unknown as ReportV1;
}

test('an attach by pid names the pid once', () => {
  const text = renderReport(
    report({ settings: { ...report({}).settings, attach: 'pid:22867' } as ReportV1['settings'] }),
    { cwd: APP, color: false },
  );
  assert.match(text.split('\n')[0], /\(attached to pid 22867\)$/);
  const byUrl = renderReport(
    report({ settings: { ...report({}).settings, attach: 'ws://127.0.0.1:9229/x' } as ReportV1['settings'] }),
    { cwd: APP, color: false },
  );
  assert.match(byUrl.split('\n')[0], /\(attached to ws:\/\/127\.0\.0\.1:9229\/x, pid 22867\)$/);
});

test('a worker per request: one line for the kind, not one per thread', () => {
  const worker = (id: number, over: Partial<ThreadSummary> = {}): ThreadSummary => ({
    id,
    title: `[worker ${id}] one-off`,
    file: `worker-${id}.cpuprofile`,
    script: path.join(APP, 'hash-worker.js'),
    durationMs: 500,
    samples: 500,
    nonIdleMs: 100,
    joinedLate: true,
    exitedEarly: id % 2 === 0,
    ...over,
  });
  const threads = [
    { id: 0, title: 'main', file: 'profile.cpuprofile', durationMs: 2000, samples: 2000, nonIdleMs: 100 },
    worker(1, { title: '[worker 1] hasher-1', joinedLate: false, exitedEarly: false }),
    ...Array.from({ length: 23 }, (_, i) =>
      worker(
        i + 10,
        i === 5
          ? {
              topLine: {
                file: path.join(APP, 'hash-worker.js'),
                line: 10,
                function: 'slowHash',
                ownMs: 80,
                ownPct: 80,
              },
            }
          : {},
      ),
    ),
  ];
  const text = renderReport(
    report({ threads, workers: { nonIdleMs: 2400, durationMs: 2000, samples: 100, categories: zero, hints: [] } }),
    { cwd: APP, color: false },
  );
  const section = text.slice(text.indexOf('Worker threads'));
  assert.equal(section.match(/\[worker \d+\] one-off/g), null, section);
  assert.match(section, /^ {2}\[worker 1\] hasher-1 {2}100 ms busy/m);
  assert.match(
    section,
    /^ {2}one-off ×23 \(hash-worker\.js\) {2}2300 ms busy together {2}hottest hash-worker\.js:10 {2}\(23 started in the window, 12 exited in it\) {2}worker-\{10…32\}\.cpuprofile$/m,
  );
});

test('notes that differ only in numbers or their reason are counted, not repeated', () => {
  const notes = [
    '154 worker threads ran in the profiled window: the first 64 are kept and analyzed, the others are left out.',
    ...Array.from(
      { length: 30 },
      (_, i) =>
        `Worker thread [worker ${i + 5}] one-off gave no profile (worker ${i + 5} ${i % 2 ? 'exited' : 'has exited'}).`,
    ),
    'A source map was ignored.',
  ];
  assert.deepEqual(groupNotes(notes), [
    notes[0],
    'Worker thread [worker 5] one-off gave no profile (worker 5 has exited); 29 more like it',
    'A source map was ignored.',
  ]);
});

test('a long function name does not run into the source text', () => {
  const file = path.join(APP, 'server.js');
  const line = {
    file,
    line: 56,
    function: 'http.createServer callback',
    ownMs: 50,
    ownPct: 50,
    selfMs: 50,
    totalMs: 50,
    selfPct: 50,
    totalPct: 50,
    callees: [],
  };
  const text = renderReport(
    report({
      lines: [
        line,
        { ...line, line: 57, function: 'a.very.long.function.name.beyond.the.column' },
      ] as unknown as ReportV1['lines'],
    }),
    { cwd: APP, color: false },
  );
  assert.match(text, /server\.js:56 {2}http\.createServer callback  +\S/);
  assert.match(
    text,
    /\(% of the 100 ms of busy CPU; the top line costs 50 ms · 2\.5% of a core\)/,
    'the top line of the capacity too',
  );
  assert.match(text, /server\.js:57 {2}a\.very\.long\.function\.name\.b… \S/);
});

test("docs/cli.md's list of run files names every file a run writes, and says sources.json copies your code", () => {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8');
  const section = doc.slice(doc.indexOf('Runs are kept in'), doc.indexOf('Secrets in headers'));
  assert.ok(section.length > 0, 'docs/cli.md has the list of run files');
  const files = [
    store.PROFILE_FILE,
    store.REPORT_FILE,
    store.LOG_FILE,
    store.STACKS_FILE,
    store.RUN_FILE,
    store.SOURCES_FILE,
    store.HEAP_FILE,
    LOAD_LOG_FILE,
    TIMELINE_FILE,
    store.workerProfileFile(0).replace('0', '<threadId>'),
  ];
  for (const f of files) assert.ok(section.includes(`\`${f}\``), `docs/cli.md lists ${f}`);
  assert.match(section, /`sources\.json`: \*\*a copy of the source files/);
});
