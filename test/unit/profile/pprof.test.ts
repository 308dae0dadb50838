// pprof in: files written by a real producer (@datadog/pprof profiling test/fixtures/pprof-app under
// autocannon load; see test/fixtures/README.md) read into the engine's models. The app's answer is
// known by construction: heavy() and light() cost 2:1 in CPU, bigList() and smallList() hold 2:1
// in live bytes. The profiles name the fleet's path /tmp/fleet/app/, mapped onto the fixture.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as os from 'node:os';
import { gunzipSync, gzipSync } from 'node:zlib';
import { test } from 'node:test';
import { Profile, StringTable, ValueType } from 'pprof-format';
import {
  analyzeFile,
  analyzeHeapProfile,
  looksLikePprof,
  mapHeapProfilePaths,
  parseCpuProfileText,
  parseHeapProfileText,
  parsePathMapping,
  ProfileFormatError,
  readPprofFile,
} from '../../../src/core/index.ts';
import { flameSource } from '../../../src/core/profile-files/index.ts';

const APP = path.resolve(__dirname, '../../fixtures/pprof-app');
const SERVER = path.join(APP, 'server.js');
const FLEET = [parsePathMapping(`/tmp/fleet/app/=${APP}`)];
const SOURCE = fs.readFileSync(SERVER, 'utf8').split('\n');
/** 1-based line of the first line of server.js that holds `text`. */
const lineOf = (text: string): number => SOURCE.findIndex((l) => l.includes(text)) + 1;

const share = (a: number, b: number): number => a / (a + b);

test('a wall profile with lines: the two loop lines are the hot lines, 2:1', () => {
  const { analysis, timeline } = analyzeFile(path.join(APP, 'wall.pb.gz'), APP, { pathMap: FLEET });
  const [first, second] = analysis.lines;
  assert.equal(first.file, SERVER);
  assert.equal(first.line, lineOf('i < 2 * N'));
  assert.equal(second.file, SERVER);
  assert.equal(second.line, lineOf('i < N;'));
  const s = share(first.ownMs, second.ownMs);
  assert.ok(s > 0.6 && s < 0.73, `heavy's share of heavy+light is ${s.toFixed(3)}, expected ≈ 0.667`);
  assert.ok(first.ownPct + second.ownPct > 80, 'the two loops are most of the time');
  // Function heads placed from the source: the functions sit on their declarations.
  const heavy = analysis.functions.find((f) => f.name === 'heavy');
  assert.equal(heavy?.line, lineOf('function heavy('));
  assert.equal(heavy?.category, 'user');
  assert.equal(timeline, undefined, 'pprof has no order of samples in time: no heat map is made up');
  assert.ok(analysis.notes.some((n) => n.includes('pprof (wall/nanoseconds)')));
});

test('a CPU-time profile (frames at function starts): heavy and light 2:1 by function', () => {
  const { analysis } = analyzeFile(path.join(APP, 'cpu.pb.gz'), APP, { pathMap: FLEET });
  const fn = (name: string) => analysis.functions.find((f) => f.name === name && f.file === SERVER);
  const heavy = fn('heavy');
  const light = fn('light');
  assert.ok(heavy && light);
  const s = share(heavy.selfMs, light.selfMs);
  assert.ok(s > 0.6 && s < 0.73, `heavy's share is ${s.toFixed(3)}, expected ≈ 0.667`);
  assert.equal(analysis.lines[0].line, lineOf('function heavy('));
  assert.ok(
    analysis.notes.some((n) => n.includes('pprof (cpu/nanoseconds)')),
    'CPU time is preferred to wall',
  );
});

test('without the path map the fleet paths are not the workspace: no line of it is hot', () => {
  const { analysis } = analyzeFile(path.join(APP, 'wall.pb.gz'), APP);
  assert.equal(analysis.lines.filter((l) => l.file === SERVER).length, 0);
});

