// Exact attribution on apps whose right answer follows from their construction (test/apps/truth,
// markers on the lines): each marked line's share within ±3 points (in one run, or as the mean of
// two when the first is 3–6 points off: measureShares), the dominant line first, and
// lines that never run with nothing at all. Real apps, real load, the real inspector.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { before, test } from 'node:test';
import { profileUnderLoad } from '../../src/core/index.ts';
import { analyzeFile } from '../../src/core/analyze-run/analyze-run.ts';
import { REPO_ROOT, assertBuilt, leakCheckedRuns } from '../helpers/integration.ts';
import {
  allowedIntervalMisses,
  compareWithPc,
  compareWithTruth,
  intervalCovers,
  measureShares,
  truthLines,
  type TruthCheck,
} from '../helpers/truth.ts';
import type { ReportV1 } from '../../src/core/report/schema.ts';

const TRUTH_APPS = path.join(REPO_ROOT, 'test', 'apps', 'truth');
/** Points a share may be off its constructed value. */
const TOLERANCE = 3;
/**
 * 10 s windows: ~8000 profiler ticks on the marked lines, a PC-decided share's standard error well
 * under a point. Calling lines in another function are decided by stack captures (400 a second,
 * the default): ~4000 of them, a spread of ~0.75 point (docs/attribution.md, "Precision").
 */
// One measured and one profiled window, the inspector kept open: the truth is in the profiled
// window alone, so the measured one is short, and each alternation costs about a second of CI
// time (the alternation and the closed inspector have their own tests: measured-window.test.ts,
// processes.test.ts).
const LOAD = {
  url: '/',
  warmupS: 2,
  durationS: 10,
  measuredS: 1,
  connections: 4,
  subWindows: 1,
  keepInspectorOpen: true,
} as const;

const runs = leakCheckedRuns();

