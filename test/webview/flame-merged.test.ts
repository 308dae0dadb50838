// The merged copy of a big .cpuprofile (src/core/flame-merge*.ts) in the flame graph page, in
// Debian's chromium (flame-harness.ts): written as the extension writes it, fetched by URL as the
// extension sends it. speedscope must show the same Sandwich table (total and self time per
// function) for the merged copy as for the original, find a known frame with its search, and
// draw a big profile fast. Needs the build: node esbuild.mjs first.
// HOTLINE_FLAME_BIG=1 also merges and loads a 100 MB profile (bench/gen-profile.ts);
// HOTLINE_FLAME_BIG=1000,2000 (sizes in MB) loads those sizes instead, for files too big for one
// string (a 1 GB or 2 GB .cpuprofile: only its merged copy can be shown).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { generateProfile } from '../../bench/gen-profile.ts';
import { writeMergedCopy } from '../../src/extension/flame/flame-merge-file.ts';
import { FlameHarness, LOGIN_PROFILE, type FlamePage } from './flame-harness.ts';

let harness: FlameHarness;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-flame-merged-'));
before(async () => {
  harness = await FlameHarness.start();
});
after(async () => {
  await harness?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

type Rows = string[][];

/** Loads the profile served as `name`; returns the page and the ms until the page said loaded. */
async function show(name: string, bytes: Buffer, timeoutMs = 120_000): Promise<{ p: FlamePage; ms: number }> {
  const p = await harness.open('vscode-dark');
  assert.deepEqual(await p.messages(1), [{ type: 'ready' }]);
  const { reply, ms } = await p.load({ type: 'profile', name, url: harness.serve(name, bytes) }, timeoutMs);
  assert.deepEqual(reply, { type: 'loaded' }, `${name} loaded`);
  return { p, ms };
}

/** speedscope's own search (Ctrl+F, Enter) selects the frame: its detail panel shows. */
async function finds(p: FlamePage, frame: string, detail: RegExp): Promise<void> {
  await p.search(frame, detail);
  await p.page.keyboard.press('Escape');
}

/** The whole Sandwich table, sorted by name (its own order breaks ties arbitrarily). */
async function sandwich(p: FlamePage): Promise<Rows> {
  await p.page.keyboard.press('3');
  const rows = await p.until<Rows>('sandwichRows', (r) => r.length > 5, 'sandwich rows');
  return rows
    .map((r) => r.join(' | '))
    .sort()
    .map((r) => r.split(' | '));
}

function merged(file: string): Buffer {
  const out = path.join(tmp, `${path.basename(file)}.speedscope.json`);
  writeMergedCopy(file, out, `${path.basename(file)} (stacks merged)`);
  return fs.readFileSync(out);
}

test(
  'a real profile merged: the same Sandwich as the original, its frames found by search',
  { timeout: 120_000 },
  async () => {
    const original = await show('login-api.cpuprofile', fs.readFileSync(LOGIN_PROFILE));
    const expected = await sandwich(original.p);
    await original.p.page.context().close();

    const { p } = await show('login-api.cpuprofile.speedscope.json', merged(LOGIN_PROFILE));
    const text = await p.call<string>('text');
    assert.ok(
      text.includes('profile.cpuprofile (stacks merged)'),
      `the toolbar says the stacks are merged: ${text.slice(0, 200)}`,
    );
    await finds(p, 'pbkdf2Sync', /pbkdf2Sync[\s\S]*node:internal\/crypto\/pbkdf2/);
    await p.screenshot('merged-left-heavy-pbkdf2Sync');
    assert.deepEqual(await sandwich(p), expected, 'total and self time per function, as speedscope shows them');
    assert.deepEqual(p.pageErrors, [], 'uncaught errors in the page');
    assert.deepEqual(p.consoleErrors, [], 'console errors in the page');
    await p.page.context().close();
  },
);

async function bigMerged(mb: number, t: { diagnostic: (s: string) => void }): Promise<void> {
  const file = path.join(tmp, `big-${mb}mb.cpuprofile`);
  generateProfile(file, mb * 1e6);
  const start = Date.now();
  const bytes = merged(file);
  const mergeMs = Date.now() - start;
  const { p, ms } = await show(path.basename(file) + '.speedscope.json', bytes, 300_000);
  // A frame of the generator's: the most sampled stacks start at one of a few handlers.
  await finds(p, '(garbage collector)', /\(garbage collector\)/);
  await p.screenshot(`merged-${mb}mb`);
  assert.deepEqual(p.pageErrors, [], 'uncaught errors in the page');
  await p.page.context().close();
  t.diagnostic(
    `${mb} MB .cpuprofile: merged in ${(mergeMs / 1000).toFixed(1)} s to ${(bytes.length / 1e6).toFixed(1)} MB, drawn ${(ms / 1000).toFixed(1)} s after postMessage of its URL`,
  );
}

// How long it takes is printed, not asserted (a busy machine would fail it); bench/editor-latency.ts measures it.
test('a ~20 MB profile merged is drawn', { timeout: 300_000 }, async (t) => {
  await bigMerged(20, t);
});

const bigSizes = (process.env.HOTLINE_FLAME_BIG ?? '')
  .split(',')
  .map(Number)
  .filter((mb) => mb > 1);
for (const mb of bigSizes.length > 0 ? bigSizes : [100])
  test(
    `a ~${mb} MB profile merged is drawn`,
    { skip: !process.env.HOTLINE_FLAME_BIG && 'set HOTLINE_FLAME_BIG=1', timeout: 1_800_000 },
    async (t) => {
      await bigMerged(mb, t);
    },
  );
