// Run folders as `hotline profile` leaves them, from the captured login fixtures (test/fixtures/
// login-api and login-api-async: one server.js, run with the hash sync, then async): the
// capture's profile moved to a copy of the app, its run.json with the captured load figures
// (load.json), then the real analysis (analyzeRunDir writes report.json and sources.json). A run
// is built beside the runs folder and renamed into it, as complete as a finished run.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeRunDir, PROFILE_FILE, REPORT_FILE, runsDirOf } from '../../src/core/index.ts';
import { writeRunRecord, type RunRecord } from '../../src/core/store/run-record.ts';
import { FIXTURE_SETTINGS, FIXTURES_DIR, relocateUrl, type FixtureMeta } from './fixtures.ts';

export type LoginFixture = 'login-api' | 'login-api-async';

/** A copy of the login app (server.js) in `dir`; returns the app folder. */
export function stageLoginApp(dir: string): string {
  const appDir = path.join(dir, 'login-api');
  fs.mkdirSync(appDir, { recursive: true });
  fs.copyFileSync(path.join(FIXTURES_DIR, 'login-api', 'server.js'), path.join(appDir, 'server.js'));
  return appDir;
}

/**
 * Builds the fixture's run of the app in `appDir` and lands it in its runs folder; returns its
 * report.json. `reportLater`: the folder lands without report.json (a run in progress), which is
 * kept beside it until `finish()` renames it in.
 */
export function landRun(appDir: string, fixture: LoginFixture, id: string): string;
export function landRun(
  appDir: string,
  fixture: LoginFixture,
  id: string,
  reportLater: true,
): { reportFile: string; finish(): void };
export function landRun(
  appDir: string,
  fixture: LoginFixture,
  id: string,
  reportLater = false,
): string | { reportFile: string; finish(): void } {
  const staging = path.join(path.dirname(appDir), `.staging-${id}`);
  fs.mkdirSync(staging, { recursive: true });
  const own = path.join(FIXTURES_DIR, fixture);
  const meta = JSON.parse(fs.readFileSync(path.join(own, 'meta.json'), 'utf8')) as FixtureMeta;
  const profile = JSON.parse(fs.readFileSync(path.join(own, 'profile.cpuprofile'), 'utf8')) as {
    nodes: Array<{ callFrame: { url: string } }>;
  };
  for (const node of profile.nodes) node.callFrame.url = relocateUrl(node.callFrame.url, meta.root, appDir);
  fs.writeFileSync(path.join(staging, PROFILE_FILE), JSON.stringify(profile));
  const { load, eventLoop } = JSON.parse(fs.readFileSync(path.join(own, 'load.json'), 'utf8')) as Pick<
    RunRecord,
    'load' | 'eventLoop'
  >;
  const record: RunRecord = {
    version: 1,
    id,
    startedAt: new Date().toISOString(),
    app: { command: ['node', 'server.js'], cwd: appDir, pid: 1, url: 'http://127.0.0.1:3000/login' },
    settings: FIXTURE_SETTINGS,
    load,
    eventLoop,
  };
  writeRunRecord(staging, record);
  analyzeRunDir(staging, appDir);
  const runsDir = runsDirOf(appDir);
  fs.mkdirSync(runsDir, { recursive: true });
  const runDir = path.join(runsDir, id);
  const reportFile = path.join(runDir, REPORT_FILE);
  if (!reportLater) {
    fs.renameSync(staging, runDir);
    return reportFile;
  }
  const held = `${staging}-${REPORT_FILE}`;
  fs.renameSync(path.join(staging, REPORT_FILE), held);
  fs.renameSync(staging, runDir);
  return { reportFile, finish: () => fs.renameSync(held, reportFile) };
}
