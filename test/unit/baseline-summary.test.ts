// The notification line after a run with a baseline (extension/baseline-summary.ts): the
// captured sync → async login-api pair, and the cases with nothing to say.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { compareReports } from '../../src/core/report/compare.ts';
import { writeReport } from '../../src/core/store/store.ts';
import { againstBaseline, summarise } from '../../src/extension/baseline-summary.ts';
import { fixtureReport } from '../helpers/fixtures.ts';
import { makeTempDir, removeTempDirs } from '../helpers/tempdir.ts';

after(removeTempDirs);

const sync = fixtureReport('login-api', 'sync');
const async = fixtureReport('login-api-async', 'async');

test('sync → async: req/s and p99 with their change, and checkPassword’s saving per request', () => {
  const line = summarise(compareReports(sync, async));
  const rps = `req/s ${sync.load!.requests.perSecond.toFixed(1)} → ${async.load!.requests.perSecond.toFixed(1)} (+`;
  assert.ok(line.startsWith('against the baseline sync: '), line);
  assert.ok(line.includes(rps), `${line} has ${rps}`);
  // One minus sign (U+2212), the unit beside each figure.
  assert.match(line, /p99 \d+ ms → \d+ ms \(\u2212\d+%\)/);
  assert.doesNotMatch(line, /\(-/);
  assert.match(line, /checkPassword −\d+ ms\/request\.$/);
});

test('read from run folders; none when there is no baseline, it is the run itself, or it is gone', () => {
  const dir = makeTempDir();
  const runDir = (name: string): string => {
    fs.mkdirSync(path.join(dir, name));
    return path.join(dir, name);
  };
  const base = writeReport(runDir('a'), sync);
  const now = writeReport(runDir('b'), async);
  assert.match(
    againstBaseline(now, base) ?? '',
    /^against the baseline sync: CPU\/request \d+ ms → \d+ ms \(\+\d+%\), req\/s/,
  );
  assert.equal(againstBaseline(now, undefined), undefined);
  assert.equal(againstBaseline(now, now), undefined);
  assert.equal(againstBaseline(now, path.join(dir, 'deleted', 'report.json')), undefined);
});
