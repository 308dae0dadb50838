// Verify's labels per row and the toast's arithmetic, on recorded runs (test/fixtures/runs): a
// row's "better" / "worse" / "within noise" comes from the headline's own test of CPU per request
// widened by the row's sampling error (verdict.ts rowChangeOf), and a row whose work moved to
// another function says where (moved-work.ts) instead of claiming a saving. The pairs: the same
// code measured two days apart (login-sync, noop-base), the demo's real fix (login-sync →
// login-async, the hash to the threadpool), the fix that does not help (noop-base → noop-fix,
// pbkdf2Sync moved into a setImmediate callback) and the tsx app's real fix (tsx-base → tsx-fix).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { compareReports, type Comparison, type CostChange } from '../../src/core/verdicts/compare.ts';
import { rowChangeOf } from '../../src/core/verdicts/verdict.ts';
import { readRunSources } from '../../src/core/store/store.ts';
import { renderComparison } from '../../src/cli/render-comparison.ts';
import { summarise, whereWorkWent } from '../../src/extension/runs/baseline-summary.ts';
import { editNote } from '../../src/mcp/edit-note.ts';
import { Workspace } from '../../src/mcp/workspace.ts';
import { type Recording, recordedReport, recordedRun, removeRecordedRuns } from '../helpers/recorded.ts';

after(removeRecordedRuns);

function compared(base: Recording, current: Recording, withSources = true): Comparison {
  const sources = withSources ? readRunSources(recordedRun(base), recordedRun(current)) : undefined;
  return compareReports(recordedReport(base), recordedReport(current), undefined, sources);
}

const logWidth = (low: number, high: number): number => Math.log(1 + high / 100) - Math.log(1 + low / 100);
const rows = (c: Comparison): CostChange[] => [...c.functions, ...c.lines];
const num = (t: string): number => Number(t.replace('\u2212', '-'));

test('the same code twice: every row within noise, and a row that is the request is no surer than it', () => {
  // login-sync and noop-base: examples/login-api's pbkdf2Sync at server.js:35, recorded two days
  // apart. A line judged beyond noise while the request's CPU was within it (5.7% in an e2e
  // run) is what this guards: the row's interval is the headline's, widened.
  const c = compared('login-sync', 'noop-base', false);
  const cpu = c.load!.cpuPerRequestMs!;
  assert.equal(cpu.noise!.verdict, 'within noise', JSON.stringify(cpu.noise));
  for (const r of rows(c)) assert.equal(r.verdict, 'within noise', JSON.stringify(r));
  const whole = rows(c).filter((r) => r.base >= cpu.base / 2 && r.current > 0);
  assert.ok(whole.length >= 2, 'line 35 and checkPassword are most of the request');
  const headline = logWidth(cpu.noise!.lowPct!, cpu.noise!.highPct!);
  for (const r of whole) {
    assert.ok(r.lowPct !== undefined && r.highPct !== undefined, JSON.stringify(r));
    assert.ok(
      logWidth(r.lowPct, r.highPct) >= headline,
      `${r.name}:${r.line} [${r.lowPct}, ${r.highPct}] vs ${headline}`,
    );
  }
  assert.doesNotMatch(summarise(c), /better|worse|−\d+ ms\/request/, summarise(c));
});

test('rowChangeOf: the headline’s sub-windows decide how sure a row can be', () => {
  const cpu = [40, 39.5, 40.4, 39.9];
  const tight = { ms: 40, pmMs: 0.4, cpu };
  // The same figure from four sub-windows a side: the row's interval is at least the headline's.
  const row = rowChangeOf(tight, { ...tight, ms: 38 });
  assert.ok(row.lowPct! < 0 && row.highPct! > -5, JSON.stringify(row));
  // Fewer than four sub-windows a side: too short, as the headline says.
  assert.equal(rowChangeOf({ ...tight, cpu: cpu.slice(0, 3) }, tight).verdict, 'too short');
  // A cost that appears: real only when it is above 0 beyond its own interval.
  assert.equal(rowChangeOf({ ms: 0, pmMs: 0, cpu }, { ms: 0.5, pmMs: 0.2, cpu }).verdict, 'worse');
  assert.equal(rowChangeOf({ ms: 0, pmMs: 0, cpu }, { ms: 0.05, pmMs: 0.08, cpu }).verdict, 'within noise');
  // A spread of the request's CPU wide enough hides a 20% change of a line that is all of it.
  const wide = [30, 50, 36, 44];
  assert.equal(rowChangeOf({ ms: 40, pmMs: 0.4, cpu: wide }, { ms: 32, pmMs: 0.4, cpu: wide }).verdict, 'within noise');
});

