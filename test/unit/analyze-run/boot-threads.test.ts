// Threads the app started at its boot, and Node's own: what the inspector reports (recorded from
// Node 20.20 under `node --import tsx`: the loader-hooks thread is "[worker 1]" with the url
// "node:internal/modules/esm/worker") played to WorkerProfilers over a fake CDP channel, and a
// recorded run folder (test/fixtures/runs/worker-app) analyzed with such a thread added.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { WorkerProfilers } from '../../../src/core/inspector/workers.ts';
import type { CdpChannel } from '../../../src/core/inspector/cdp-channel.ts';
import { analyzeExtras } from '../../../src/core/analyze-run/analyze-extras.ts';
import { isNodeInternalThread } from '../../../src/core/common/index.ts';
import type { ExtrasRecord } from '../../../src/core/store/run-record.ts';
import type { ReportV1 } from '../../../src/core/report/schema.ts';
import { renderReport } from '../../../src/cli/render.ts';

const REPO = path.resolve(__dirname, '..', '..', '..');
const LOADER = { type: 'worker', title: '[worker 1]', url: 'node:internal/modules/esm/worker' };

/** One CDP connection as WorkerProfilers sees it: each worker answers every command at once. */
class FakeChannel implements CdpChannel {
  readonly sent: Array<{ method: string; params: Record<string, unknown> }> = [];
  private readonly handlers = new Map<string, Set<(p: never) => void>>();
  /** What the app says of its boot (boot-threads.ts): the last threadId before it listened. */
  boot: number | undefined;

  on(event: string, handler: (params: never) => void): () => void {
    const set = this.handlers.get(event) ?? new Set();
    set.add(handler);
    this.handlers.set(event, set);
    return () => set.delete(handler);
  }

  emit(event: string, params: object): void {
    for (const h of this.handlers.get(event) ?? []) (h as (p: object) => void)(params);
  }

  send(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    this.sent.push({ method, params });
    if (method === 'Runtime.evaluate') return Promise.resolve({ result: { value: this.boot } });
    if (method === 'NodeWorker.sendMessageToWorker') {
      const m = JSON.parse(String(params.message)) as { id: number; method: string };
      const result =
        m.method === 'Profiler.stop'
          ? { profile: { nodes: [], startTime: 0, endTime: 1000, samples: [], timeDeltas: [] } }
          : {};
      setImmediate(() =>
        this.emit('NodeWorker.receivedMessageFromWorker', {
          sessionId: params.sessionId,
          message: JSON.stringify({ id: m.id, result }),
        }),
      );
    }
    return Promise.resolve({});
  }

  attach(sessionId: string, workerInfo: { title: string; url: string }, waitingForDebugger: boolean): void {
    this.emit('NodeWorker.attachedToWorker', {
      sessionId,
      workerInfo: { workerId: sessionId, type: 'worker', ...workerInfo },
      waitingForDebugger,
    });
  }

  /** The commands sent to one worker, by method. */
  toWorker(sessionId: string): string[] {
    return this.sent
      .filter((s) => s.method === 'NodeWorker.sendMessageToWorker' && s.params.sessionId === sessionId)
      .map((s) => (JSON.parse(String(s.params.message)) as { method: string }).method);
  }
}

const worker = (n: number, name: string): { title: string; url: string } => ({
  title: `[worker ${n}] ${name}`,
  url: `file:///app/${name}.js`,
});

test("Node's loader-hooks thread is recognised by its url, never an app's worker", () => {
  assert.equal(isNodeInternalThread(LOADER.url), true);
  for (const url of ['file:///app/node_modules/esbuild/lib/main.js', 'file:///app/node:internal/x.js', '', 'data:,1'])
    assert.equal(isNodeInternalThread(url), false, url);
});

test("the loader thread is let go untouched; the boot's workers are named so, a later one not", async () => {
  const channel = new FakeChannel();
  let booting = true;
  const w = await WorkerProfilers.watch(channel, { booting: () => booting });
  channel.attach('1', LOADER, true);
  channel.attach('2', worker(2, 'transport'), true);
  // Made before the app listened, but up only after its 'listening' reached us: the app's own
  // note of its boot (threadId ≤ 3) names it.
  booting = false;
  channel.attach('3', worker(3, 'pool'), true);
  channel.attach('4', worker(4, 'later'), true);
  channel.boot = 3;
  await w.startWindow(1000);
  await w.pauseWindow();
  const taken = await w.stop();
  w.dispose();

  // Released (it waited for us) and detached: no profiler, no Runtime domain, no exit hold.
  assert.deepEqual(channel.toWorker('1'), ['Runtime.runIfWaitingForDebugger']);
  assert.ok(channel.sent.some((s) => s.method === 'NodeWorker.detach' && s.params.sessionId === '1'));
  assert.deepEqual(
    taken.map((c) => [c.info.title, c.startedAtBoot === true, c.joinedLate]),
    [
      ['[worker 2] transport', true, false],
      ['[worker 3] pool', true, false],
      ['[worker 4] later', false, false],
    ],
  );
});

