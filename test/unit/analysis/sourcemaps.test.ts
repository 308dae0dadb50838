// Source maps: loadSources (sources.ts) finds them (a .map file beside the script, or a data:
// URL), SourceMapper (sourcemaps.ts) maps generated positions back, and the analysis puts the
// lines of compiled code on the original source. The maps are ts-app's real esbuild output.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { analyzeProfile } from '../../../src/core/analysis/analyze.ts';
import { Workspace } from '../../../src/core/analysis/attribution/categories.ts';
import { readCpuProfile } from '../../../src/core/profile/cpuprofile.ts';
import type { Analysis } from '../../../src/core/analysis/model.ts';
import { SourceMapper } from '../../../src/core/analysis/attribution/sourcemaps.ts';
import { loadSources } from '../../../src/core/store/sources.ts';
import { FIXTURES_DIR, loadFixture } from '../../helpers/fixtures.ts';
import { buildProfile } from '../../helpers/profiles.ts';
import { makeTempDir, removeTempDirs, writeFiles } from '../../helpers/tempdir.ts';

after(removeTempDirs);

const TS_APP = path.join(FIXTURES_DIR, 'ts-app-work');
const read = (rel: string): string => fs.readFileSync(path.join(TS_APP, rel), 'utf8');
const HOT_JS = read('dist/hot.js');
const HOT_MAP = read('dist/hot.js.map');
const HOT_TS = read('src/hot.ts');

