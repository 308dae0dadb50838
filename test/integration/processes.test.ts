// Apps of several Node processes end to end: real apps under real load through the real
// inspector. cluster-app forks 2 node:cluster workers that serve every request; fork-app hands each
// request to one of 2 child_process.fork children. In both the work is two loops of 2:1 trips
// (truth markers on the lines), so each child's lines have a known answer; the primary does none.
// cluster-calls and fork-calls are the same shapes with one callee (crypto.pbkdf2Sync) called on
// two lines with 2:1 work: only the children's own stack captures can tell those lines apart.
// Needs `npm run build` (the load runner is forked from dist/).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { profileUnderLoad, type ProfiledRun, type RunOptions } from '../../src/core/index.ts';
import { RunError } from '../../src/core/common/run-error.ts';
import { parseCpuProfileText } from '../../src/core/profile/cpuprofile.ts';
import type { ReportV1 } from '../../src/core/report/schema.ts';
import { renderReport } from '../../src/cli/render.ts';
import { accepts } from '../../src/core/app/ports.ts';
import {
  descendantsOf,
  freePort,
  leakCheckedRuns,
  REPO_ROOT,
  RUN_TEST_TIMEOUT,
  tempDir,
} from '../helpers/integration.ts';
import { measureShares, truthLines, type ShareCheck } from '../helpers/truth.ts';

const CLUSTER_APP = path.join(REPO_ROOT, 'test', 'apps', 'cluster-app');
const FORK_APP = path.join(REPO_ROOT, 'test', 'apps', 'fork-app');
const CLUSTER_CALLS = path.join(REPO_ROOT, 'test', 'apps', 'cluster-calls');
const FORK_CALLS = path.join(REPO_ROOT, 'test', 'apps', 'fork-calls');
/** Points a share may be off its constructed value (the house tolerance). */
const TOLERANCE = 3;
const LOAD = { url: '/', warmupS: 1, durationS: 6, connections: 4 } as const;

const runs = leakCheckedRuns();

/**
 * The private folder of child inspectors of the run's app (started from `cwd`), read from the
 * app's environment while it runs: other runs on the machine have folders of their own.
 */