test('a boot thread watched again after the inspector was reopened did not start in the window', async () => {
  // The measured sub-windows close the app's inspector; each profiled one watches the workers
  // again through a new session (ProfiledExtras.useSession), which finds them running.
  const first = new FakeChannel();
  const w1 = await WorkerProfilers.watch(first, { booting: () => true });
  first.attach('1', LOADER, true);
  first.attach('2', worker(2, 'transport'), true);
  await w1.pauseWindow(); // its attach work done (no window was open)
  w1.dispose();
  let carried = w1.watchedFromStart;
  const taken = [];
  for (const [i, sub] of ['first', 'second', 'third'].entries()) {
    const channel = new FakeChannel();
    channel.boot = 2;
    const w = await WorkerProfilers.watch(channel, { carried });
    channel.attach('1', LOADER, false);
    channel.attach('2', worker(2, 'transport'), false);
    await w.startWindow(1000, i === 0);
    await w.pauseWindow();
    taken.push(...w.taken.map((c) => ({ sub, title: c.info.title, joinedLate: c.joinedLate, boot: c.startedAtBoot })));
    assert.deepEqual(channel.toWorker('1'), [], `${sub}: nothing is sent to the loader thread`);
    carried = w.watchedFromStart;
    w.dispose();
  }
  assert.deepEqual(
    taken.map((t) => [t.sub, t.title, t.joinedLate, t.boot]),
    [
      ['first', '[worker 2] transport', false, true],
      ['second', '[worker 2] transport', false, true],
      ['third', '[worker 2] transport', false, true],
    ],
  );
});

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-boot-threads-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The recorded worker-app run, in a folder of its own, with its $REPO placeholders filled. */
function recordedRun(): { dir: string; record: { extras: ExtrasRecord }; report: ReportV1 } {
  const from = path.join(REPO, 'test', 'fixtures', 'runs', 'worker-app');
  const dir = fs.mkdtempSync(path.join(tmp, 'run-'));
  for (const f of fs.readdirSync(from))
    fs.writeFileSync(path.join(dir, f), fs.readFileSync(path.join(from, f), 'utf8').replaceAll('$REPO', REPO));
  const record = JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8')) as { extras: ExtrasRecord };
  const report = JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8')) as ReportV1;
  // The main thread's part only: analyzeExtras adds the workers'.
  const main: ReportV1 = {
    ...report,
    lines: report.lines.filter((l) => l.thread === undefined),
    functions: report.functions.filter((f) => f.thread === undefined),
    threads: undefined,
    workers: undefined,
  };
  return { dir, record, report: main };
}

test('a run recorded with the loader thread: no thread row, no line, no hint from it; the boot label passes through', () => {
  const plain = recordedRun();
  const before = analyzeExtras(plain.dir, plain.report.app.cwd, plain.record, plain.report, new Map());

  const run = recordedRun();
  // The loader thread as an older Hotline kept it: a profile full of samples (here a copy of a
  // hasher's, so that any of it left in would show as lines of hash-worker.js).
  fs.copyFileSync(path.join(run.dir, 'worker-1.cpuprofile'), path.join(run.dir, 'worker-9.cpuprofile'));
  const [w2, w1] = run.record.extras.workers;
  run.record.extras.workers = [
    { ...w2, startedAtBoot: true },
    w1,
    {
      threadId: 9,
      title: '[worker 9]',
      url: LOADER.url,
      file: 'worker-9.cpuprofile',
      joinedLate: true,
      exitedEarly: false,
    },
  ];
  const after = analyzeExtras(run.dir, run.report.app.cwd, run.record, run.report, new Map());

  assert.deepEqual(
    after.threads?.map((t) => [t.id, t.startedAtBoot === true]),
    [
      [0, false],
      [2, true],
      [1, false],
    ],
  );
  assert.equal(after.workers?.nonIdleMs, before.workers?.nonIdleMs, "the workers' CPU is the hashers' alone");
  assert.deepEqual(
    after.lines.filter((l) => l.thread === 'worker'),
    before.lines.filter((l) => l.thread === 'worker'),
  );
  assert.deepEqual(after.workers?.hints, before.workers?.hints);
  assert.ok(!after.notes.some((n) => /worker 9/.test(n)), after.notes.join('\n'));

  // The terminal says it of the thread, and of no other.
  const text = renderReport(after, { cwd: run.report.app.cwd, color: false });
  assert.match(text, /^ {2}\[worker 2\] hasher-2 .*\(worker-2\.cpuprofile; started at the app's boot\)$/m);
  assert.match(text, /^ {2}\[worker 1\] hasher-1 .*\(worker-1\.cpuprofile\)$/m);
  assert.doesNotMatch(text, /worker 9|started in the window/);
});

test('workers with no line of your code: no "Hot lines in worker threads" heading', () => {
  const run = recordedRun();
  const report = analyzeExtras(run.dir, run.report.app.cwd, run.record, run.report, new Map());
  const withLines = renderReport(report, { cwd: run.report.app.cwd, color: false });
  assert.match(withLines, /^Hot lines in worker threads .*\n {2}.*hash-worker\.js:\d+/m);
  // As under tsx: the only worker is a dependency's (esbuild's service thread), busy in its own code.
  // The thread given no name (as esbuild names none) is told by its script.
  const threads = report.threads?.map((t) => (t.id === 2 ? { ...t, title: '[worker 2]', startedAtBoot: true } : t));
  const none = renderReport(
    { ...report, threads, lines: report.lines.filter((l) => l.thread !== 'worker') },
    { cwd: run.report.app.cwd, color: false },
  );
  assert.match(none, /^Worker threads \(2;/m);
  assert.match(none, /^ {2}\[worker 2\] hash-worker\.js {2}\d+ ms busy .*; started at the app's boot\)$/m);
  const esbuild = '/app/node_modules/tsx/node_modules/esbuild/lib/main.js';
  const dependency = renderReport(
    { ...report, threads: threads?.map((t) => (t.id === 2 ? { ...t, script: esbuild } : t)) },
    { cwd: run.report.app.cwd, color: false },
  );
  assert.match(dependency, /^ {2}\[worker 2\] esbuild\/lib\/main\.js {2}\d+ ms busy/m);
  assert.doesNotMatch(none, /Hot lines in worker threads/);
});
