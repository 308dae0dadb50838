// The notification line after a run with a baseline (extension/runs/baseline-summary.ts): the
// captured sync → async login-api pair, and the cases with nothing to say; a function's saving
// beyond the request's CPU change says where the work went (recorded runs, test/fixtures/runs).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { compareReports } from '../../../src/core/verdicts/compare.ts';
import { writeReport } from '../../../src/core/store/store.ts';
import type { ReportV1 } from '../../../src/core/report/schema.ts';
import { againstBaseline, summarise, whereWorkWent } from '../../../src/extension/runs/baseline-summary.ts';
import { recordedReport } from '../../helpers/recorded.ts';
import { fixtureReport } from '../../helpers/fixtures.ts';
import { makeTempDir, removeTempDirs } from '../../helpers/tempdir.ts';

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
  // The fixture's async run has no wait probe: the app's CPU/request rose while checkPassword's
  // main-thread CPU fell 40 ms, so the toast says the work moved off the main thread.
  assert.match(
    line,
    /checkPassword −\d+ ms\/request on the main thread, but the app's CPU\/request \(all threads\) rose [\d.]+ ms: the work moved off the main thread \(the threadpool, a worker or another process\) rather than went away\.$/,
  );
});

/** The toast's figures: the named saving, and how much the app's CPU/request fell. */
function figures(line: string): { saving: number; fell: number } {
  const num = (t: string): number => Number(t.replace('\u2212', '-'));
  const cpu = /CPU\/request ([\d.]+) ms → ([\d.]+) ms/.exec(line);
  const saving = /(?:checkPassword|[\w.]+) (\u2212[\d.]+) ms\/request/.exec(line.slice(line.indexOf('p99')));
  assert.ok(cpu && saving, line);
  return { saving: -num(saving[1]), fell: num(cpu[1]) - num(cpu[2]) };
}

test('the demo’s real fix (recorded login-sync → login-async): the saving went to the threadpool, and the toast says so', () => {
  const base = recordedReport('login-sync');
  const current = recordedReport('login-async');
  const moved = whereWorkWent(base, current);
  assert.equal(moved, 'the threadpool (crypto.pbkdf2 at server.js:41)');
  const line = summarise(compareReports(base, current), moved);
  const f = figures(line);
  assert.ok(f.saving > f.fell, `the recorded pair is the case: ${line}`);
  assert.match(
    line,
    /checkPassword −\d+ ms\/request on the main thread, moved to the threadpool \(crypto\.pbkdf2 at server\.js:41\): the app's CPU\/request \(all threads\) fell only 0\.37 ms\.$/,
  );
  // Backwards (async as the baseline), nothing moved to the threadpool: none is claimed.
  assert.equal(whereWorkWent(current, base), undefined);
});

test('a saving more than the request fell, with nothing moved: said to be the profiler-on figure', () => {
  // The recorded fix with the app's CPU/request falling by most of the line's saving (as the tsx
  // app's did: 4.82 → 0.56 ms against rankOrders −5.03) and no wait probe to say where work went.
  const base = recordedReport('login-sync');
  const current = recordedReport('login-async');
  const c = compareReports(base, current);
  const saving = -c.lines[0].change;
  const cpu = c.load!.cpuPerRequestMs!;
  const shrunk = { ...c, load: { ...c.load!, cpuPerRequestMs: { ...cpu, current: cpu.base - saving * 0.85 } } };
  const line = summarise(shrunk, undefined);
  assert.match(
    line,
    /checkPassword −\d+ ms\/request with the profiler on, more than the app's CPU\/request fell without it \(−\d+ ms\)\.$/,
  );
  // The request carries the whole saving: the line is named plainly.
  const carried = { ...c, load: { ...c.load!, cpuPerRequestMs: { ...cpu, current: cpu.base - saving * 1.1 } } };
  assert.match(summarise(carried, undefined), /checkPassword −\d+ ms\/request\.$/);
});

test('every toast of the recorded and fixture pairs: a saving beyond the request’s fall always says why', () => {
  const pairs: Array<[ReportV1, ReportV1]> = [
    [recordedReport('login-sync'), recordedReport('login-async')],
    [sync, async],
  ];
  for (const [b, cur] of pairs) {
    const line = summarise(compareReports(b, cur), whereWorkWent(b, cur));
    const f = figures(line);
    if (f.saving > f.fell + 0.01) assert.match(line, /moved to|moved off the main thread|with the profiler on/, line);
  }
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
