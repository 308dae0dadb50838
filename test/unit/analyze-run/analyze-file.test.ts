// analyzeFile on a run folder analyzed again later: the run's own sources.json is the text it ran,
// so an edit made since (two lines added above the hot line) neither moves nor hides its costs.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { analyzeFile } from '../../../src/core/index.ts';
import { buildProfile } from '../../helpers/profiles.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-analyze-file-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const SRC = [
  'function hot() {',
  '  let x = 0;',
  '  for (let i = 0; i < 1e6; i++) x += i;',
  '  return x;',
  '}',
  '',
].join('\n');
const app = path.join(dir, 'app.js');
const runDir = path.join(dir, '.hotline', 'runs', 'r1');
fs.mkdirSync(runDir, { recursive: true });
fs.writeFileSync(
  path.join(runDir, 'profile.cpuprofile'),
  JSON.stringify(
    buildProfile([{ name: 'hot', file: app, line0: 0, col0: SRC.indexOf('('), self: 10, ticks: [[3, 10]] }]),
  ),
);

test('with the run’s sources.json: costs on the lines the run analyzed, though the file changed since', () => {
  fs.writeFileSync(app, `// added\n// added\n${SRC}`);
  fs.writeFileSync(path.join(runDir, 'sources.json'), JSON.stringify({ [app]: SRC }));
  const { analysis, sources } = analyzeFile(path.join(runDir, 'profile.cpuprofile'), dir);
  assert.equal(analysis.lines.find((l) => l.file === app)?.line, 3);
  assert.equal(sources.get(app), SRC, 'the snapshot the editor maps edits from is the text the run ran');
  assert.deepEqual(
    analysis.notes.filter((n) => n.includes('not the text')),
    [],
  );
});

test('without it: the changed file is left out, with a note, rather than lit on the wrong line', () => {
  fs.writeFileSync(app, `// added\n// added\n${SRC}`);
  fs.rmSync(path.join(runDir, 'sources.json'), { force: true });
  const { analysis } = analyzeFile(path.join(runDir, 'profile.cpuprofile'), dir);
  assert.deepEqual(
    analysis.lines.filter((l) => l.file === app),
    [],
  );
  assert.match(analysis.notes.join('\n'), /is not the text this profile ran/);
});
