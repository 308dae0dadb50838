// Recognising and preparing profiles of other formats for speedscope (src/extension/profile-formats.ts):
// real captures (test/fixtures/formats), a real `node --prof` log made here by this node, and
// files that are not profiles.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { ProfileFormatError } from '../../../src/core/index.ts';
import { detectFormat, prepareForFlame } from '../../../src/core/profile-files/index.ts';
import { analyzeHeapProfile } from '../../../src/core/analysis/heap/heap.ts';
import { parseHeapProfileText } from '../../../src/core/profile/heap-profile.ts';
import { makeProfLog } from '../../helpers/prof-log.ts';

const FORMATS = path.resolve(__dirname, '..', '..', 'fixtures', 'formats');
const LOGIN_PROFILE = path.resolve(__dirname, '..', '..', 'fixtures', 'login-api', 'profile.cpuprofile');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-formats-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('each format is recognised from its content', () => {
  const head = (file: string): string => fs.readFileSync(file, 'utf8').slice(0, 1 << 20);
  assert.equal(detectFormat(head(LOGIN_PROFILE)), 'cpuprofile');
  assert.equal(detectFormat(head(path.join(FORMATS, 'heap-app.heapprofile'))), 'heapprofile');
  assert.equal(detectFormat(head(path.join(FORMATS, 'node-busy.perf.txt'))), 'perf-script');
  assert.equal(detectFormat('{"hello": "world"}'), undefined);
  assert.equal(detectFormat('just some text\nwith lines\n'), undefined);
  assert.equal(detectFormat(''), undefined);
});

test('a heap profile goes to speedscope as .heapprofile; its analysis names the allocating function', async () => {
  const file = path.join(FORMATS, 'heap-app.heapprofile');
  const input = await prepareForFlame(file);
  assert.equal(input.name, 'heap-app.heapprofile');
  assert.equal(input.format, 'heapprofile');
  const a = analyzeHeapProfile(
    parseHeapProfileText(input.data.toString('utf8')),
    '/work/wt/workers/test/apps/heap-app',
  );
  assert.ok(a.totalBytes > 0);
  assert.equal(a.lines[0]?.function, 'makeRows', JSON.stringify(a.lines.slice(0, 3)));
  // Own bytes never exceed the total, and user lines + the rest add up to it.
  const own = a.lines.reduce((s, l) => s + l.ownBytes, 0);
  assert.ok(Math.abs(own + a.outsideUserBytes - a.totalBytes) < 1, `${own} + ${a.outsideUserBytes} vs ${a.totalBytes}`);
});

test('perf script text goes to speedscope as .linux-perf.txt', async () => {
  const input = await prepareForFlame(path.join(FORMATS, 'node-busy.perf.txt'));
  assert.equal(input.name, 'node-busy.linux-perf.txt');
  assert.equal(input.format, 'perf-script');
});

test(
  "a node --prof log is converted by this node's --prof-process --preprocess into v8 log JSON",
  { timeout: 120_000 },
  async () => {
    const log = makeProfLog(tmp);
    const input = await prepareForFlame(log, { nodePath: process.execPath });
    assert.equal(input.format, 'prof-log');
    assert.match(input.name, /^isolate-.*\.v8log\.json$/);
    const json = JSON.parse(input.data.toString('utf8')) as { code: Array<{ name: string }>; ticks: unknown[] };
    assert.ok(
      Array.isArray(json.code) && json.code.some((c) => /\bfib\b/.test(c.name)),
      'the JS function fib is among the code entries',
    );
    assert.ok(json.ticks.length > 50, `${json.ticks.length} ticks`);
  },
);

test('files that are not profiles get one clear sentence', async () => {
  const notProfile = path.join(tmp, 'notes.txt');
  fs.writeFileSync(notProfile, 'shopping list\n- milk\n');
  await assert.rejects(
    prepareForFlame(notProfile),
    (err: unknown) =>
      err instanceof ProfileFormatError &&
      /notes\.txt is not a profile Hotline can show\. Hotline shows \.cpuprofile/.test(err.message),
  );
  await assert.rejects(prepareForFlame(path.join(tmp, 'missing.cpuprofile')), /Cannot read/);
  // A log that looks like a --prof log but is not one: the converter's failure is reported, not hidden.
  const fake = path.join(tmp, 'isolate-0x1-1-v8.log');
  fs.writeFileSync(fake, 'v8-version,11,3,244,8,0,0\nnonsense\n');
  await assert.rejects(prepareForFlame(fake, { nodePath: process.execPath }), ProfileFormatError);
  await assert.rejects(
    prepareForFlame(makeProfLog(tmp), { nodePath: path.join(tmp, 'no-such-node') }),
    /Cannot run .*no-such-node.*hotline\.nodePath/,
  );
});
