// Scripts compiled in memory (analysis/attribution/apply-runtime-scripts.ts, capture/read-runtime-scripts.ts): which code
// as run keeps the file's positions, how a profile's frames are renamed to the code as run (or
// lose their positions when no map can be read), and the one note that says so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  applyRuntimeScripts,
  asRunPath,
  unmappedNote,
} from '../../../src/core/analysis/attribution/apply-runtime-scripts.ts';
import { samePositions } from '../../../src/core/capture/read-runtime-scripts.ts';
import type { CpuProfile } from '../../../src/core/profile/cpuprofile.ts';
import { commandPath } from '../../../src/core/app/command.ts';
import { packedLine, SourceMapper, type SourceMapInput } from '../../../src/core/analysis/attribution/sourcemaps.ts';
import { Workspace } from '../../../src/core/analysis/attribution/categories.ts';

test('samePositions: type stripping and a blanked #! keep them, a loader’s output does not', () => {
  const ts = 'const a: number = 1;\nexport function f(x: string): void {}\n';
  const stripped = 'const a         = 1;\nexport function f(x        )       {}\n';
  assert.equal(samePositions(ts, stripped), true);
  assert.equal(samePositions(ts, `${stripped}\n\n//# sourceURL=file:///app/a.ts`), true, 'Node 24 appends a sourceURL');
  assert.equal(samePositions('#!/usr/bin/env node\nrun();\n', '\nrun();\n'), true);
  assert.equal(samePositions(ts, '"use strict";const a=1;function f(x){}\n//# sourceMappingURL=data:,{}'), false);
  assert.equal(samePositions(ts, `${stripped}run();\n`), false, 'code after the file is not the file');
  assert.equal(samePositions(undefined, stripped), false, 'no file on disk');
});

const profile = (): CpuProfile => ({
  nodes: [
    {
      id: 1,
      callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 },
      children: [2, 3],
    },
    {
      id: 2,
      callFrame: {
        functionName: 'check',
        scriptId: '5',
        url: 'file:///app/src/check.ts',
        lineNumber: 1,
        columnNumber: 40,
      },
      positionTicks: [{ line: 2, ticks: 3 }],
    },
    {
      id: 3,
      callFrame: {
        functionName: 'serve',
        scriptId: '6',
        url: 'file:///app/src/server.ts',
        lineNumber: 1,
        columnNumber: 9,
      },
      positionTicks: [{ line: 2, ticks: 1 }],
    },
  ],
  startTime: 0,
  endTime: 10,
  samples: [2, 3],
  timeDeltas: [5, 5],
});

test('applyRuntimeScripts: a mapped script’s frames move to its code as run, an unmapped one’s lose their positions', () => {
  const stacks = {
    frames: [
      { url: '/app/src/check.ts', line: 2, column: 41, functionName: 'check' },
      { url: '/app/src/server.ts', line: 2, column: 10, functionName: 'serve' },
    ],
    captures: [[0], [1]],
    ticks: [] as [number, number][],
  };
  const input = profile();
  const out = applyRuntimeScripts(input, stacks, [
    { url: 'file:///app/src/check.ts', file: '/app/src/check.ts', source: 'code as run', map: '{"version":3}' },
    { url: 'file:///app/src/server.ts', file: '/app/src/server.ts', source: 'other', mapProblem: 'no map' },
  ]);
  assert.equal(out.profile.nodes[1].callFrame.url, asRunPath('/app/src/check.ts'));
  assert.deepEqual(out.profile.nodes[1].positionTicks, [{ line: 2, ticks: 3 }]);
  assert.equal(out.profile.nodes[2].callFrame.url, 'file:///app/src/server.ts');
  assert.equal(out.profile.nodes[2].callFrame.lineNumber, -1);
  assert.equal(out.profile.nodes[2].positionTicks, undefined);
  assert.equal(out.stacks?.frames[0].url, asRunPath('/app/src/check.ts'));
  assert.deepEqual([out.stacks?.frames[1].line, out.stacks?.frames[1].column], [0, 0]);
  assert.equal(out.sources.get(asRunPath('/app/src/check.ts')), 'code as run');
  assert.deepEqual(out.sourceMaps, [
    { generatedFile: asRunPath('/app/src/check.ts'), map: '{"version":3}', mapFile: '/app/src/check.ts' },
  ]);
  assert.deepEqual([...out.unmapped.keys()], ['/app/src/server.ts']);
  assert.equal(input.nodes[1].callFrame.url, 'file:///app/src/check.ts', 'the input is not changed');
});

test('applyRuntimeScripts with none: the profile as it was', () => {
  const input = profile();
  assert.equal(applyRuntimeScripts(input, undefined, []).profile, input);
});

test('unmappedNote: one note naming the file, why and what to do', () => {
  assert.equal(unmappedNote(new Map()), undefined);
  const note = unmappedNote(
    new Map([
      ['/app/src/a.ts', 'the runtime holds no source map for it'],
      ['/app/src/b.ts', 'x'],
    ]),
  );
  assert.match(
    note ?? '',
    /^\/app\/src\/a\.ts \(and 1 more file\) is transpiled in memory .*no source map for it.*source maps/,
  );
});

test('commandPath: the chosen node first, then every node_modules/.bin up from the app, then the caller’s', () => {
  const p = commandPath('/work/app', '/usr/bin', '/opt/node24/bin/node').split(':');
  assert.deepEqual(p, [
    '/opt/node24/bin',
    '/work/app/node_modules/.bin',
    '/work/node_modules/.bin',
    '/node_modules/.bin',
    '/usr/bin',
  ]);
  assert.equal(commandPath('/a', '', 'node'), '/a/node_modules/.bin:/node_modules/.bin', 'a bare name is left to PATH');
});

test('packedLine: a generated line holding three original lines is packed, one per line is not', () => {
  const workspace = new Workspace('/app');
  const map = (mappings: string): SourceMapInput => ({
    generatedFile: '/app/out.js',
    map: { version: 3, sources: ['src/a.ts'], names: [], mappings },
    mapFile: '/app/out.js',
  });
  const packed = new SourceMapper([map('AAAA,IACA,IACA')], workspace, []);
  assert.equal(packedLine(packed, '/app/out.js', 1), true);
  const plain = new SourceMapper([map('AAAA;AACA;AACA')], workspace, []);
  assert.equal(packedLine(plain, '/app/out.js', 1), false);
  assert.equal(packedLine(plain, '/app/other.js', 1), false, 'a script without a map');
});
