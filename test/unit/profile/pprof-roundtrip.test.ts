// pprof out: run → pprof → analyse keeps the hot lines and their shares. Each captured fixture (a
// real `hotline profile` run of an example app) is analyzed as a .cpuprofile, exported as pprof,
// and the pprof analyzed again: the same top lines in the same order, shares within a point.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { analyzeFile, exportPprof, parsePathMapping, readPprofFile } from '../../../src/core/index.ts';
import { FIXTURE_NAMES, FIXTURES_DIR, type FixtureMeta } from '../../helpers/fixtures.ts';

const out = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-pprof-out-'));
after(() => fs.rmSync(out, { recursive: true, force: true }));

for (const name of FIXTURE_NAMES) {
  test(`${name}: the hot lines and shares survive the trip through pprof`, () => {
    const root = path.join(FIXTURES_DIR, name);
    const meta = JSON.parse(fs.readFileSync(path.join(root, 'meta.json'), 'utf8')) as FixtureMeta;
    const pathMap = [parsePathMapping(`${meta.root}=${root}`)];
    const profile = path.join(root, 'profile.cpuprofile');
    const before = analyzeFile(profile, root, { pathMap }).analysis;

    const pprof = path.join(out, `${name}.pb.gz`);
    exportPprof(profile, pprof, { pathMap });
    const read = readPprofFile(pprof);
    assert.equal(read.kind, 'cpu');
    const afterTrip = analyzeFile(pprof, root).analysis;

    const top = before.lines.filter((l) => l.ownPct >= 1);
    for (const [i, line] of top.entries()) {
      const again = afterTrip.lines[i];
      assert.equal(`${again.file}:${again.line}`, `${line.file}:${line.line}`, `hot line ${i + 1}`);
      assert.ok(
        Math.abs(again.ownPct - line.ownPct) <= 1,
        `${line.line}: ${line.ownPct}% before, ${again.ownPct}% after`,
      );
    }
    for (const fn of before.functions.filter((f) => f.totalPct >= 5 && f.category === 'user')) {
      const again = afterTrip.functions.find((f) => f.name === fn.name && f.file === fn.file && f.line === fn.line);
      assert.ok(again, `${fn.name} ${fn.file}:${fn.line} is still there`);
      assert.ok(
        Math.abs(again.totalPct - fn.totalPct) <= 1,
        `${fn.name}: ${fn.totalPct}% before, ${again.totalPct}% after`,
      );
    }
    for (const c of Object.keys(before.categories) as Array<keyof typeof before.categories>)
      assert.ok(
        Math.abs(afterTrip.categories[c] - before.categories[c]) <= before.durationMs / 100,
        `${c}: ${before.categories[c]} ms before, ${afterTrip.categories[c]} ms after`,
      );
  });
}
