// TypeScript the way projects ship it, beyond ts-app's esbuild output with linked maps (in
// profile.test.ts): tsc with inline maps, and one esbuild bundle with an inline map. Both are
// built here from the same src/ by the repository's own tsc and esbuild, profiled under real
// load, and the hot line must land on src/hot.ts:53 with the generated position kept.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { profileUnderLoad } from '../../src/core/index.ts';
import type { ReportV1 } from '../../src/core/report/schema.ts';
import {
  LeakGuard,
  REPO_ROOT,
  RUN_TEST_TIMEOUT,
  SHORT_RUN,
  TS_APP,
  assertBuilt,
  removeTempDirs,
  tempDir,
} from '../helpers/integration.ts';

/** Build outputs inside the app folder (its code is "yours" there), ignored by git. */
const TSC_OUT = path.join(TS_APP, 'out-tsc');
const BUNDLE_OUT = path.join(TS_APP, 'out-bundle');
const HOT_TS = path.join(TS_APP, 'src', 'hot.ts');

before(() => {
  assertBuilt();
  for (const dir of [TSC_OUT, BUNDLE_OUT]) fs.rmSync(dir, { recursive: true, force: true });
  execFileSync(
    process.execPath,
    [
      path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      TS_APP,
      '--outDir',
      TSC_OUT,
      '--sourceMap',
      'false',
      '--inlineSourceMap',
      '--inlineSources',
    ],
    { stdio: 'pipe' },
  );
  execFileSync(
    path.join(REPO_ROOT, 'node_modules', '.bin', 'esbuild'),
    [
      path.join(TS_APP, 'src', 'server.ts'),
      '--bundle',
      '--platform=node',
      '--format=cjs',
      '--target=node20',
      '--sourcemap=inline',
      `--outfile=${path.join(BUNDLE_OUT, 'server.js')}`,
      '--log-level=warning',
    ],
    { stdio: 'pipe' },
  );
});

after(() => {
  for (const dir of [TSC_OUT, BUNDLE_OUT]) fs.rmSync(dir, { recursive: true, force: true });
  removeTempDirs();
});

async function profile(entry: string): Promise<ReportV1> {
  const guard = new LeakGuard(TS_APP);
  const { report } = await profileUnderLoad({
    target: { cwd: TS_APP, entry },
    url: '/work',
    ...SHORT_RUN,
    runsDir: tempDir(),
  });
  guard.assertClean([report.app.pid]);
  return report;
}

const top = (r: ReportV1): string =>
  r.lines
    .slice(0, 5)
    .map(
      (l) =>
        `${path.relative(TS_APP, l.file)}:${l.line} ${l.ownPct}% ${l.function}${l.generated ? ` (from ${path.relative(TS_APP, l.generated.file)}:${l.generated.line})` : ''}`,
    )
    .join('\n');

test(
  'tsc with --inlineSourceMap: the hot line is src/hot.ts:53, generated in out-tsc/hot.js',
  RUN_TEST_TIMEOUT,
  async () => {
    assert.match(
      fs.readFileSync(path.join(TSC_OUT, 'hot.js'), 'utf8'),
      /\/\/# sourceMappingURL=data:application\/json;base64,/,
      'tsc wrote an inline map',
    );
    const report = await profile('out-tsc/server.js');
    const first = report.lines[0];
    assert.ok(first, 'the report has hot lines');
    assert.equal(first.file, HOT_TS, top(report));
    assert.equal(first.line, 53, top(report));
    assert.equal(first.generated?.file, path.join(TSC_OUT, 'hot.js'), top(report));
    assert.ok(
      report.functions.some((f) => f.name === 'checksum' && f.file === HOT_TS),
      'the function is named at its .ts position',
    );
  },
);

test(
  'one esbuild bundle with an inline map: the hot line is src/hot.ts:53, generated in the bundle',
  RUN_TEST_TIMEOUT,
  async () => {
    const report = await profile('out-bundle/server.js');
    const first = report.lines[0];
    assert.ok(first, 'the report has hot lines');
    assert.equal(first.file, HOT_TS, top(report));
    assert.equal(first.line, 53, top(report));
    assert.equal(first.generated?.file, path.join(BUNDLE_OUT, 'server.js'), top(report));
    assert.ok(
      !report.lines.some((l) => l.file.startsWith(BUNDLE_OUT) && l.ownPct >= 5),
      `no cost left on the bundle itself:\n${top(report)}`,
    );
  },
);
