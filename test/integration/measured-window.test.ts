// The measured sub-windows run the app with its inspector closed (capture/closed-inspector.ts):
// a constructed app counts the requests it serves with its inspector open and closed. The
// measured window's requests must all have been served closed, the profiled window's open (its
// profile and stack captures come through the reopened sessions); an app that handles SIGUSR1
// keeps it open, with a note; so does an explicit keepInspectorOpen.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { profileUnderLoad } from '../../src/core/index.ts';
import { REPO_ROOT, RUN_TEST_TIMEOUT, leakCheckedRuns, tempDir } from '../helpers/integration.ts';

const APP = path.join(REPO_ROOT, 'test', 'apps', 'inspector-state');
const runs = leakCheckedRuns();

/** What the app counted per request (test/apps/inspector-state/server.js). */
interface Counts {
  open: number;
  closed: number;
  swappedOpen: number;
  swappedClosed: number;
  ownWarnTaken: number;
}

async function run(o: { env?: Record<string, string>; keepInspectorOpen?: boolean } = {}) {
  const dir = tempDir('hotline-inspector-state-');
  const countsFile = path.join(dir, 'counts.json');
  runs.watch(APP);
  const result = await profileUnderLoad({
    target: { cwd: APP, entry: 'server.js', env: { COUNTS_FILE: countsFile, ...o.env } },
    url: '/',
    warmupS: 1,
    durationS: 4,
    connections: 4,
    subWindows: 2,
    runsDir: path.join(dir, 'runs'),
    ...(o.keepInspectorOpen ? { keepInspectorOpen: true } : {}),
  });
  runs.appStarted(result.report.app.pid);
  // The app's own counts, or (CLUSTER=1) those its cluster worker kept writing.
  const files = fs.existsSync(countsFile)
    ? [countsFile]
    : fs
        .readdirSync(dir)
        .filter((f) => f.startsWith('counts.json.'))
        .map((f) => path.join(dir, f));
  assert.ok(files.length > 0, 'the app wrote its counts');
  const counts = files
    .map((f) => JSON.parse(fs.readFileSync(f, 'utf8')) as Counts)
    .reduce((a, b) => {
      const sum = { ...a };
      for (const k of Object.keys(sum) as Array<keyof Counts>) sum[k] += b[k];
      return sum;
    });
  const load = result.report.load!;
  const measured = load.subWindows!.measured.reduce((t, w) => t + w.requests, 0);
  const profiled = load.subWindows!.profiled.reduce((t, w) => t + w.requests, 0);
  return { ...result, counts, measured, profiled };
}

