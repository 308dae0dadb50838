// The language server's analysis of an opened .cpuprofile (server/runs.ts analyzeProfile): the
// profile's copy is made on another thread while the analysis runs, under a name of its own until
// the analysis is done. What is left in the folder: the new run whole, or after a failed analysis
// the earlier run as it was; never a partial copy, also with two analyses into one folder at once.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { PROFILE_FILE, REPORT_FILE } from '../../../src/core/index.ts';
import { analyzeProfile, RunLoadError } from '../../../src/server/runs.ts';
import { FIXTURES_DIR } from '../../helpers/fixtures.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-profile-copy-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const fixture = path.join(FIXTURES_DIR, 'login-api', 'profile.cpuprofile');
const otherFixture = path.join(FIXTURES_DIR, 'ts-app-work', 'profile.cpuprofile');
const outDir = path.join(dir, 'out');
const partials = (): string[] => fs.readdirSync(outDir).filter((f) => f.includes('.partial'));

test('the copy is the profile, whole, beside its report; no partial file is left', async () => {
  const run = await analyzeProfile(fixture, dir, outDir);
  assert.equal(run.reportFile, path.join(outDir, REPORT_FILE));
  assert.ok(fs.readFileSync(path.join(outDir, PROFILE_FILE)).equals(fs.readFileSync(fixture)));
  assert.deepEqual(partials(), []);
});

test('a failed analysis leaves the earlier run in the folder as it was', async () => {
  const report = fs.readFileSync(path.join(outDir, REPORT_FILE));
  const broken = path.join(dir, 'broken.cpuprofile');
  fs.writeFileSync(broken, '{"nodes": [');
  await assert.rejects(
    analyzeProfile(broken, dir, outDir),
    (e: Error) => e instanceof RunLoadError && /Could not analyze/.test(e.message),
  );
  assert.ok(fs.readFileSync(path.join(outDir, PROFILE_FILE)).equals(fs.readFileSync(fixture)));
  assert.ok(fs.readFileSync(path.join(outDir, REPORT_FILE)).equals(report));
  assert.deepEqual(partials(), []);
});

test('two analyses into one folder at once: each finishes, the copy is whole', async () => {
  const runs = await Promise.all([analyzeProfile(otherFixture, dir, outDir), analyzeProfile(fixture, dir, outDir)]);
  assert.equal(runs.length, 2);
  const copy = fs.readFileSync(path.join(outDir, PROFILE_FILE));
  assert.ok(copy.equals(fs.readFileSync(fixture)) || copy.equals(fs.readFileSync(otherFixture)));
  assert.deepEqual(partials(), []);
});
