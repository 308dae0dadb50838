// Profiles of other formats in the flame graph page, in Debian's chromium (flame-harness.ts): each
// is prepared as the extension prepares it (src/core/profile-files/formats.ts: recognised, a --prof log
// converted by this node's --prof-process --preprocess, named for speedscope's importer), handed
// over as a dropped file, and must draw: the page says `loaded` and speedscope's own search finds a
// frame the profile is known to hold. Needs the build: node esbuild.mjs first.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { prepareForFlame } from '../../src/core/profile-files/index.ts';
import { makeProfLog } from '../helpers/prof-log.ts';
import { FlameHarness, ROOT, profileMessage } from './flame-harness.ts';

const FORMATS = path.join(ROOT, 'test', 'fixtures', 'formats');
let harness: FlameHarness;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-flame-formats-'));
before(async () => {
  harness = await FlameHarness.start();
});
after(async () => {
  await harness?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Loads `file` as the extension would, then finds `frame` with speedscope's search (Ctrl+F, Enter → detail panel). */
async function draws(file: string, frame: string, detail: RegExp, shot: string, named = true): Promise<void> {
  const input = await prepareForFlame(file, { nodePath: process.execPath });
  const p = await harness.open('vscode-dark');
  assert.deepEqual(await p.messages(1), [{ type: 'ready' }]);
  const { reply } = await p.load(profileMessage(input.name, input.data));
  assert.deepEqual(reply, { type: 'loaded' }, `${input.name} loaded`);
  // speedscope titles a perf profile by its command and thread ("node tid: 5879"), the others by file name.
  if (named) assert.ok((await p.call<string>('text')).includes(input.name), 'its name is in the toolbar');
  assert.ok(input.data.includes(frame.replace(/^JS:\*/, '')), `${input.name} holds ${frame} at all`);
  await p.search(frame, detail);
  await p.screenshot(shot);
  assert.deepEqual(p.pageErrors, [], 'uncaught errors in the page');
  await p.page.context().close();
}

test('a V8 heap profile (.heapprofile) draws, with its allocating function', { timeout: 60_000 }, async () => {
  await draws(
    path.join(FORMATS, 'heap-app.heapprofile'),
    'makeRows',
    /makeRows[\s\S]*heap-app\/server\.js/,
    'format-heapprofile',
  );
});

test(
  'a node --prof log (converted by --prof-process --preprocess) draws, with its JS function',
  { timeout: 120_000 },
  async () => {
    await draws(makeProfLog(tmp), 'fib', /fib[\s\S]*prof-busy\.js/, 'format-prof-log');
  },
);

test('perf script output draws, with native and JIT frames', { timeout: 60_000 }, async () => {
  await draws(path.join(FORMATS, 'node-busy.perf.txt'), 'JS:*fib', /JS:\*fib/, 'format-perf-script', false);
});