test(
  'the measured sub-windows run with the inspector closed; the profiled ones reopen it',
  RUN_TEST_TIMEOUT,
  async () => {
    const r = await run();
    assert.ok(r.measured > 50 && r.profiled > 50, `requests: measured ${r.measured}, profiled ${r.profiled}`);
    // A response in flight at a sub-window's edge may be counted on the other side of it.
    assert.ok(r.counts.closed >= r.measured - 8, `served closed ${r.counts.closed}, measured ${r.measured}`);
    assert.ok(r.counts.open >= r.profiled - 8, `served open ${r.counts.open}, profiled ${r.profiled}`);
    // Both profiled sub-windows were profiled through their own session, captures included.
    // The request handler (its total holds crunch, which is its own row when V8 inlined it).
    const [handler] = r.report.functions
      .filter((f) => f.category === 'user' && f.file.endsWith('server.js'))
      .sort((a, b) => b.totalPct - a.totalPct);
    assert.ok(handler && handler.totalPct > 50, JSON.stringify(r.report.functions.slice(0, 3)));
    const stacks = JSON.parse(fs.readFileSync(path.join(r.runDir, 'stacks.json'), 'utf8')) as { ticks: unknown[] };
    assert.ok(stacks.ticks.length > 100, `stack ticks: ${stacks.ticks.length}`);
    // The console's methods are the inspector's blind copies in the profiled sub-windows only,
    // never an app's own replacement, and the lines still reach the app's output.
    assert.ok(r.counts.swappedOpen >= r.profiled - 8, `swapped ${r.counts.swappedOpen}, profiled ${r.profiled}`);
    assert.equal(r.counts.swappedClosed, 0);
    assert.equal(r.counts.ownWarnTaken, 0);
    // Node's notices of the reopened inspector stay out of the app's log.
    const log = fs.readFileSync(path.join(r.runDir, 'app.log'), 'utf8');
    const logged = (log.match(/^GET \//gm) ?? []).length;
    assert.ok(logged >= r.measured + r.profiled, `${logged} request lines logged, ${r.measured + r.profiled} measured`);
    assert.equal((log.match(/Debugger listening/g) ?? []).length, 1, 'one "Debugger listening" line: the first');
    // (Other notes may come on a busy machine, such as a limited load generator.)
    const notes = r.report.notes ?? [];
    assert.ok(!notes.some((n) => /inspector|SIGUSR1/i.test(n)), JSON.stringify(notes));
  },
);

test(
  'a worker thread started with the app is watched again after each reopen: its profile has its function',
  RUN_TEST_TIMEOUT,
  async () => {
    const r = await run({ env: { WORKER: '1' } });
    assert.ok(r.counts.closed >= r.measured - 8, `served closed ${r.counts.closed}, measured ${r.measured}`);
    const worker = r.report.threads?.find((t) => t.id !== 0);
    assert.ok(worker, `threads: ${JSON.stringify(r.report.threads)}`);
    // Its JavaScript is there (crunch, or the message handler V8 inlined it into), not "(program)" only.
    const own = r.report.functions.filter((f) => f.thread === 'worker' && f.category === 'user' && f.selfMs > 0);
    assert.ok(
      own.some((f) => f.file.endsWith('server.js')),
      JSON.stringify(r.report.functions.filter((f) => f.thread === 'worker').slice(0, 3)),
    );
  },
);

test(
  'a node:cluster worker runs the measured sub-windows with its inspector closed too',
  RUN_TEST_TIMEOUT,
  async () => {
    const r = await run({ env: { CLUSTER: '1' } });
    assert.ok(r.measured > 50 && r.profiled > 50, `requests: measured ${r.measured}, profiled ${r.profiled}`);
    // Its last counts were written up to 100 ms before it was stopped.
    assert.ok(r.counts.closed >= r.measured - 8, `served closed ${r.counts.closed}, measured ${r.measured}`);
    assert.ok(r.counts.open >= r.profiled * 0.8, `served open ${r.counts.open}, profiled ${r.profiled}`);
    // Its console is swapped in the profiled sub-windows too (its originals noted by the preload).
    assert.ok(r.counts.swappedOpen >= r.profiled * 0.8, JSON.stringify(r.counts));
    assert.equal(r.counts.swappedClosed, 0);
    assert.equal(r.counts.ownWarnTaken, 0);
    // Its profile spans both profiled sub-windows, each through its own session.
    const child = r.report.processes?.find((p) => p.role === 'worker');
    assert.ok(child && child.samples > 0, JSON.stringify(r.report.processes));
    assert.ok(!child.exitedEarly);
  },
);

test('an app that handles SIGUSR1 keeps its inspector open, and the report says so', RUN_TEST_TIMEOUT, async () => {
  const r = await run({ env: { HANDLE_SIGUSR1: '1' } });
  assert.equal(r.counts.closed, 0);
  assert.ok(
    (r.report.notes ?? []).some((n) => /handles SIGUSR1/.test(n)),
    JSON.stringify(r.report.notes),
  );
});

test('keepInspectorOpen keeps it open', RUN_TEST_TIMEOUT, async () => {
  const r = await run({ keepInspectorOpen: true });
  assert.equal(r.counts.closed, 0);
  assert.ok(r.counts.open > r.measured);
  // The console is swapped in the profiled sub-windows only: the measured ones, open here, see Node's.
  assert.ok(
    r.counts.swappedOpen >= r.profiled - 8 && r.counts.swappedOpen <= r.counts.open - r.measured + 8,
    JSON.stringify(r.counts),
  );
});
