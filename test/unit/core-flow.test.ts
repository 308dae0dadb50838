// The lint rules that keep src/core's flow one way (eslint.config.mjs, CORE_IMPORTS and
// PART_IMPORTS): an import upwards or into a peer folder or part is refused, the same import the
// other way passes, and time/ (read by the webviews) takes only the profile's model files.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { ESLint } from 'eslint';

const REPO = path.resolve(__dirname, '..', '..');
const eslint = new ESLint({ cwd: REPO });

/** The messages of no-restricted-imports for `source` as the file `file` of the repository. */
async function refusals(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: path.join(REPO, file) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const importOf = (from: string): string => `import { x } from '${from}';\nexport const y = x;\n`;
/** Whether lint refuses `import … from 'from'` in the file `file`. */
const refused = async (file: string, from: string): Promise<boolean> =>
  (await refusals(file, importOf(from))).length > 0;

test('an upward import is refused: the profile model imports no analysis', async () => {
  const [message] = await refusals('src/core/profile/new.ts', importOf('../analysis/index.ts'));
  assert.match(message ?? '', /src\/core\/profile\/ imports common\/: the flow goes one way/);
  assert.equal(await refused('src/core/analysis/new.ts', '../profile/index.ts'), false);
});

test('a peer import is refused: the inspector does not load, the load does not inspect', async () => {
  assert.equal(await refused('src/core/inspector/new.ts', '../load/index.ts'), true);
  assert.equal(await refused('src/core/load/new.ts', '../inspector/index.ts'), true);
  assert.equal(await refused('src/core/capture/new.ts', '../load/index.ts'), false);
});

test('the report shape imports no verdict: the comparison stands on the shape, not the other way', async () => {
  assert.equal(await refused('src/core/report/new.ts', '../verdicts/index.ts'), true);
  assert.equal(await refused('src/core/verdicts/new.ts', '../report/index.ts'), false);
});

test('capture imports no analysis, from any depth of the folder tree', async () => {
  assert.equal(await refused('src/core/capture/new.ts', '../analysis/index.ts'), true);
  const deep = await refusals('src/core/analysis/time/new.ts', importOf('../../capture/index.ts'));
  assert.match(deep.join(' '), /src\/core\/analysis\/ imports common\/, profile\//);
});

test('time/, read by the webviews, takes the profile model files and not the readers', async () => {
  const time = 'src/core/analysis/time/new.ts';
  assert.equal(await refused(time, '../../profile/cpuprofile.ts'), false);
  assert.equal(await refused(time, '../../profile/profile-tree.ts'), false);
  assert.equal(await refused(time, '../../profile/index.ts'), true);
  assert.equal(await refused(time, '../../profile/cpuprofile-reader.ts'), true);
  // The exception is time/'s alone: the other parts go through profile/index.ts.
  assert.equal(await refused('src/core/analysis/attribution/new.ts', '../../profile/cpuprofile.ts'), true);
  assert.equal(await refused('src/core/analysis/attribution/new.ts', '../../profile/index.ts'), false);
});

test('inside capture/, the stack captures import neither the extras nor the run above them', async () => {
  assert.equal(await refused('src/core/capture/stacks/new.ts', '../extras/extras.ts'), true);
  assert.equal(await refused('src/core/capture/stacks/new.ts', '../run.ts'), true);
  assert.equal(await refused('src/core/capture/extras/new.ts', '../stacks/stack-sampler.ts'), false);
  assert.equal(await refused('src/core/capture/extras/new.ts', '../../inspector/index.ts'), false);
  assert.equal(await refused('src/core/capture/extras/new.ts', '../../analysis/index.ts'), true);
});

test('inside analysis/, a part imports no peer and nothing above it', async () => {
  assert.equal(await refused('src/core/analysis/attribution/new.ts', '../hints/hints.ts'), true);
  assert.equal(await refused('src/core/analysis/hints/new.ts', '../attribution/costs.ts'), false);
  assert.equal(await refused('src/core/analysis/hints/new.ts', '../analyze.ts'), true);
  assert.equal(await refused('src/core/analysis/hints/new.ts', '../model.ts'), false);
});

test('the editor, the CLI and the server enter the engine by src/core/index.ts, from any depth', async () => {
  assert.equal(await refused('src/extension/views/new.ts', '../../core/analysis/index.ts'), true);
  assert.equal(await refused('src/extension/views/new.ts', '../../core/index.ts'), false);
  assert.equal(await refused('src/cli/new.ts', '../core/verdicts/gate.ts'), true);
  assert.equal(await refused('src/extension/new.ts', '../core/index.ts'), false);
});

test('a folder not yet named in CORE_IMPORTS imports nothing of src/core', async () => {
  assert.equal(await refused('src/core/new-folder/new.ts', '../profile/index.ts'), true);
  assert.equal(await refused('src/core/new-folder/new.ts', './other.ts'), false);
});