test('the fix that does not help: the work moved to a setImmediate callback, no row claims a saving', () => {
  const c = compared('noop-base', 'noop-fix');
  const cpu = c.load!.cpuPerRequestMs!.noise!;
  const line = c.lines.find((r) => r.line === 35)!;
  assert.equal(line.codeChanged?.baseLine, 35);
  assert.deepEqual([line.moved?.to?.name, line.moved?.to?.line], ['setImmediate callback', 115], JSON.stringify(line));
  // The work's own change is judged, and it goes the headline's way (the runs drifted: CPU +28%).
  assert.equal(line.verdict, cpu.verdict, `${JSON.stringify(line.moved)} vs ${JSON.stringify(cpu)}`);
  const landed = c.lines.find((r) => r.line === 115)!;
  assert.equal(landed.moved?.from?.line, 35);
  // Functions pair as lines do: checkPassword's work went to the callback, the route handler's with it.
  const fn = (name: string): CostChange => c.functions.find((r) => r.name === name)!;
  assert.equal(fn('checkPassword').moved?.to?.name, 'setImmediate callback');
  assert.equal(fn("app.post('/login') callback").moved?.via?.name, 'checkPassword');
  assert.equal(fn('setImmediate callback').moved?.from?.name, 'checkPassword');
  for (const r of rows(c)) if (r.change < 0) assert.notEqual(r.verdict, 'better', JSON.stringify(r));

  // The toast: no saving, the work where it went, its percentage from the two figures it prints.
  const toast = summarise(c, whereWorkWent(recordedReport('noop-base'), recordedReport('noop-fix')));
  assert.doesNotMatch(toast, /−\d+ ms\/request|moved off the main thread/, toast);
  const m =
    /checkPassword's work \(server\.js:35\) moved to setImmediate callback \(server\.js:115\): ([\d.]+) → ([\d.]+) ms\/request \(([+−]\d+)%, (\w[\w ]*)\)/.exec(
      toast,
    );
  assert.ok(m, toast);
  const [b, n] = [Number(m[1]), Number(m[2])];
  assert.equal(num(m[3]), Number((((n - b) / b) * 100).toFixed(0)), toast);
  assert.ok(Math.abs(b - line.moved!.base) < 0.5 && Math.abs(n - line.moved!.current) < 0.5, toast);
  assert.equal(m[4], line.moved!.verdict);
  assert.match(toast, /server\.js:35 still blocks the event loop/);

  // The CLI and the assistant's note say the same.
  const text = renderComparison(c, { cwd: '/', color: false });
  assert.match(text, /moved +41\.5 → 0\.000 .*checkPassword .*its work moved to setImmediate callback .*:115/);
  const ws = new Workspace(recordedRun('noop-base').replace(/\/[^/]+$/, ''));
  const note = editNote(
    ws,
    c,
    recordedReport('noop-base'),
    readRunSources(recordedRun('noop-base'), recordedRun('noop-fix')),
  ).note;
  assert.match(note, /its work moved to setImmediate callback at \S*server\.js:115 and is not a saving/, note);
});

