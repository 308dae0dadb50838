// store.ts: runs on disk. readRun turns every way a run folder can be wrong into a StoreError a
// person can act on; listRuns never fails on one bad folder, it reports it in `skipped`.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import type { Analysis } from '../../../src/core/analysis/model.ts';
import { buildReport, type ReportV1 } from '../../../src/core/report/schema.ts';
import {
  REPORT_FILE,
  StoreError,
  createRunDir,
  listRuns,
  newRunId,
  readRun,
  runsDirOf,
  writeReport,
} from '../../../src/core/store/store.ts';
import { makeTempDir, removeTempDirs } from '../../helpers/tempdir.ts';

after(removeTempDirs);

const ANALYSIS: Analysis = {
  durationMs: 10,
  samples: 10,
  intervalUs: 1000,
  nonIdleMs: 10,
  categories: { user: 10, dependencies: 0, nodeInternals: 0, native: 0, gc: 0, idle: 0, program: 0 },
  functions: [],
  lines: [],
  hints: [],
  notes: [],
};

function report(id: string): ReportV1 {
  return buildReport({
    id,
    startedAt: '2026-11-21T12:00:00.000Z',
    app: { command: ['node', 'server.js'], cwd: '/app', pid: 1, url: 'http://127.0.0.1:3000/' },
    settings: {
      url: '/',
      method: 'GET',
      headers: {},
      connections: 1,
      pipelining: 1,
      durationS: 1,
      warmupS: 0,
      samplingIntervalUs: 1000,
      timeoutS: 10,
    },
    profileFile: 'profile.cpuprofile',
    analysis: ANALYSIS,
  });
}

/** A runs folder with good runs `ids` (written the way a run writes them). */
function runsWith(...ids: string[]): string {
  const runsDir = runsDirOf(makeTempDir('hotline-store-'));
  for (const id of ids) writeReport(createRunDir(runsDir, id), report(id));
  return runsDir;
}

function fails(fn: () => unknown, message: RegExp, file?: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof StoreError, String(err));
    assert.match(err.message, message);
    if (file) assert.equal(err.file, file);
    return true;
  });
}

describe('readRun', () => {
  test('a run folder, its report.json path, or its id in the runs folder', () => {
    const runsDir = runsWith('20261121-120000-aaaa');
    const dir = path.join(runsDir, '20261121-120000-aaaa');
    assert.equal(readRun(dir).report.id, '20261121-120000-aaaa');
    assert.equal(readRun(dir).dir, dir);
    assert.equal(readRun(path.join(dir, REPORT_FILE)).dir, dir);
    assert.equal(readRun('20261121-120000-aaaa', runsDir).dir, dir);
  });

  test('a missing folder', () => {
    const missing = path.join(makeTempDir(), 'nope');
    fails(() => readRun(missing), /No run at/, path.join(missing, REPORT_FILE));
  });

  test('a folder without report.json', () => {
    fails(() => readRun(makeTempDir()), /No run at .*report\.json/);
  });

  test('invalid JSON (a run interrupted while saving)', () => {
    const dir = makeTempDir();
    fs.writeFileSync(path.join(dir, REPORT_FILE), '{"version": 1, "id": ');
    fails(() => readRun(dir), /not valid JSON/, path.join(dir, REPORT_FILE));
  });

  test('a report of another version, or not a report at all', () => {
    const dir = makeTempDir();
    fs.writeFileSync(path.join(dir, REPORT_FILE), JSON.stringify({ ...report('x'), version: 2 }));
    fails(() => readRun(dir), /not a Hotline report of version 1/);
    fs.writeFileSync(path.join(dir, REPORT_FILE), '[]');
    fails(() => readRun(dir), /not a Hotline report of version 1/);
    const { lines: _lines, ...noLines } = report('x');
    fs.writeFileSync(path.join(dir, REPORT_FILE), JSON.stringify(noLines));
    fails(() => readRun(dir), /version 1/);
  });
});

describe('listRuns', () => {
  test('newest first; a corrupt run folder is skipped and reported; stray files ignored', () => {
    const runsDir = runsWith('20261121-120000-aaaa', '20261121-130000-bbbb');
    const corrupt = createRunDir(runsDir, '20261121-125959-dead');
    fs.writeFileSync(path.join(corrupt, REPORT_FILE), '{ truncated');
    createRunDir(runsDir, '20261121-110000-empty');
    fs.writeFileSync(path.join(runsDir, 'notes.txt'), 'not a run');

    const listing = listRuns(runsDir);
    assert.deepEqual(
      listing.runs.map((r) => r.report.id),
      ['20261121-130000-bbbb', '20261121-120000-aaaa'],
    );
    assert.deepEqual(
      listing.skipped.map((s) => path.basename(s.dir)),
      ['20261121-125959-dead', '20261121-110000-empty'],
    );
    assert.match(listing.skipped[0].reason, /not valid JSON/);
    assert.match(listing.skipped[1].reason, /No run at/);
  });

  test('no runs folder yet: an empty listing, not an error', () => {
    assert.deepEqual(listRuns(path.join(makeTempDir(), 'nothing')), { runs: [], skipped: [] });
  });
});

describe('writing runs', () => {
  test('createRunDir keeps runs out of git; writeReport leaves no temporary file', () => {
    const appDir = makeTempDir();
    const dir = createRunDir(runsDirOf(appDir), 'r1');
    assert.equal(fs.readFileSync(path.join(appDir, '.hotline', '.gitignore'), 'utf8'), '*\n');
    writeReport(dir, report('r1'));
    assert.deepEqual(fs.readdirSync(dir), [REPORT_FILE]);
    assert.deepEqual(readRun(dir).report, report('r1'));
    assert.throws(() => createRunDir(runsDirOf(appDir), 'r1'), /EEXIST/, 'a run folder is never reused');
  });

  test('run ids sort by time and differ within a second', () => {
    const t = new Date('2026-11-21T12:34:56.789Z');
    const a = newRunId(t);
    assert.match(a, /^20261121-123456-[0-9a-f]{4}$/);
    assert.ok(newRunId(new Date('2026-11-21T12:34:57Z')) > a);
    const ids = new Set(Array.from({ length: 20 }, () => newRunId(t)));
    assert.ok(ids.size > 1);
  });
});
