// `hotline compare` on two run folders (src/cli/main.ts): runs of different requests are refused
// with exit 2 and one line naming the difference; --force compares them with every verdict
// marked; a gate the runs cannot decide exits 4.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { main } from '../../../src/cli/main.ts';
import type { ReportV1, SubWindowFigures } from '../../../src/core/report/schema.ts';
import { writeReport } from '../../../src/core/store/store.ts';
import { FIXTURES_DIR, fixtureReport } from '../../helpers/fixtures.ts';
import { makeTempDir, removeTempDirs } from '../../helpers/tempdir.ts';

after(removeTempDirs);

const recorded = JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, 'sub-windows', 'json-api.json'), 'utf8')) as {
  subWindows: { measured: SubWindowFigures[]; profiled: SubWindowFigures[] };
};

function runFolder(dir: string, name: string, edit: (r: ReportV1) => void = () => undefined): string {
  const r = structuredClone(fixtureReport('login-api', name));
  r.load!.subWindows = structuredClone(recorded.subWindows);
  edit(r);
  fs.mkdirSync(path.join(dir, name));
  writeReport(path.join(dir, name), r);
  return path.join(dir, name);
}

/** main() with its stdout and stderr caught. */
async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const write = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
  process.stdout.write = ((s: string) => out.push(String(s)) > 0) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => err.push(String(s)) > 0) as typeof process.stderr.write;
  try {
    const code = await main(argv);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    process.stdout.write = write.out;
    process.stderr.write = write.err;
  }
}

test('another URL: exit 2, one line naming it; --force compares with every verdict marked', async () => {
  const dir = makeTempDir();
  const a = runFolder(dir, 'a');
  const b = runFolder(dir, 'b', (r) => (r.settings.url = '/login?_page=2'));
  const refused = await cli(['compare', a, b]);
  assert.equal(refused.code, 2);
  assert.equal(refused.stdout, '');
  assert.deepEqual(refused.stderr.trimEnd().split('\n'), [
    'hotline: the runs are not comparable: URL /login vs /login?_page=2 (--force compares them anyway)',
  ]);
  const forced = await cli(['compare', a, b, '--force']);
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(forced.stdout, /FORCED: the runs are not comparable/);
  assert.match(forced.stdout, /req\/s .*within noise .*\(forced\)/);
});

test('--fail-if-slower the runs cannot decide: inconclusive, exit 4', async () => {
  const dir = makeTempDir();
  const a = runFolder(dir, 'a');
  // CPU per request 6% up, the sub-windows as noisy as recorded: neither ok nor regressed at 5%.
  const b = runFolder(dir, 'b', (r) => {
    for (const w of r.load!.subWindows!.measured) w.cpuMsPerRequest = w.cpuMsPerRequest! * 1.06;
  });
  const r = await cli(['compare', a, b, '--fail-if-slower', '5%']);
  assert.equal(r.code, 4, r.stderr);
  assert.match(r.stderr, /gate: INCONCLUSIVE — .*could be up to \+[\d.]+% slower/);
  // The percentage beside the two values printed is theirs; the test's estimate is named apart.
  const m = /gate: cpu\/request +([\d.]+) → ([\d.]+) \(([+−]?[\d.]+)%/.exec(r.stderr);
  assert.ok(m, r.stderr);
  const [was, now, pct] = [m[1], m[2], m[3].replace('−', '-')].map(Number);
  assert.equal(pct, Math.round(((now - was) / was) * 1000) / 10);
});