test('a heap profile: bytes per function, bigList and smallList 2:1', () => {
  const pprof = readPprofFile(path.join(APP, 'heap.pb.gz'));
  assert.equal(pprof.kind, 'heap');
  if (pprof.kind !== 'heap') return;
  assert.equal(pprof.valueType, 'inuse_space/bytes');
  const heap = analyzeHeapProfile(mapHeapProfilePaths(pprof.profile, FLEET), APP);
  const fn = (name: string) => heap.functions.find((f) => f.name === name && f.file === SERVER);
  const big = fn('bigList');
  const small = fn('smallList');
  assert.ok(big && small);
  assert.equal(big.line, lineOf('function bigList('));
  const s = share(big.selfBytes, small.selfBytes);
  assert.ok(s > 0.6 && s < 0.73, `bigList's share is ${s.toFixed(3)}, expected ≈ 0.667`);
  assert.equal(heap.functions[0].name, 'bigList');
});

test('path maps are FROM=TO prefixes, a slash added on both sides', () => {
  assert.deepEqual(parsePathMapping('/tmp/fleet/app=/w'), { from: '/tmp/fleet/app/', to: '/w/' });
  assert.throws(() => parsePathMapping('/app/'), /FROM=TO/);
  assert.throws(() => parsePathMapping('=/w'), /FROM=TO/);
});

test('what is and is not pprof, and bad pprof in one clear error', () => {
  assert.ok(looksLikePprof(fs.readFileSync(path.join(APP, 'wall.pb.gz'))));
  assert.ok(looksLikePprof(new Uint8Array(gunzipped(path.join(APP, 'wall.pb.gz')))));
  assert.ok(!looksLikePprof(Buffer.from('{"nodes": []}')));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-pprof-'));
  try {
    const broken = path.join(dir, 'broken.pb.gz');
    fs.writeFileSync(broken, Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.from('not gzip at all')]));
    assert.throws(
      () => readPprofFile(broken),
      (e: Error) => e instanceof ProfileFormatError && /gzipped pprof/.test(e.message),
    );
    // A profile of a kind Hotline does not read (goroutines): named, with what it reads.
    const strings = new StringTable();
    const goroutines = new Profile({
      sampleType: [new ValueType({ type: strings.dedup('goroutine'), unit: strings.dedup('count') })],
      stringTable: strings,
    });
    const other = path.join(dir, 'goroutine.pb.gz');
    fs.writeFileSync(other, gzipSync(goroutines.encode()));
    assert.throws(() => readPprofFile(other), /goroutine\/count: Hotline reads CPU or wall time/);
    // A sample naming a location the file lacks.
    const bad = new Profile({
      sampleType: [new ValueType({ type: strings.dedup('samples'), unit: strings.dedup('count') })],
      sample: [{ locationId: [7], value: [3] }],
      stringTable: strings,
    });
    const dangling = path.join(dir, 'dangling.pb');
    fs.writeFileSync(dangling, bad.encode());
    assert.throws(() => readPprofFile(dangling), /location 7, which is not in the file/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

function gunzipped(file: string): Buffer {
  return gunzipSync(fs.readFileSync(file));
}

test('the flame graph gets a pprof file as the .cpuprofile (or .heapprofile) the analysis reads', async () => {
  const cpu = await flameSource(path.join(APP, 'wall.pb.gz'));
  assert.equal(cpu.format, 'pprof');
  assert.equal(cpu.name, 'wall.cpuprofile');
  const profile = parseCpuProfileText(cpu.converted!.toString('utf8'));
  assert.ok(profile.nodes.some((n) => n.callFrame.functionName === 'heavy'));
  assert.ok((profile.samples?.length ?? 0) > 1000, 'one sample per sample the producer took');
  const heap = await flameSource(path.join(APP, 'heap.pb.gz'));
  assert.equal(heap.name, 'heap.heapprofile');
  assert.ok(parseHeapProfileText(heap.converted!.toString('utf8')).head.children.length > 0);
});
