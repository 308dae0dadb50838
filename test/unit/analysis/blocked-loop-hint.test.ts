// The blocked-loop hint (src/core/analysis/hints/blocked-loop.ts) on recorded runs
// (test/fixtures/runs): it fires on a pure-JS hot loop that holds the event loop (the heap app's
// makeRows, a loop busy 98% of the time; the stall app's busy-wait, stalled on), with what the
// line costs per request and the evidence; not on an app whose loop is mostly idle (the login
// API's async fix), not on a line a sync-API rule names, not on a line of a small share.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { analyzeRunDir } from '../../../src/core/index.ts';
import { blockedLoopHints, type BlockedLoopInput } from '../../../src/core/analysis/index.ts';
import type { ReportV1 } from '../../../src/core/report/index.ts';
import { recordedReport, recordedRun, removeRecordedRuns } from '../../helpers/recorded.ts';

after(() => removeRecordedRuns());

/** The hint's input as the analysis builds it from a report (analyze-run/analyze-stalls.ts). */
function inputOf(r: ReportV1, hints = r.hints.filter((h) => h.rule !== 'blocked-loop')): BlockedLoopInput {
  const p = r.load?.profiled;
  return {
    lines: r.lines,
    stalls: r.stalls ?? [],
    stallThresholdMs: r.eventLoop?.stalls?.thresholdMs,
    utilization: r.eventLoop?.utilization,
    requests: p ? (p.requests.total ?? p.requests.perSecond * p.durationS) : undefined,
    hints,
  };
}

test('the heap app: makeRows holds a loop busy 98% of the time; the hint names its cost per request and the fixes', () => {
  const r = recordedReport('heap-app');
  const top = r.lines[0];
  assert.equal(top.function, 'makeRows', 'the recorded run is what it claims');
  assert.ok(r.eventLoop!.utilization >= 0.9);
  const hints = blockedLoopHints(inputOf(r));
  assert.ok(hints.length >= 1);
  const h = hints[0];
  assert.equal(h.rule, 'blocked-loop');
  assert.deepEqual([h.file, h.line, h.function], [top.file, top.line, 'makeRows']);
  assert.equal(h.totalPct, top.ownPct);
  const req = inputOf(r).requests!;
  const per = top.ownMs / req;
  assert.match(h.message, new RegExp(`${per < 1 ? per.toFixed(2) : per.toFixed(1)} ms of CPU per request`));
  assert.match(h.message, /serves no other request/);
  assert.match(h.message, /busy 98% of the measured time/);
  assert.doesNotMatch(h.message, /stalled/, 'no stall was measured in this run: none is claimed');
  for (const fix of [/algorithm/, /cache/, /worker_threads/, /setImmediate/]) assert.match(h.fix, fix);
  // Every line it names is a real share of the busy time, mostly its own JavaScript, one per function.
  for (const x of hints) {
    const line = r.lines.find((l) => l.file === x.file && l.line === x.line)!;
    assert.ok(x.totalPct >= 10, `${x.line}: ${x.totalPct}%`);
    assert.ok(line.selfMs >= line.ownMs * 0.25, `${x.line}: its own JavaScript, not a call it makes`);
  }
  assert.equal(hints.filter((x) => x.function === 'makeRows').length, 1, 'makeRows once, on its hottest line');
  // The request handler's line: 10% of the busy time but nearly all of it in calls into Node.
  const handler = r.lines.find((l) => l.function === 'http.createServer callback' && l.ownPct >= 10);
  assert.ok(handler && handler.selfMs < handler.ownMs * 0.25, 'the recorded run has such a line');
  assert.ok(!hints.some((x) => x.line === handler.line));
});

test('the stall app: the stalls on the busy-wait line are the evidence; its periodic rule keeps the line when it fired', () => {
  const r = recordedReport('stall-timeline');
  const periodic = r.hints.find((h) => h.rule === 'periodic-stall');
  assert.ok(periodic, 'the recorded run has its periodic-stall hint');
  assert.ok(r.eventLoop!.utilization < 0.9, 'the loop alone is no evidence here');
  // With the periodic hint there, the line is that rule's.
  assert.deepEqual(
    blockedLoopHints(inputOf(r)).filter((h) => h.line === periodic.line),
    [],
  );
  // Stalls on the line that are not periodic (a saturated server: one request after another).
  const hints = blockedLoopHints(inputOf(r, []));
  const h = hints.find((x) => x.line === periodic.line);
  assert.ok(h, JSON.stringify(hints));
  const onLine = r.stalls!.filter((s) =>
    s.lines.some((l) => l.line === periodic.line && l.ownMs >= s.durationMs * 0.2),
  );
  assert.ok(onLine.length >= 2);
  const longest = Math.round(Math.max(...onLine.map((s) => s.durationMs)));
  assert.match(
    h.message,
    new RegExp(`stalled ${onLine.length} times of 50 ms or more on this line, the longest ${longest} ms`),
  );
  assert.doesNotMatch(h.message, /busy \d+% of the measured time/);
});

test('no hint where the loop is mostly idle (the async fix of the login API), nor on a sync API line or a small share', () => {
  const idle = recordedReport('login-async');
  assert.ok(idle.eventLoop!.utilization < 0.5);
  assert.ok(idle.lines[0].ownPct >= 10, 'a line of a big share, but the loop is free');
  assert.deepEqual(blockedLoopHints(inputOf(idle)), []);

  const sync = recordedReport('login-sync');
  assert.equal(sync.hints[0].rule, 'crypto-sync');
  const found = blockedLoopHints(inputOf(sync));
  assert.ok(!found.some((h) => h.line === sync.hints[0].line), 'pbkdf2Sync has its own rule');
  for (const h of found) assert.ok(h.totalPct >= 10);
  // The same busy loop with every line below the share: nothing.
  const small = { ...inputOf(sync), lines: sync.lines.map((l) => ({ ...l, ownPct: Math.min(l.ownPct, 9.9) })) };
  assert.deepEqual(blockedLoopHints(small), []);
});

test('analyzing the heap app run folder now puts the hint in report.json, after the rules that were there', () => {
  const before = recordedReport('heap-app');
  const now = analyzeRunDir(recordedRun('heap-app'), before.app.cwd);
  const h = now.hints.find((x) => x.rule === 'blocked-loop');
  assert.ok(h, JSON.stringify(now.hints.map((x) => x.rule)));
  assert.equal(h.function, 'makeRows');
  assert.ok(
    now.hints.some((x) => x.rule === 'gc-pressure'),
    'the GC hint stays',
  );
});
