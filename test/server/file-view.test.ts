// file-view.ts: the login-api capture's report seen through server.js, as analyzed and after edits.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { ReportIndex, heatOf, hintsOf, hoverOf, lensesOf, linesOfInterest } from '../../src/server/file-view.ts';
import { mapLines } from '../../src/server/staleness.ts';
import { FIXTURES_DIR, loginApiReport } from '../helpers/fixtures.ts';

const serverJs = path.join(FIXTURES_DIR, 'login-api', 'server.js');
const text = fs.readFileSync(serverJs, 'utf8');
const report = loginApiReport();
const index = new ReportIndex(report, '/runs/r1/report.json');
const fc = index.costsOf(serverJs)!;

test('only server.js has costs worth showing; its lines of interest', () => {
  assert.ok(fc);
  assert.deepEqual(
    [...index.files.values()].map((f) => f.file),
    [serverJs],
  );
  // res.json's three calls (65, 70, 73) are "one of" them in this fixture (no stack captures): the editor shows none.
  assert.deepEqual(linesOfInterest(fc), [34, 35, 62, 72]);
});

test('as analyzed: lenses, heat and the hint on their own lines', () => {
  const m = mapLines(text, text, linesOfInterest(fc));
  const lenses = lensesOf(index, fc, m);
  assert.deepEqual(
    lenses.map((l) => [l.line0 + 1, l.title]),
    [
      // A saturated app (no load figures: a bare profile): of a core ≈ of the busy time.
      [34, 'total 2.9 s (95% of a core) · self 0 ms'],
      [35, '2.9 s · 95% of a core · blocks the event loop'],
      [62, 'total 2.9 s (98% of a core) · self 1.1 ms'],
      [72, 'own 61 ms · 2.0% of a core'],
    ],
  );
  assert.deepEqual(lenses[1].args, {
    reportFile: '/runs/r1/report.json',
    file: serverJs,
    line: 35,
    functionName: 'checkPassword',
  });
  assert.deepEqual(
    heatOf(index, fc, m).map((h) => [h.line + 1, h.label]),
    [
      [35, '■ 2.9 s'],
      [72, '■ 61 ms'],
    ],
  );
  assert.deepEqual(
    hintsOf(fc, m).map((h) => [h.line0 + 1, h.hint.rule]),
    [[35, 'crypto-sync']],
  );
  assert.match(hoverOf(index, fc, m, 34) ?? '', /pbkdf2Sync/);
  assert.match(
    hoverOf(index, fc, m, 68) ?? '',
    /`checkPassword`.*inferred call site/,
    'the call-site line of checkPassword',
  );
  assert.match(hoverOf(index, fc, m, 33) ?? '', /function `checkPassword`/);
  assert.equal(hoverOf(index, fc, m, 35), undefined, 'line 36 is too cold for a hover');
});

test('after an edit: moved lines follow, the changed line goes, a rewrite hides all', () => {
  const lines = text.split('\n');
  const edited = [
    '// new',
    ...lines.slice(0, 34),
    '  const hash = await hashAsync(password);',
    ...lines.slice(35),
  ].join('\n');
  const m = mapLines(text, edited, linesOfInterest(fc));
  assert.deepEqual(
    lensesOf(index, fc, m).map((l) => l.line0 + 1),
    [35, 63, 73],
  );
  assert.deepEqual(hintsOf(fc, m), []);
  const rewritten = lines.map((l) => `${l};`).join('\n');
  const gone = mapLines(text, rewritten, linesOfInterest(fc));
  assert.equal(gone.changedBeyondMapping, true);
  assert.deepEqual(lensesOf(index, fc, gone), []);
  assert.deepEqual(heatOf(index, fc, gone), []);
  assert.equal(hoverOf(index, fc, gone, 34), undefined);
});
