// What each bundle carries, from esbuild's metafile with the options of esbuild.mjs: the
// extension captures only (the language server analyses), so the analyzer and acorn must not be
// in dist/extension.js; the server bundle, built the same way, must have them (the check sees them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as esbuild from 'esbuild';
// @ts-expect-error esbuild.mjs is plain JavaScript without declarations
import { entries } from '../../esbuild.mjs';

interface Entry {
  outfile: string;
  entryPoints: string[];
}

async function inputsOf(outfile: string): Promise<string[]> {
  const entry = (entries as Entry[]).find((e) => e.outfile === outfile);
  assert.ok(entry, `esbuild.mjs builds ${outfile}`);
  const result = await esbuild.build({ ...entry, write: false, metafile: true, sourcemap: false, logLevel: 'error' });
  const output = Object.values(result.metafile.outputs).find((o) => o.entryPoint);
  assert.ok(output);
  return Object.keys(output.inputs);
}

const ANALYSER =
  /src\/core\/analysis\/(analyze|attribution\/callsites|read\/profile|hints\/hints|attribution\/sourcemaps)\.ts$|node_modules\/acorn\//;

test('the extension bundle carries no analyzer and no acorn', async () => {
  const inputs = await inputsOf('dist/extension.js');
  assert.ok(
    inputs.some((f) => f.includes('src/core/capture/run.ts')),
    'the extension captures',
  );
  assert.deepEqual(
    inputs.filter((f) => ANALYSER.test(f)),
    [],
  );
});

test('the language server bundle carries the analyzer', async () => {
  const inputs = await inputsOf('dist/server.js');
  assert.ok(inputs.some((f) => f.endsWith('src/core/analysis/analyze.ts')));
  assert.ok(inputs.some((f) => f.includes('node_modules/acorn/')));
});

// chrome-remote-interface reads its lib/protocol.json only with `local: true`, which Hotline never
// passes (src/core/inspector/session.ts): esbuild.mjs stubs it out of every bundle (0.5 MB).
for (const outfile of ['dist/extension.js', 'dist/cli.js']) {
  test(`${outfile} carries chrome-remote-interface without its local protocol.json`, async () => {
    const inputs = await inputsOf(outfile);
    assert.ok(
      inputs.some((f) => f.endsWith('node_modules/chrome-remote-interface/lib/devtools.js')),
      'the bundle has the library whose file the check looks for',
    );
    assert.deepEqual(
      inputs.filter((f) => f.endsWith('protocol.json')),
      [],
    );
  });
}