const apps = fs
  .readdirSync(TRUTH_APPS, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

before(() => {
  assertBuilt();
  for (const app of apps) {
    const build = path.join(TRUTH_APPS, app, 'build.mjs');
    if (fs.existsSync(build)) execFileSync(process.execPath, [build], { cwd: REPO_ROOT, stdio: 'inherit' });
  }
});

function entryOf(dir: string): string {
  const pkg = path.join(dir, 'package.json');
  if (fs.existsSync(pkg)) {
    const main = (JSON.parse(fs.readFileSync(pkg, 'utf8')) as { main?: string }).main;
    if (main) return main;
  }
  return 'server.js';
}

/**
 * The run's own profile analysed without its stack captures: V8's program-counter lines alone
 * (what `hotline analyze` of the profile.cpuprofile alone gives).
 */
function pcOnlyLines(runDir: string, cwd: string): ReturnType<typeof analyzeFile>['analysis']['lines'] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-pc-'));
  try {
    fs.copyFileSync(path.join(runDir, 'profile.cpuprofile'), path.join(dir, 'profile.cpuprofile'));
    return analyzeFile(path.join(dir, 'profile.cpuprofile'), cwd).analysis.lines;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The report's top lines and functions, as comment lines of the test's output. */
function whereTheTimeWent(report: ReportV1): string {
  const lines = report.lines
    .slice(0, 8)
    .map((l) => `#     ${path.basename(l.file)}:${l.line} own ${l.ownPct.toFixed(1)}% self ${l.selfPct.toFixed(1)}%`);
  const fns = report.functions
    .slice(0, 6)
    .map((f) => `#     ${f.name} ${path.basename(f.file)}:${f.line} self ${f.selfPct.toFixed(1)}%`);
  const ms = Object.entries(report.categories)
    .map(([k, v]) => `${k} ${Math.round(v)} ms`)
    .join(', ');
  return `#   the run's top lines\n${lines.join('\n')}\n#   its top functions\n${fns.join('\n')}\n#   categories: ${ms}`;
}

/**
 * Shapes whose attribution is known to be off, with the figures seen: run and printed, reported as
 * TODO rather than failed until fixed (docs/attribution.md, "Limits").
 */
const KNOWN_OFF: Record<string, string> = {};

/**
 * Every split the suite measured (one per app and run; its own lines), whether the report's 95%
 * intervals covered each line's constructed share: checked at the end over the suite (no run of its own).
 */
const splits: Array<{ label: string; covered: boolean; text: string }> = [];

for (const app of apps) {
  test(`truth: ${app}`, { timeout: 240_000, ...(KNOWN_OFF[app] ? { todo: KNOWN_OFF[app] } : {}) }, async (t) => {
    const cwd = path.join(TRUTH_APPS, app);
    const truth = truthLines(cwd);
    assert.ok(truth.length > 0, `${app} has no truth markers`);
    const label = (c: TruthCheck): string => `${c.kind} ${path.relative(cwd, c.file)}:${c.line}`;
    const measure = async (): Promise<{ report: ReportV1; checks: TruthCheck[] }> => {
      runs.watch(cwd);
      const { report, runDir } = await profileUnderLoad({
        target: { cwd, entry: entryOf(cwd) },
        ...LOAD,
        runsDir: path.join(cwd, '.hotline', 'runs'),
      });
      runs.appStarted(report.app.pid);
      // A run cut short (the app exited in it) has too little to split: say so rather than a share.
      assert.equal(report.partial, undefined, `${app}: ${report.partial?.reason}`);
      const { checks, deadHits, undecided } = compareWithTruth(report, truth);
      if (truth.some((l) => l.kind === 'pc')) checks.push(...compareWithPc(report, pcOnlyLines(runDir, cwd), truth));
      console.log(
        `# ${app}\n${checks.map((c) => `#   ${label(c)} expected ${c.expectedPct.toFixed(1)}% got ${c.actualPct.toFixed(1)}% (${c.ticks} ticks)`).join('\n')}`,
      );
      // A run that is off: where its time went instead, so that a CI log says what happened.
      if (checks.some((c) => !(Math.abs(c.actualPct - c.expectedPct) <= TOLERANCE)))
        console.log(whereTheTimeWent(report));
      for (const u of undecided) t.diagnostic(`${app}: ${u}`);
      const own = checks.filter((c) => c.kind === 'own' && c.pmPct !== undefined);
      if (own.length > 1)
        splits.push({
          label: app,
          covered: own.every((c) => intervalCovers(c.actualPct, c.expectedPct, c.pmPct!)),
          text: own
            .map(
              (c) =>
                `${label(c)} ${c.actualPct.toFixed(1)}% ±${c.pmPct!.toFixed(1)} (truth ${c.expectedPct.toFixed(1)})`,
            )
            .join('; '),
        });
      assert.deepEqual(deadHits, [], `${app}: lines that never ran got time`);
      return { report, checks };
    };
    const { runs: measured, failures } = await measureShares(
      measure,
      (r) => r.checks.map((c) => ({ label: label(c), expectedPct: c.expectedPct, actualPct: c.actualPct })),
      TOLERANCE,
    );
    assert.deepEqual(failures, [], app);
    // The dominant own line is the report's first line of the app's code, in every run.
    for (const { report, checks } of measured) {
      const ownChecks = checks.filter((c) => c.kind === 'own');
      if (ownChecks.length === 0) continue;
      const dominant = ownChecks.reduce((a, b) => (b.expectedPct > a.expectedPct ? b : a));
      const first = report.lines.find((l) => l.thread !== 'worker');
      assert.equal(`${first?.file}:${first?.line}`, `${dominant.file}:${dominant.line}`, `${app}: the first hot line`);
    }
  });
}

// The reported 95% intervals (report ownPctPm, docs/attribution.md "Precision") cover the constructed
// shares at their stated rate over the suite, up to the lean measured over many runs (intervalCovers):
// a miss rate not surely above 5%.
test('truth: the reported intervals cover the constructed shares, up to the measured lean', () => {
  assert.ok(splits.length >= apps.length / 2, `only ${splits.length} splits had intervals`);
  const misses = splits.filter((s) => !s.covered);
  console.log(
    `# intervals: ${splits.length - misses.length} of ${splits.length} splits covered\n${splits.map((s) => `#   ${s.covered ? 'covered' : 'MISSED '} ${s.label}: ${s.text}`).join('\n')}`,
  );
  const allowed = allowedIntervalMisses(splits.length);
  assert.ok(misses.length <= allowed, `${misses.length} of ${splits.length} splits missed (at most ${allowed})`);
});