/** dist/hot.js with its last line (the sourceMappingURL comment) replaced. */
const hotJsWith = (comment: string): string => HOT_JS.replace(/\/\/# sourceMappingURL=.*\s*$/, `${comment}\n`);

/** A profile of checksum() in <root>/dist/hot.js, as V8 gave it: at 40:17, ticks on line 45. */
function checksumProfile(root: string) {
  return readCpuProfile(
    buildProfile([
      { name: 'checksum', file: path.join(root, 'dist', 'hot.js'), line0: 40, col0: 17, self: 10, ticks: [[45, 10]] },
    ]),
  );
}

function analyzeDir(root: string): { analysis: Analysis; notes: string[]; sources: Map<string, string> } {
  const profile = checksumProfile(root);
  const loaded = loadSources(profile, root);
  const analysis = analyzeProfile({ profile, root, sources: loaded.sources, sourceMaps: loaded.sourceMaps });
  return { analysis, notes: loaded.notes, sources: loaded.sources };
}

function assertMappedToTs(root: string, a: Analysis): void {
  assert.equal(a.lines.length, 1);
  assert.equal(a.lines[0].file, path.join(root, 'src', 'hot.ts'));
  assert.equal(a.lines[0].line, 53);
  assert.deepEqual(a.lines[0].generated, { file: path.join(root, 'dist', 'hot.js'), line: 45 });
  const fn = a.functions.find((f) => f.name === 'checksum')!;
  assert.deepEqual([fn.file, fn.line], [path.join(root, 'src', 'hot.ts'), 49]);
}

function assertLeftOnJs(root: string, a: Analysis): void {
  assert.equal(a.lines[0].file, path.join(root, 'dist', 'hot.js'));
  assert.equal(a.lines[0].line, 45);
  assert.equal(a.lines[0].generated, undefined);
}

describe('loadSources', () => {
  test('external .js.map beside the script: the map and the original sources (from sourcesContent) are read', () => {
    const f = loadFixture('ts-app-work');
    const maps = f.sourceMaps
      .map((m) => [path.relative(f.root, m.generatedFile), path.relative(f.root, m.mapFile)])
      .sort();
    assert.deepEqual(maps, [
      ['dist/hot.js', 'dist/hot.js.map'],
      ['dist/server.js', 'dist/server.js.map'],
    ]);
    assert.deepEqual([...f.sources.keys()].map((k) => path.relative(f.root, k)).sort(), [
      'dist/hot.js',
      'dist/server.js',
      'src/hot.ts',
      'src/server.ts',
    ]);
    assert.equal(f.sources.get(path.join(f.root, 'src', 'hot.ts')), HOT_TS);
    assert.deepEqual(f.notes, []);
  });

  test('an original source without sourcesContent is read from disk', () => {
    const root = makeTempDir();
    const map = JSON.parse(HOT_MAP) as { sourcesContent?: string[] };
    delete map.sourcesContent;
    writeFiles(root, { 'dist/hot.js': HOT_JS, 'dist/hot.js.map': JSON.stringify(map), 'src/hot.ts': HOT_TS });
    const { analysis, sources } = analyzeDir(root);
    assert.equal(sources.get(path.join(root, 'src', 'hot.ts')), HOT_TS);
    assertMappedToTs(root, analysis);
  });

  const mapWithoutContent = (): string => {
    const map = JSON.parse(HOT_MAP) as { sourcesContent?: string[] };
    delete map.sourcesContent;
    return JSON.stringify(map);
  };

  test('an inline data: URL map (base64) maps like the external one', () => {
    const root = makeTempDir();
    const b64 = Buffer.from(mapWithoutContent()).toString('base64');
    writeFiles(root, {
      'dist/hot.js': hotJsWith(`//# sourceMappingURL=data:application/json;charset=utf-8;base64,${b64}`),
      'src/hot.ts': HOT_TS,
    });
    const { analysis, notes, sources } = analyzeDir(root);
    assert.deepEqual(notes, []);
    assert.equal(sources.get(path.join(root, 'src', 'hot.ts')), HOT_TS);
    assertMappedToTs(root, analysis);
    assert.deepEqual(analysis.notes, []);
  });

  test('an inline data: URL map (percent-encoded, not base64) too', () => {
    const root = makeTempDir();
    writeFiles(root, {
      'dist/hot.js': hotJsWith(`//# sourceMappingURL=data:application/json,${encodeURIComponent(mapWithoutContent())}`),
      'src/hot.ts': HOT_TS,
    });
    assertMappedToTs(root, analyzeDir(root).analysis);
  });

  test(
    'an inline map longer than 4 KB (with sourcesContent, as tsc/esbuild --sourcemap=inline write it) is found',
    {},
    () => {
      const root = makeTempDir();
      const b64 = Buffer.from(HOT_MAP).toString('base64');
      assert.ok(b64.length > 4096);
      writeFiles(root, {
        'dist/hot.js': hotJsWith(`//# sourceMappingURL=data:application/json;charset=utf-8;base64,${b64}`),
      });
      const { analysis, sources } = analyzeDir(root);
      assert.equal(sources.get(path.join(root, 'src', 'hot.ts')), HOT_TS, 'the original comes from sourcesContent');
      assertMappedToTs(root, analysis);
    },
  );

  test('a map that is not JSON is ignored with a note; lines stay on the JavaScript', () => {
    const root = makeTempDir();
    writeFiles(root, { 'dist/hot.js': HOT_JS, 'dist/hot.js.map': '{"version": 3, "mappings": ' });
    const { analysis } = analyzeDir(root);
    const hotJs = path.join(root, 'dist', 'hot.js');
    assert.ok(
      analysis.notes.some((n) => n.startsWith(`Ignored the source map of ${hotJs}`)),
      analysis.notes.join('\n'),
    );
    assertLeftOnJs(root, analysis);
    assert.equal(analysis.lines[0].function, 'checksum');
  });

  test('a map whose sources point outside the root is ignored with a note, and the outside file is not read', () => {
    const base = makeTempDir();
    const root = path.join(base, 'app');
    const map = JSON.parse(HOT_MAP) as { sources: string[]; sourcesContent?: string[] };
    map.sources = ['../../outside/hot.ts'];
    delete map.sourcesContent;
    writeFiles(base, {
      'app/dist/hot.js': HOT_JS,
      'app/dist/hot.js.map': JSON.stringify(map),
      'outside/hot.ts': HOT_TS,
    });
    const { analysis, sources } = analyzeDir(root);
    assert.ok(
      analysis.notes.some(
        (n) => n.includes('points outside the workspace') && n.includes(path.join(base, 'outside', 'hot.ts')),
      ),
      analysis.notes.join('\n'),
    );
    assert.ok(![...sources.keys()].some((k) => !k.startsWith(root + path.sep)), 'nothing outside the root was read');
    assertLeftOnJs(root, analysis);
  });

  test('a sourceMappingURL that leaves the root is not followed', () => {
    const base = makeTempDir();
    const root = path.join(base, 'app');
    writeFiles(base, {
      'app/dist/hot.js': hotJsWith('//# sourceMappingURL=../../elsewhere/hot.js.map'),
      'elsewhere/hot.js.map': HOT_MAP,
    });
    const { analysis, notes } = analyzeDir(root);
    assert.ok(
      notes.some((n) => n.includes('outside the workspace')),
      notes.join('\n'),
    );
    assertLeftOnJs(root, analysis);
  });

  test('a missing map file is a note, not an error', () => {
    const root = makeTempDir();
    writeFiles(root, { 'dist/hot.js': hotJsWith('//# sourceMappingURL=gone.js.map') });
    const { analysis, notes } = analyzeDir(root);
    assert.ok(
      notes.some((n) => n.includes(path.join(root, 'dist', 'gone.js.map'))),
      notes.join('\n'),
    );
    assertLeftOnJs(root, analysis);
  });

  test('only files under the root are read: node internals, native frames and other folders are skipped', () => {
    const base = makeTempDir();
    const root = path.join(base, 'app');
    writeFiles(base, { 'app/a.js': 'function a() {}\n', 'other/b.js': 'function b() {}\n' });
    const profile = readCpuProfile(
      buildProfile([
        { name: 'a', file: path.join(root, 'a.js'), self: 1 },
        { name: 'b', file: path.join(base, 'other', 'b.js'), self: 1 },
        { name: 'readFileSync', file: 'node:fs', line0: 3, col0: 1, self: 1 },
        { name: 'run', self: 1 },
      ]),
    );
    const loaded = loadSources(profile, root);
    assert.deepEqual([...loaded.sources.keys()], [path.join(root, 'a.js')]);
    assert.deepEqual(loaded.notes, []);
  });
});

describe('SourceMapper', () => {
  const root = TS_APP;
  const hotJs = path.join(root, 'dist', 'hot.js');
  const serverJs = path.join(root, 'dist', 'server.js');
  const mapper = (notes: string[] = []) =>
    new SourceMapper(
      [
        { generatedFile: hotJs, map: HOT_MAP, mapFile: `${hotJs}.map` },
        { generatedFile: serverJs, map: JSON.parse(read('dist/server.js.map')), mapFile: `${serverJs}.map` },
      ],
      new Workspace(root),
      notes,
    );

  test('at(): a function’s generated line and column → its TypeScript position', () => {
    const m = mapper();
    const checksum = m.at(hotJs, 41, 17)!;
    assert.deepEqual([checksum.file, checksum.line], [path.join(root, 'src', 'hot.ts'), 49]);
    assert.equal(
      HOT_TS.split('\n')[48].slice(checksum.column).startsWith('checksum('),
      true,
      'column: 0-based, at the name',
    );
    assert.equal(m.at(serverJs, 34, 11)?.line, 23, 'the /json arrow');
    assert.equal(m.at(path.join(root, 'dist', 'nope.js'), 1, 0), undefined);
    assert.equal(m.has(hotJs), true);
    assert.equal(m.has(path.join(root, 'src', 'hot.ts')), false);
  });

  test('line(): whole generated lines (position ticks have no column) → TypeScript lines', () => {
    const m = mapper();
    assert.equal(m.line(hotJs, 45)?.line, 53);
    assert.equal(m.line(hotJs, 44)?.line, 52);
    assert.equal(m.line(serverJs, 30)?.line, 18, 'res.end(body) in sendJson');
    assert.equal(m.line(serverJs, 2), undefined, 'esbuild’s helper lines have no mapping');
  });

  test('line(): a line that starts with indentation maps to its own original line, not the previous one', {}, () => {
    const m = mapper();
    assert.equal(m.line(serverJs, 33)?.line, 22, "'/work' route");
    assert.equal(m.line(serverJs, 34)?.line, 23, "'/json' route");
  });

  test('maps given as text or as an object are both accepted; a broken one is noted and dropped', () => {
    const notes: string[] = [];
    const m = new SourceMapper(
      [
        { generatedFile: hotJs, map: '{"version":3,', mapFile: `${hotJs}.map` },
        { generatedFile: serverJs, map: JSON.parse(read('dist/server.js.map')), mapFile: `${serverJs}.map` },
      ],
      new Workspace(root),
      notes,
    );
    assert.equal(m.has(hotJs), false);
    assert.equal(m.has(serverJs), true);
    assert.equal(notes.length, 1);
    assert.ok(notes[0].startsWith(`Ignored the source map of ${hotJs}`));
  });
});