function processDirOf(cwd: string): string | undefined {
  for (const d of descendantsOf(process.pid)) {
    if (!d.argv.includes(path.join(cwd, 'server.js'))) continue;
    try {
      const env = fs.readFileSync(`/proc/${d.pid}/environ`, 'utf8').split('\0');
      const dir = env.find((e) => e.startsWith('HOTLINE_PROCESS_DIR='))?.slice('HOTLINE_PROCESS_DIR='.length);
      if (dir) return dir;
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

async function run(cwd: string, opts: Partial<RunOptions> = {}): Promise<ProfiledRun> {
  runs.watch(cwd);
  let dir: string | undefined;
  const result = await profileUnderLoad({
    target: { cwd, entry: 'server.js' },
    ...LOAD,
    ...opts,
    runsDir: tempDir(),
    onProgress: (p) => {
      if (p.phase === 'warmup') dir ??= processDirOf(cwd);
    },
  });
  runs.appStarted(result.report.app.pid);
  assert.ok(dir?.includes('hotline-processes-'), `the app's folder of child inspectors: ${dir}`);
  assert.ok(!fs.existsSync(dir!), 'the run removed its folder of child inspectors');
  return result;
}

/** Each truth line's share of the marked lines' own time among the child processes' lines. */
function sharesOf(report: ReportV1, appDir: string): Array<{ line: number; expected: number; actual: number }> {
  const truth = truthLines(appDir).filter((t) => t.kind === 'own');
  const own = truth.map(
    (t) =>
      report.lines.find(
        (l) => l.thread === 'process' && l.file === t.file && l.line === t.line && l.oneOf === undefined,
      )?.ownMs ?? 0,
  );
  const sum = own.reduce((a, b) => a + b, 0);
  const weights = truth.reduce((a, t) => a + t.weight, 0);
  return truth.map((t, i) => ({
    line: t.line,
    expected: (t.weight / weights) * 100,
    actual: sum > 0 ? (own[i] / sum) * 100 : 0,
  }));
}

function assertProcesses(
  runDir: string,
  report: ReportV1,
  appDir: string,
  script: string,
  kind: 'cluster' | 'fork',
): void {
  const processes = report.processes ?? [];
  const context = `${JSON.stringify(processes, null, 1)}\n${report.notes.join('\n')}`;
  assert.equal(processes[0]?.role, 'primary', context);
  assert.equal(processes[0]?.pid, report.app.pid);
  const workers = processes.slice(1);
  assert.equal(workers.length, 2, `both children profiled: ${context}`);
  const truth = truthLines(appDir).filter((t) => t.kind === 'own');
  const hot = truth.reduce((a, b) => (b.weight > a.weight ? b : a));
  for (const w of workers) {
    assert.equal(w.role, 'worker');
    assert.equal(w.kind, kind, context);
    assert.equal(w.script, script);
    assert.notEqual(w.pid, report.app.pid);
    // Each child did real work in the profiled window, and its file holds its samples.
    const profile = parseCpuProfileText(fs.readFileSync(path.join(runDir, w.file), 'utf8'));
    assert.ok((profile.samples?.length ?? 0) > 100, `${w.file}: ${profile.samples?.length} samples`);
    assert.ok(w.nonIdleMs > 300, `process ${w.pid} was busy: ${w.nonIdleMs} ms`);
    assert.equal(w.topLine?.file, hot.file, context);
    assert.equal(w.topLine?.line, hot.line, `process ${w.pid}'s top line: ${context}`);
  }
  // The children do nearly all the work: the primary only forks (and, for fork-app, relays).
  const children = report.childProcesses;
  assert.ok(children, 'report.childProcesses');
  assert.equal(children.count, 2);
  assert.ok(
    children.nonIdleMs > report.nonIdleMs,
    `children ${children.nonIdleMs} ms > primary ${report.nonIdleMs} ms`,
  );
  assert.ok(Math.abs(children.allNonIdleMs - (children.nonIdleMs + report.nonIdleMs)) < 1);
  // The app's CPU in the profiled sub-windows is all its processes', not the primary's alone.
  const profiledCpuMs = (report.load?.subWindows?.profiled ?? []).reduce(
    (t, w) => t + (w.cpuMsPerRequest ?? 0) * w.requests,
    0,
  );
  assert.ok(
    profiledCpuMs > 0.5 * children.nonIdleMs,
    `CPU of the profiled sub-windows ${profiledCpuMs} ms; the children were busy ${children.nonIdleMs} ms`,
  );
  const shareSum = processes.reduce((t, p) => t + p.sharePct, 0);
  assert.ok(Math.abs(shareSum - 100) < 0.5, `process shares add up to 100%: ${shareSum}`);

  // The hot line is in report.lines, tagged, with its split by process, and the 2:1 shares hold.
  const line = report.lines.find((l) => l.thread === 'process' && l.file === hot.file && l.line === hot.line);
  assert.ok(line, `no process line ${hot.line}: ${JSON.stringify(report.lines.slice(0, 6))}`);
  assert.equal(line.function, 'work');
  assert.deepEqual(
    (line.processes ?? []).map((p) => p.pid).sort(),
    workers.map((w) => w.pid).sort(),
    'both processes ran the hot line',
  );
  const split = (line.processes ?? []).reduce((t, p) => t + p.ownMs, 0);
  assert.ok(Math.abs(split - line.ownMs) <= Math.max(2, line.ownMs * 0.01), `split ${split} of ${line.ownMs} ms`);
  for (const s of sharesOf(report, appDir))
    assert.ok(
      Math.abs(s.actual - s.expected) <= TOLERANCE,
      `line ${s.line}: ${s.actual.toFixed(1)}% of the marked lines, constructed ${s.expected.toFixed(1)}%`,
    );
  // Nothing of the children's work is charged to the primary's lines.
  assert.ok(!report.lines.some((l) => l.thread === undefined && l.file === hot.file && l.line === hot.line));
  assert.ok(report.functions.some((f) => f.thread === 'process' && f.name === 'work' && f.file === hot.file));
}

test(
  'node:cluster with 2 workers: both workers are profiled in the same windows, the 2:1 lines are found',
  { timeout: 120_000 },
  async () => {
    const { runDir, report } = await run(CLUSTER_APP);
    const script = path.join(CLUSTER_APP, 'server.js');
    assertProcesses(runDir, report, CLUSTER_APP, script, 'cluster');
    // The terminal report lists every process and the children's hot lines with their split.
    const text = renderReport(report, { cwd: CLUSTER_APP, color: false });
    const section = text.slice(text.indexOf('Processes ('));
    for (const p of report.processes!) assert.match(section, new RegExp(`^\\s+${p.pid} `, 'm'), section);
    const hot = truthLines(CLUSTER_APP).find((t) => t.kind === 'own' && t.weight === 2)!;
    assert.match(section, new RegExp(`Hot lines in child processes[^]*server\\.js:${hot.line} `), section);
  },
);

test(
  'child_process.fork with 2 children: both are profiled, the 2:1 lines are found',
  { timeout: 120_000 },
  async () => {
    const { runDir, report } = await run(FORK_APP);
    assertProcesses(runDir, report, FORK_APP, path.join(FORK_APP, 'work.js'), 'fork');
  },
);

/** Long enough for ~2000 stack captures per child at the default rate: a share's error is then about a point. */
const CALLS_LOAD = { durationS: 10 } as const;
/** Points a child's own split may be off: it rests on half the captures of the children's total. */
const CHILD_TOLERANCE = 5;

/** The children's records in run.json (what the capture saved for each). */
function childRecords(runDir: string): Array<{ pid: number; file: string; stacks?: string }> {
  const record = JSON.parse(fs.readFileSync(path.join(runDir, 'run.json'), 'utf8')) as {
    extras?: { processes?: Array<{ pid: number; file: string; stacks?: string }> };
  };
  return record.extras?.processes ?? [];
}

for (const [shape, appDir] of [
  ['node:cluster', CLUSTER_CALLS],
  ['child_process.fork', FORK_CALLS],
] as const) {
  test(
    `${shape} with 2 children: pbkdf2Sync called on two lines with 2:1 work is split 2:1 by each child's stack captures`,
    { timeout: 240_000 },
    async () => {
      const truth = truthLines(appDir).filter((t) => t.kind === 'own');
      const hot = truth.reduce((a, b) => (b.weight > a.weight ? b : a));
      const weights = truth.reduce((a, t) => a + t.weight, 0);
      const measure = async (): Promise<{ report: ReportV1; context: string }> => {
        const { runDir, report } = await run(appDir, CALLS_LOAD);
        const context = `${JSON.stringify(report.processes, null, 1)}\n${report.notes.join('\n')}`;
        const workers = (report.processes ?? []).filter((p) => p.role === 'worker');
        assert.equal(workers.length, 2, `both children profiled: ${context}`);
        // The lenses' figures: the children's lines (thread 'process'), each call line its own
        // share; no "one of" record left holding the time.
        const file = truth[0].file;
        const undecidedMs = report.lines
          .filter((l) => l.thread === 'process' && l.file === file && l.oneOf)
          .reduce((t, l) => t + l.ownMs, 0);
        const placedMs = truth.reduce(
          (t, m) =>
            t +
            (report.lines.find(
              (l) => l.thread === 'process' && l.file === m.file && l.line === m.line && l.oneOf === undefined,
            )?.ownMs ?? 0),
          0,
        );
        console.log(
          `# ${path.basename(appDir)}: ${sharesOf(report, appDir)
            .map((s) => `line ${s.line} ${s.actual.toFixed(1)}% (constructed ${s.expected.toFixed(1)}%)`)
            .join(', ')}; placed ${placedMs.toFixed(0)} ms, "one of" ${undecidedMs.toFixed(0)} ms`,
        );
        // Each child's captures are saved beside its profile and named in its record.
        const records = childRecords(runDir);
        assert.equal(records.length, 2, context);
        for (const r of records) {
          assert.equal(r.stacks, `process-${r.pid}.stacks.json`, JSON.stringify(r));
          const stacks = JSON.parse(fs.readFileSync(path.join(runDir, r.stacks), 'utf8')) as {
            ticks: unknown[];
            sampleCount: number;
          };
          const profile = parseCpuProfileText(fs.readFileSync(path.join(runDir, r.file), 'utf8'));
          assert.equal(stacks.sampleCount, profile.samples?.length, `${r.stacks} points into ${r.file}`);
          assert.ok(stacks.ticks.length > 300, `${r.stacks}: ${stacks.ticks.length} ticks`);
        }
        assert.ok(undecidedMs < 0.05 * placedMs, `"one of" time ${undecidedMs} ms of ${placedMs} ms`);
        // Each child's hottest line is the heavier call.
        for (const w of workers) assert.equal(w.topLine?.line, hot.line, `process ${w.pid}'s top line: ${context}`);
        return { report, context };
      };
      // The 2:1 of the children together (the house tolerance), and of each child on its own (its
      // own captures over its own profile: half of them, so a wider tolerance).
      const sharesOfRun = ({ report }: { report: ReportV1 }): ShareCheck[] => {
        const together = sharesOf(report, appDir).map((s) => ({
          label: `line ${s.line}`,
          expectedPct: s.expected,
          actualPct: s.actual,
        }));
        const each = (report.processes ?? [])
          .filter((p) => p.role === 'worker')
          .flatMap((w, i) => {
            const own = truth.map(
              (t) =>
                report.lines
                  .find((l) => l.thread === 'process' && l.file === t.file && l.line === t.line && !l.oneOf)
                  ?.processes?.find((p) => p.pid === w.pid)?.ownMs ?? 0,
            );
            const sum = own.reduce((a, b) => a + b, 0);
            return truth.map((t, j) => ({
              label: `child ${i + 1} line ${t.line}`,
              expectedPct: (t.weight / weights) * 100,
              actualPct: sum > 0 ? (own[j] / sum) * 100 : 0,
              tolerance: CHILD_TOLERANCE,
            }));
          });
        return [...together, ...each];
      };
      const { runs: measured, failures } = await measureShares(measure, sharesOfRun, TOLERANCE);
      assert.deepEqual(failures, [], measured.map((m) => m.context).join('\n'));
    },
  );
}

test('--stack-rate 0: no stack captures in the child processes either', { timeout: 120_000 }, async () => {
  const { runDir, report } = await run(CLUSTER_CALLS, { durationS: 2, stackRateHz: 0 });
  const files = fs.readdirSync(runDir);
  assert.deepEqual(
    files.filter((f) => f.endsWith('stacks.json')),
    [],
    `no stacks file: ${files.join(', ')}`,
  );
  const records = childRecords(runDir);
  assert.equal(records.length, 2);
  for (const r of records) assert.equal(r.stacks, undefined);
  // Without captures the two calls of one callee cannot be told apart: "one of" the two lines.
  const truth = truthLines(CLUSTER_CALLS).filter((t) => t.kind === 'own');
  const undecided = report.lines.find((l) => l.thread === 'process' && l.oneOf);
  assert.deepEqual(
    undecided?.oneOf,
    truth.map((t) => t.line),
    JSON.stringify(report.lines.filter((l) => l.thread === 'process')),
  );
});

test(
  'a cluster worker that exits in the profiled window keeps its profile up to its exit; the run goes on',
  { timeout: 120_000 },
  async () => {
    runs.watch(CLUSTER_APP);
    let told: number | undefined;
    const { runDir, report } = await profileUnderLoad({
      target: { cwd: CLUSTER_APP, entry: 'server.js' },
      ...LOAD,
      runsDir: tempDir(),
      // Halfway through the profiled time (earlier profiled sub-windows already kept), one worker exits.
      onProgress: (p) => {
        if (told !== undefined || p.phase !== 'profiling' || (p.second ?? 0) < LOAD.durationS / 2) return;
        const primary = descendantsOf(process.pid).find(
          (d) => d.argv.includes(path.join(CLUSTER_APP, 'server.js')) && d.ppid === process.pid,
        );
        const worker = primary && descendantsOf(primary.pid)[0];
        if (!worker) return;
        told = worker.pid;
        process.kill(worker.pid, 'SIGUSR2');
      },
    });
    runs.appStarted(report.app.pid);
    assert.ok(told, 'a worker was told to exit');
    const gone = report.processes?.find((p) => p.pid === told);
    const context = `${JSON.stringify(report.processes, null, 1)}\n${report.notes.join('\n')}`;
    assert.ok(gone, `the exited worker is listed: ${context}`);
    assert.equal(gone.exitedEarly, true, context);
    const other = report.processes!.find((p) => p.role === 'worker' && p.pid !== told);
    assert.ok(other && !other.exitedEarly, context);
    assert.ok(
      gone.durationMs < other.durationMs,
      `its profile ends with it: ${gone.durationMs} < ${other.durationMs} ms`,
    );
    assert.ok(gone.nonIdleMs > 0 && fs.existsSync(path.join(runDir, gone.file)));
    assert.ok(
      report.notes.some((n) => n.includes(`${told}`) && /exited during the profiled window/.test(n)),
      context,
    );
  },
);

test('a cluster run cancelled while profiling leaves no process behind', RUN_TEST_TIMEOUT, async () => {
  runs.watch(CLUSTER_APP);
  const controller = new AbortController();
  let children: number[] = [];
  let dir: string | undefined;
  const err = await profileUnderLoad({
    target: { cwd: CLUSTER_APP, entry: 'server.js' },
    ...LOAD,
    runsDir: tempDir(),
    onProgress: (p) => {
      if (p.phase !== 'profiling' || controller.signal.aborted) return;
      // The app's processes as they are now (the run's own process tree: the app and its 2 workers).
      dir = processDirOf(CLUSTER_APP);
      children = descendantsOf(process.pid)
        .filter((d) => d.argv.includes(path.join(CLUSTER_APP, 'server.js')))
        .map((d) => d.pid);
      controller.abort();
    },
    signal: controller.signal,
  }).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof RunError && err.kind === 'cancelled', String(err));
  assert.equal(children.length, 3, `the primary and 2 workers were running when cancelled: ${children.join(', ')}`);
  for (const pid of children) assert.ok(!fs.existsSync(`/proc/${pid}`) || isZombie(pid), `process ${pid} is gone`);
  assert.ok(dir?.includes('hotline-processes-'), `the app's folder of child inspectors: ${dir}`);
  assert.ok(!fs.existsSync(dir!), 'the folder of child inspectors is removed');
  // leakCheckedRuns checks after this test that no process of the app folder runs.
});

function isZombie(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return /^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]);
  } catch {
    return true;
  }
}

