// Worker threads and allocation sampling end to end: real apps under real load through the real
// inspector. worker-app spends its CPU in a pool of worker_threads (hash-worker.js); heap-app
// allocates in one known function. Needs `npm run build` (the load runner is forked from dist/).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { test } from 'node:test';
import { profileUnderLoad, type ProfiledRun } from '../../src/core/index.ts';
import { parseCpuProfileText } from '../../src/core/profile/cpuprofile.ts';
import { parseHeapProfileText } from '../../src/core/profile/heap-profile.ts';
import { HEAP_FILE, PROFILE_FILE } from '../../src/core/store/store.ts';
import {
  DIE_WHEN_TOLD,
  dieDuring,
  leakCheckedRuns,
  REPO_ROOT,
  RUN_TEST_TIMEOUT,
  freePort,
  tempDir,
} from '../helpers/integration.ts';

const WORKER_APP = path.join(REPO_ROOT, 'test', 'apps', 'worker-app');
const HEAP_APP = path.join(REPO_ROOT, 'test', 'apps', 'heap-app');

const runs = leakCheckedRuns();

async function run(opts: Parameters<typeof profileUnderLoad>[0]): Promise<ProfiledRun> {
  runs.watch(opts.target.cwd);
  const result = await profileUnderLoad(opts);
  runs.appStarted(result.report.app.pid);
  return result;
}

test(
  'worker threads: each worker is profiled, and the hot line in the worker file is found',
  RUN_TEST_TIMEOUT,
  async () => {
    const { runDir, report } = await run({
      target: { cwd: WORKER_APP, entry: 'server.js' },
      url: '/hash?text=hotline',
      warmupS: 1,
      durationS: 3,
      // Three profiled sub-windows: the workers are watched again through each reopened inspector.
      subWindows: 3,
      connections: 8,
      runsDir: tempDir(),
    });
    const workerFile = path.join(WORKER_APP, 'hash-worker.js');
    const hotLine =
      fs
        .readFileSync(workerFile, 'utf8')
        .split('\n')
        .findIndex((l) => l.includes('// the hot line')) + 1;

    // Threads: the main thread first, then the pool's two workers, each with its own profile file.
    const threads = report.threads ?? [];
    assert.equal(threads[0]?.id, 0);
    assert.equal(threads[0]?.file, PROFILE_FILE);
    const workers = threads.slice(1);
    assert.deepEqual(
      workers.map((t) => t.title.replace(/^\[worker \d+\] /, '')).sort(),
      ['hasher-1', 'hasher-2'],
      JSON.stringify(threads),
    );
    for (const w of workers) {
      // The pool is made at module load: started at the app's boot, there all through the window.
      assert.equal(w.startedAtBoot, true, JSON.stringify(w));
      assert.ok(!w.joinedLate && !w.exitedEarly, JSON.stringify(w));
      assert.equal(w.script, workerFile);
      const profile = parseCpuProfileText(fs.readFileSync(path.join(runDir, w.file), 'utf8'));
      assert.ok((profile.samples?.length ?? 0) > 100, `${w.file}: ${profile.samples?.length} samples`);
      assert.ok(w.nonIdleMs > 500, `${w.title} was busy: ${w.nonIdleMs} ms of ${w.durationMs} ms`);
      assert.equal(w.topLine?.file, workerFile);
      assert.equal(w.topLine?.line, hotLine, `${w.title}'s top line`);
    }

    // The workers' hot line is in report.lines, tagged, with a share of the workers' CPU.
    const line = report.lines.find((l) => l.thread === 'worker' && l.file === workerFile && l.line === hotLine);
    assert.ok(line, `no worker line ${hotLine} in ${JSON.stringify(report.lines.filter((l) => l.thread))}`);
    assert.ok(line.ownPct > 50, `the hot line owns ${line.ownPct}% of the workers' CPU`);
    assert.equal(line.function, 'slowHash');
    assert.ok(report.workers && report.workers.nonIdleMs > 1000, `workers' CPU: ${report.workers?.nonIdleMs} ms`);
    assert.ok(
      Math.abs((line.ownMs / report.workers.nonIdleMs) * 100 - line.ownPct) < 1,
      "ownPct is of the workers' non-idle time",
    );
    assert.ok(report.functions.some((f) => f.thread === 'worker' && f.name === 'slowHash' && f.file === workerFile));
    // The main thread's lines are not the worker's: it only queues jobs.
    assert.ok(!report.lines.some((l) => l.thread === undefined && l.file === workerFile && l.line === hotLine));
    // The sources snapshot covers the worker file, so lenses there map through edits.
    const snapshot = JSON.parse(fs.readFileSync(path.join(runDir, 'sources.json'), 'utf8')) as Record<string, string>;
    assert.ok(workerFile in snapshot, 'sources.json has the worker file');
  },
);

