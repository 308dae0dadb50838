// One set of figures per run (issue 24): on every recorded run in test/fixtures/, a line's own
// time never exceeds its total, nor a function's self time its total; and wherever a comparison
// prints a change beside two values (the CLI, the editor's toast), the percentage is the one
// those printed values give — the toast and the report's card show the same.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { compareReports } from '../../src/core/verdicts/compare.ts';
import type { ReportV1 } from '../../src/core/report/schema.ts';
import { renderComparison } from '../../src/cli/render-comparison.ts';
import { summarise } from '../../src/extension/runs/baseline-summary.ts';
import { analyzeFixture, FIXTURE_NAMES, FIXTURES_DIR, fixtureReport, type FixtureName } from '../helpers/fixtures.ts';

describe('own ≤ total on every recorded run', () => {
  for (const name of FIXTURE_NAMES) {
    test(name, () => {
      const a = analyzeFixture(name);
      assert.ok(a.lines.length > 0);
      for (const l of a.lines) {
        assert.ok(l.ownMs <= l.totalMs + 1e-9, `${name} line ${l.line}: own ${l.ownMs} > total ${l.totalMs}`);
        assert.ok(l.selfMs <= l.totalMs + 1e-9, `${name} line ${l.line}: self ${l.selfMs} > total ${l.totalMs}`);
      }
      for (const f of a.functions)
        assert.ok(f.selfMs <= f.totalMs + 1e-9, `${name} ${f.name}: self ${f.selfMs} > total ${f.totalMs}`);
    });
  }
});

// The report.json files recorded from real runs for the page's tests (test/webview/fixtures).
const RECORDED = path.join(FIXTURES_DIR, '..', 'webview', 'fixtures');
const recordedReports = fs
  .readdirSync(RECORDED)
  .filter((f) => f.endsWith('.json') && !f.endsWith('.timeline.json'))
  .map((f) => ({ name: f, report: JSON.parse(fs.readFileSync(path.join(RECORDED, f), 'utf8')) as ReportV1 }));

describe('recorded report.json files: own ≤ total, and a run against itself claims nothing', () => {
  for (const { name, report } of recordedReports) {
    test(name, () => {
      for (const l of report.lines) assert.ok(l.ownMs <= l.totalMs + 1e-9, `${name} ${l.file}:${l.line}`);
      for (const f of report.functions) assert.ok(f.selfMs <= f.totalMs + 1e-9, `${name} ${f.name}`);
      const c = compareReports(report, { ...report, id: 'again' });
      assert.deepEqual([c.lines.length, c.functions.length, c.refused], [0, 0, undefined]);
      const text = renderComparison(c, { cwd: FIXTURES_DIR, color: false });
      assert.doesNotMatch(text, /\b(better|worse|cheaper|costlier)\b/, text);
      assertPercentagesFromPrinted(text);
      assert.doesNotMatch(summarise(c), /better|worse/);
    });
  }
});

/** Every "A → B (±P%" in a text: P must be what A and B as printed give, to the digit shown. */
function assertPercentagesFromPrinted(text: string): number {
  const re = /(−?[\d.]+)(?: ms|%)? → (−?[\d.]+)(?: ms|%)? \(([+−]?[\d.]+)%/g;
  let seen = 0;
  for (const m of text.matchAll(re)) {
    const [a, b, p] = [m[1], m[2], m[3]].map((x) => Number(x.replace('−', '-').replace('+', '')));
    if (a === 0) continue;
    const digits = m[3].includes('.') ? m[3].split('.')[1].length : 0;
    const expected = Number((((b - a) / Math.abs(a)) * 100).toFixed(digits));
    assert.ok(Math.abs(expected - p) < 10 ** -digits + 1e-9, `${m[0]}: ${a} → ${b} is ${expected}%, printed ${p}%`);
    seen++;
  }
  return seen;
}

const withLoad = FIXTURE_NAMES.filter((n) => fs.existsSync(path.join(FIXTURES_DIR, n, 'load.json'))) as FixtureName[];

describe('percentages from the printed values, toast = report', () => {
  for (const [a, b] of withLoad.flatMap((x) => withLoad.map((y) => [x, y] as const)).filter(([x, y]) => x !== y)) {
    test(`${a} → ${b}`, () => {
      const base = fixtureReport(a, 'a');
      const current = fixtureReport(b, 'b');
      const c = compareReports(base, current);
      assert.ok(assertPercentagesFromPrinted(renderComparison(c, { cwd: FIXTURES_DIR, color: false })) >= 3);
      const toast = summarise(c);
      assert.ok(assertPercentagesFromPrinted(toast) >= 2, toast);
      // The toast's request figures are the report's own.
      assert.ok(
        toast.includes(
          `req/s ${base.load!.requests.perSecond.toFixed(1)} → ${current.load!.requests.perSecond.toFixed(1)}`,
        ),
      );
      assert.ok(
        toast.includes(`p99 ${base.load!.latencyMs.p99.toFixed(0)} ms → ${current.load!.latencyMs.p99.toFixed(0)} ms`),
      );
    });
  }
});
