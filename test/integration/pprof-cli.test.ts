// pprof through the built CLI, as a user runs it: a real run of the login API under load written as
// pprof (`profile --pprof`) and analyzed back (the same hot line, its share within a point); the
// @datadog/pprof fixtures (test/fixtures/pprof-app) analyzed with their fleet paths mapped; bad
// pprof input as one line and exit 1.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { ReportV1 } from '../../src/core/report/schema.ts';
import {
  LOGIN_API,
  LOGIN_PROFILE_ARGS,
  LeakGuard,
  RUN_TEST_TIMEOUT,
  assertBuilt,
  ensureLoginApiDeps,
  lines,
  removeTempDirs,
  runCli,
  tempDir,
  type CliResult,
} from '../helpers/integration.ts';

const APP = path.resolve(__dirname, '../fixtures/pprof-app');
const FLEET = `/tmp/fleet/app/=${APP}`;
const show = (r: CliResult): string =>
  `exit ${r.code}\n--- stdout ---\n${r.stdout.slice(-3000)}\n--- stderr ---\n${r.stderr.slice(-3000)}`;
interface Analysis {
  lines: Array<{ file: string; line: number; ownPct: number }>;
  functions: Array<{ name: string; file: string; selfBytes?: number }>;
}

before(() => {
  assertBuilt();
  ensureLoginApiDeps();
});
after(removeTempDirs);

test(
  'profile --pprof, then analyze the pprof: the same hot line, its share within a point',
  RUN_TEST_TIMEOUT,
  async () => {
    const guard = new LeakGuard(LOGIN_API);
    const out = tempDir();
    const pprof = path.join(out, 'run.pb.gz');
    const r = await runCli([
      ...LOGIN_PROFILE_ARGS,
      '--connections',
      '10',
      '--duration',
      '2',
      '--warmup',
      '1',
      '--out',
      out,
      '--json',
      '--pprof',
      pprof,
    ]);
    assert.equal(r.code, 0, show(r));
    guard.assertClean();
    const report = JSON.parse(r.stdout) as ReportV1;
    assert.ok(fs.existsSync(pprof), show(r));
    assert.match(r.stderr, /wrote .*run\.pb\.gz \(pprof\)/);

    const a = await runCli(['analyze', pprof, '--root', LOGIN_API, '--json']);
    assert.equal(a.code, 0, show(a));
    const analysis = JSON.parse(a.stdout) as Analysis;
    const [hot] = report.lines;
    assert.equal(`${analysis.lines[0].file}:${analysis.lines[0].line}`, `${hot.file}:${hot.line}`);
    assert.equal(hot.line, 35, 'the pbkdf2Sync line');
    assert.ok(
      Math.abs(analysis.lines[0].ownPct - hot.ownPct) <= 1,
      `${hot.ownPct}% in the run, ${analysis.lines[0].ownPct}% from its pprof`,
    );

    // export of the same run by its folder gives the same file.
    const again = path.join(out, 'again.pb.gz');
    const e = await runCli(['export', path.join(out, report.id), '--pprof', again]);
    assert.equal(e.code, 0, show(e));
    assert.deepEqual(fs.readFileSync(again), fs.readFileSync(pprof));
  },
);

test('analyze a @datadog/pprof wall profile with --map-path: the 2:1 loops are the hot lines', async () => {
  const r = await runCli(['analyze', path.join(APP, 'wall.pb.gz'), '--root', APP, '--map-path', FLEET]);
  assert.equal(r.code, 0, show(r));
  const hot = lines(r.stdout).filter((l) => /server\.js:\d+/.test(l));
  assert.match(hot[0], /heavy .*i < 2 \* N/, show(r));
  assert.match(hot[1], /light .*i < N;/, show(r));
});

test('analyze a @datadog/pprof heap profile: bytes per function, bigList first', async () => {
  const r = await runCli(['analyze', path.join(APP, 'heap.pb.gz'), '--root', APP, '--map-path', FLEET, '--json']);
  assert.equal(r.code, 0, show(r));
  const heap = JSON.parse(r.stdout) as Analysis & { kind: string };
  assert.equal(heap.kind, 'heapprofile');
  assert.equal(heap.functions[0].name, 'bigList');
});

test('bad pprof input and a bad --map-path: one line, exit 1 or 2', async () => {
  const dir = tempDir();
  const broken = path.join(dir, 'broken.pb.gz');
  fs.writeFileSync(broken, Buffer.from([0x1f, 0x8b, 1, 2, 3, 4]));
  const r = await runCli(['analyze', broken]);
  assert.equal(r.code, 1, show(r));
  assert.equal(lines(r.stderr).length, 1, show(r));
  assert.match(r.stderr, /^hotline: .*broken\.pb\.gz is not a usable pprof profile/);
  const m = await runCli(['analyze', path.join(APP, 'wall.pb.gz'), '--map-path', '/app/']);
  assert.equal(m.code, 2, show(m));
  assert.match(m.stderr, /--map-path: a path map is FROM=TO/);
  const x = await runCli(['export', path.join(dir, 'nothing'), '--pprof', path.join(dir, 'x.pb.gz')]);
  assert.equal(x.code, 1, show(x));
  assert.equal(lines(x.stderr).length, 1, show(x));
});