test(
  'a worker that starts during the profiled window joins, and one that exits before its end keeps its profile',
  RUN_TEST_TIMEOUT,
  async () => {
    const port = await freePort();
    let spawned: Promise<number> | undefined;
    const { runDir, report } = await run({
      target: { cwd: WORKER_APP, entry: 'server.js', env: { PORT: String(port) } },
      url: '/hash?text=hotline',
      warmupS: 1,
      durationS: 3,
      connections: 4,
      runsDir: tempDir(),
      // Once the profiled window has begun, ask the app for a worker that hashes for 800 ms and exits.
      onProgress: (p) => {
        if (p.phase !== 'profiling' || spawned) return;
        spawned = new Promise((resolve, reject) => {
          http
            .get(`http://127.0.0.1:${port}/spawn?ms=800`, (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            })
            .on('error', reject);
        });
      },
    });
    assert.equal(await spawned, 202, 'the one-off worker was started');
    const oneOff = report.threads?.find((t) => t.title.endsWith('one-off'));
    assert.ok(
      oneOff,
      `the one-off worker is listed: ${JSON.stringify(report.threads)}\n${report.notes.join('\n')}\n${fs.readFileSync(path.join(runDir, 'app.log'), 'utf8')}`,
    );
    assert.equal(oneOff.joinedLate, true);
    assert.equal(oneOff.exitedEarly, true);
    // Its profile ends with it, inside the window, and holds its work: busy, mostly on the hot line.
    const window = report.threads!.find((t) => t.id === 0)!;
    assert.ok(
      oneOff.nonIdleMs > 0 && oneOff.durationMs < window.durationMs,
      `one-off: ${oneOff.nonIdleMs} ms busy of ${oneOff.durationMs} ms; the main thread's window ${window.durationMs} ms`,
    );
    assert.ok(oneOff.topLine && oneOff.topLine.ownPct >= 50, `one-off's top line: ${JSON.stringify(oneOff.topLine)}`);
    assert.equal(
      oneOff.topLine?.line,
      fs
        .readFileSync(path.join(WORKER_APP, 'hash-worker.js'), 'utf8')
        .split('\n')
        .findIndex((l) => l.includes('// the hot line')) + 1,
    );
    assert.ok(fs.existsSync(path.join(runDir, oneOff.file)));
    assert.ok(
      report.notes.some((n) => /one-off exited during the profiled window/.test(n)),
      report.notes.join('\n'),
    );
    assert.ok(
      report.notes.some((n) => /one-off started during the profiled window/.test(n)),
      report.notes.join('\n'),
    );
    // The pool's workers were there from the start: neither flag.
    for (const t of report.threads!.filter((t) => /hasher/.test(t.title)))
      assert.ok(!t.joinedLate && !t.exitedEarly && t.startedAtBoot, JSON.stringify(t));
    assert.equal(oneOff.startedAtBoot, undefined, 'the one-off started long after the boot');
  },
);

test(
  'heap sampling: the allocating function (or the caller V8 inlined it into) tops the heap lines; heap.heapprofile is saved',
  RUN_TEST_TIMEOUT,
  async () => {
    const { runDir, report } = await run({
      target: { cwd: HEAP_APP, entry: 'server.js' },
      url: '/rows',
      warmupS: 1,
      durationS: 3,
      connections: 8,
      heap: {},
      runsDir: tempDir(),
    });
    const server = path.join(HEAP_APP, 'server.js');
    const source = fs.readFileSync(server, 'utf8').split('\n');
    const makeRowsLine = source.findIndex((l) => l.startsWith('function makeRows')) + 1;
    const handlerLine = source.findIndex((l) => l.includes('http.createServer(')) + 1;
    const heap = report.heap;
    assert.ok(heap, 'report.heap');
    assert.equal(heap.file, HEAP_FILE);
    assert.ok(parseHeapProfileText(fs.readFileSync(path.join(runDir, HEAP_FILE), 'utf8')).head.children.length > 0);
    // makeRows allocates nearly everything. V8's sampling heap profile does not see inlined frames:
    // in some runs TurboFan inlines makeRows into the request handler, and then the handler owns
    // part or all of its bytes (seen: handler 58%, makeRows 41%). Either way those two own it all.
    const top = heap.lines[0];
    assert.equal(top?.file, server);
    assert.ok([makeRowsLine, handlerLine].includes(top.line), JSON.stringify(heap.lines.slice(0, 3)));
    const share = heap.lines
      .filter((l) => l.file === server && (l.line === makeRowsLine || l.line === handlerLine))
      .reduce((sum, l) => sum + l.ownPct, 0);
    assert.ok(
      share > 90,
      `makeRows and the handler own ${share}% of the bytes: ${JSON.stringify(heap.lines.slice(0, 3))}`,
    );
    if (top.line === makeRowsLine) assert.equal(top.function, 'makeRows');
    // Each request builds 2000 rows of ~4 objects: well over 100 KB per request.
    assert.ok((heap.bytesPerRequest ?? 0) > 100_000, `bytes per request: ${heap.bytesPerRequest}`);
    assert.ok((heap.bytesPerSecond ?? 0) > 0);
    assert.ok(heap.totalBytes >= top.ownBytes);
    assert.ok(
      report.notes.some((n) => /inlined/.test(n)),
      'the report says what inlining does to the allocation lines',
    );
  },
);

test(
  'heap sampling in a run whose app exits in the profiled window: the allocations up to the exit are kept',
  RUN_TEST_TIMEOUT,
  async () => {
    const app = path.join(REPO_ROOT, 'test', 'apps', 'bad', 'exits-later');
    const { runDir, report } = await run({
      target: { cwd: app, entry: 'server.js', env: { ...DIE_WHEN_TOLD, EXIT_HOW: 'exit' } },
      url: '/',
      runsDir: tempDir(),
      warmupS: 1,
      durationS: 4,
      connections: 10,
      segmentS: 1,
      heap: {},
      onProgress: dieDuring('profiling', app, 2),
    });
    assert.ok(report.partial, 'a partial run');
    assert.ok(report.heap, `report.heap: ${report.notes.join(' | ')}`);
    assert.ok(report.heap.totalBytes > 0);
    assert.ok(fs.existsSync(path.join(runDir, HEAP_FILE)));
  },
);