test(
  'attached to a running cluster primary: only it is profiled, and the report says its 2 workers were not',
  { timeout: 120_000 },
  async () => {
    const port = await freePort();
    // Started as a user would, with an inspector of its own (cluster gives each worker the next port).
    const app = spawn(process.execPath, ['--inspect=127.0.0.1:0', path.join(CLUSTER_APP, 'server.js')], {
      cwd: CLUSTER_APP,
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    try {
      let stderr = '';
      app.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
      const deadline = Date.now() + 20_000;
      let url: string | undefined;
      while (Date.now() < deadline && !(url && (await accepts(port)))) {
        url = /Debugger listening on (ws:\/\/\S+)/.exec(stderr)?.[1];
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(url && (await accepts(port)), `the app is up: ${stderr}`);
      const { report } = await profileUnderLoad({
        target: { cwd: CLUSTER_APP, entry: 'server.js' },
        attach: { target: url },
        ...LOAD,
        durationS: 2,
        runsDir: tempDir(),
      });
      assert.equal(report.processes, undefined);
      const workers = descendantsOf(app.pid!).map((d) => d.pid);
      assert.equal(workers.length, 2, 'the workers still run');
      const note = report.notes.find((n) => /not profiled/.test(n));
      assert.ok(note, report.notes.join('\n'));
      assert.match(note, /2 Node child processes/);
      for (const pid of workers) assert.ok(note.includes(String(pid)), note);
    } finally {
      try {
        process.kill(-app.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  },
);