test('the demo’s real fix: the hash left for the threadpool, a saving the loop carries, nothing moved', () => {
  const c = compared('login-sync', 'login-async', false);
  const line = c.lines.find((r) => r.line === 35)!;
  assert.equal(line.verdict, 'better');
  assert.equal(line.moved, undefined, 'pbkdf2 is another callee than pbkdf2Sync: the work left the main thread');
  assert.equal(c.functions.find((r) => r.name === 'checkPassword')?.verdict, 'better');
  for (const r of rows(c).filter((x) => x.verdict === 'better' || x.verdict === 'worse'))
    if (r.base > 0 && r.current > 0)
      assert.ok(r.lowPct! > 0 === r.highPct! > 0, `an interval that excludes 0: ${JSON.stringify(r)}`);
  // The toast: the app's CPU/request and the named saving, and why they differ.
  const toast = summarise(c, whereWorkWent(recordedReport('login-sync'), recordedReport('login-async')));
  const cpu = /CPU\/request ([\d.]+) ms → ([\d.]+) ms \(([+−]\d+)%, ([\w ]+)\)/.exec(toast);
  const saving = /checkPassword (−[\d.]+) ms\/request on the main thread, moved to the threadpool/.exec(toast);
  assert.ok(cpu && saving, toast);
  assert.equal(num(cpu[3]), Number((((Number(cpu[2]) - Number(cpu[1])) / Number(cpu[1])) * 100).toFixed(0)), toast);
  assert.equal(cpu[4], c.load!.cpuPerRequestMs!.noise!.verdict);
  assert.ok(-num(saving[1]) > Number(cpu[1]) - Number(cpu[2]), 'the saving is more than the request fell: said why');
});

test('the tsx app’s real fix: the O(n²) loop rewritten, labels that agree with the request, a toast that adds up', () => {
  // stats.ts's rankOrders counted every other order per order; the fix sorts once. The app runs
  // under tsx (node --import tsx): its TypeScript compiled in memory, mapped through scripts.json.
  const c = compared('tsx-base', 'tsx-fix');
  const cpu = c.load!.cpuPerRequestMs!;
  assert.equal(cpu.noise!.verdict, 'better');
  const loop = c.lines.find((r) => r.codeChanged?.baseLine === 10 && r.file.endsWith('stats.ts'))!;
  assert.ok(loop, JSON.stringify(c.lines));
  assert.equal(loop.verdict, 'better');
  assert.ok(loop.highPct! < 0, JSON.stringify(loop));
  assert.ok(
    rows(c).every((r) => r.moved === undefined),
    'rewritten in place: nothing moved',
  );
  // Every row beyond noise has an interval that excludes 0, and a row judged within noise one that holds it.
  for (const r of rows(c)) {
    if (r.lowPct === undefined || r.highPct === undefined || r.heldBack) continue;
    assert.equal(r.verdict === 'within noise', r.lowPct <= 0 && r.highPct >= 0, JSON.stringify(r));
  }
  // The toast: CPU/request with its percentage from the printed figures and the headline's word;
  // the loop's saving is more than the request's CPU fell, and the toast says why, with the fall.
  const toast = summarise(c, whereWorkWent(recordedReport('tsx-base'), recordedReport('tsx-fix')));
  const head = /CPU\/request ([\d.]+) ms → ([\d.]+) ms \(([+−]\d+)%, better\)/.exec(toast);
  assert.ok(head, toast);
  const [b, n] = [Number(head[1]), Number(head[2])];
  assert.equal(num(head[3]), Number((((n - b) / b) * 100).toFixed(0)), toast);
  const saving =
    /(−[\d.]+) ms\/request with the profiler on, more than the app's CPU\/request fell without it \((−[\d.]+) ms\)/.exec(
      toast,
    );
  assert.ok(saving, toast);
  // The rewritten line is named by its place, not by the new code's function.
  assert.match(toast, /stats\.ts:10 \(rewritten\) −[\d.]+ ms\/request/, toast);
  assert.ok(-num(saving[1]) > -num(saving[2]), toast);
  assert.ok(Math.abs(-num(saving[2]) - (cpu.base - cpu.current)) < 0.01, `${toast} vs ${cpu.base} → ${cpu.current}`);
  assert.ok(Math.abs(-num(saving[1]) + loop.change) < 0.01, toast);
});
