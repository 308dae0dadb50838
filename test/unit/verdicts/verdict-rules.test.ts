// The verify step's rules (issue 24) on recorded runs: the captured login-api report (pbkdf2Sync
// on server.js:35) with the sub-windows a real run recorded (test/fixtures/sub-windows), changed
// by pure edits into the pairs a user makes — another URL, a changed line, a run too short, the
// same code twice, a fix that did not move the request's cost.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { compareReports } from '../../../src/core/verdicts/compare.ts';
import { isRemovedLine } from '../../../src/core/verdicts/compare-rows.ts';
import { comparabilityOf, IncomparableError } from '../../../src/core/verdicts/comparable.ts';
import type { ReportV1, SubWindowFigures } from '../../../src/core/report/schema.ts';
import { checkedComparison } from '../../../src/cli/baseline.ts';
import { renderComparison } from '../../../src/cli/render-comparison.ts';
import { summarise } from '../../../src/extension/runs/baseline-summary.ts';
import { FIXTURES_DIR, fixtureReport } from '../../helpers/fixtures.ts';

const recorded = JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, 'sub-windows', 'json-api.json'), 'utf8')) as {
  subWindows: { measured: SubWindowFigures[]; profiled: SubWindowFigures[] };
};
/**
 * The recorded sub-windows (a JSON API's) scaled to the login run's CPU per request, so that a
 * line's ms per request and the request's CPU are of one app; their spread is kept.
 */
const loginCpuMsPerRequest = ((): number => {
  const r = fixtureReport('login-api', 'a');
  return (r.eventLoop!.cpu! * r.load!.durationS * 1000) / r.load!.requests.total;
})();
const scaled = (ws: SubWindowFigures[]): SubWindowFigures[] => {
  const mean = ws.reduce((t, w) => t + w.cpuMsPerRequest!, 0) / ws.length;
  return ws.map((w) => ({ ...w, cpuMsPerRequest: (w.cpuMsPerRequest! * loginCpuMsPerRequest) / mean }));
};
const measured = scaled(recorded.subWindows.measured);
const profiledWindows = scaled(recorded.subWindows.profiled);

/** The captured login run with the recorded sub-windows (all of them, or the first n). */
function run(
  id: string,
  windows: SubWindowFigures[] = measured,
  edit: (r: ReportV1) => void = () => undefined,
): ReportV1 {
  const r = structuredClone(fixtureReport('login-api', id));
  r.load!.subWindows = { measured: structuredClone(windows), profiled: structuredClone(profiledWindows) };
  edit(r);
  return r;
}

const o = { cwd: FIXTURES_DIR, color: false };

describe('comparable pairs', () => {
  test('the same request twice: nothing refused, nothing named', () => {
    assert.deepEqual(comparabilityOf(run('a'), run('b')), { refusals: [], notes: [] });
  });

  test('another query, method, body, app, Node or connections: refused with the difference named', () => {
    const cases: Array<[string, (r: ReportV1) => void, RegExp]> = [
      ['query', (r) => (r.settings.url = '/login?page=2'), /^URL \/login vs \/login\?page=2$/],
      ['method', (r) => (r.settings.method = 'GET'), /^method POST vs GET$/],
      ['body', (r) => (r.settings.body = '{"u":"b"}'), /^body \(none\) vs "\{\\"u\\":\\"b\\"\}"$/],
      ['app', (r) => (r.settings.entry = 'other.js'), /^app .* vs other\.js$/],
      ['Node', (r) => (r.app.node = 'v22.1.0'), /^Node v20\.20\.0 vs v22\.1\.0$/],
      ['connections', (r) => (r.settings.connections = 50), /^connections 20 vs 50$/],
    ];
    for (const [what, edit, named] of cases) {
      const base = run('a', measured, (r) => (r.app.node = 'v20.20.0'));
      const current = run('b', measured, (r) => {
        r.app.node = 'v20.20.0';
        edit(r);
      });
      const { refusals } = comparabilityOf(base, current);
      assert.equal(refusals.length, 1, `${what}: ${refusals.join('; ')}`);
      assert.match(refusals[0], named, what);
      assert.throws(
        () => checkedComparison(base, current, false),
        (err: unknown) =>
          err instanceof IncomparableError && !err.message.includes('\n') && err.message.includes('--force'),
      );
    }
  });

  test('the port of a full URL is the run’s own: not a difference', () => {
    const current = run('b', measured, (r) => (r.settings.url = 'http://127.0.0.1:4123/login'));
    assert.deepEqual(comparabilityOf(run('a'), current).refusals, []);
  });

  test('duration and sampling interval are named, the verdict stays', () => {
    const current = run('b', measured, (r) => {
      r.settings.durationS = 20;
      r.settings.samplingIntervalUs = 500;
    });
    const c = checkedComparison(run('a'), current, false);
    assert.deepEqual(c.differences, ['duration 3 s vs 20 s', 'sampling interval 1000 µs vs 500 µs']);
    assert.match(renderComparison(c, o), /the runs differ in: duration 3 s vs 20 s; sampling interval/);
  });

  test('--force compares anyway and marks every verdict', () => {
    const current = run('b', measured, (r) => (r.settings.url = '/logout'));
    const text = renderComparison(checkedComparison(run('a'), current, true), o);
    assert.match(text, /FORCED: the runs are not comparable \(URL \/login vs \/logout\)/);
    const verdictRows = text
      .split('\n')
      .filter((l) => /within noise|better|worse|too short/.test(l) && !/FORCED/.test(l));
    assert.ok(verdictRows.length >= 4, text);
    for (const l of verdictRows) assert.match(l, /\(forced\)/, l);
  });
});

describe('too short to tell', () => {
  const short = measured.slice(0, 2);
  const c = compareReports(
    run('a', short),
    run('b', measured.slice(2, 4), (r) => (r.lines[0].ownMs *= 0.5)),
  );

  test('every load row with 2 sub-windows a side says so, not better or worse', () => {
    const l = c.load!;
    for (const d of [l.requestsPerSecond, l.latencyMs.p50, l.latencyMs.p99, l.cpuPerRequestMs!])
      assert.equal(d.noise?.verdict, 'too short', JSON.stringify(d));
    assert.equal(c.eventLoop!.utilization.noise?.verdict, 'too short');
    const text = renderComparison(c, o);
    assert.match(text, /req\/s .* too short to tell \(2 sub-windows a side; use --duration ≥ 8\)/);
    assert.doesNotMatch(
      text
        .split('\n')
        .filter((x) => /req\/s|latency|CPU\/request/.test(x))
        .join('\n'),
      /better|worse/,
    );
  });

  test('a line the profile calls cheaper is too short to tell as well', () => {
    const row = c.lines.find((x) => x.line === 35)!;
    assert.equal(row.verdict, 'too short');
  });
});

describe('identical code', () => {
  test('the same run twice: no line or function row, every figure within noise', () => {
    const c = compareReports(run('a'), run('b', [...measured].reverse()));
    assert.deepEqual([c.lines.length, c.functions.length], [0, 0]);
    const l = c.load!;
    for (const d of [l.requestsPerSecond, l.latencyMs.p50, l.latencyMs.p99, l.cpuPerRequestMs!, l.errors, l.timeouts])
      assert.equal(d.noise?.verdict, 'within noise', JSON.stringify(d));
    assert.doesNotMatch(renderComparison(c, o), /better|worse|cheaper|costlier/);
  });
});

describe('a changed line is one row', () => {
  // The fix a user tries on the hot line: its code changes, its cost does not (bcryptjs's async
  // compare still hashes on the main thread).
  const changed = run('b', measured, (r) => {
    const hot = r.lines.find((x) => x.line === 35)!;
    hot.code = 'const hash = await pbkdf2Async(password, user.salt, 10000, 512);';
    hot.ownMs *= 1.01;
  });
  const c = compareReports(run('a'), changed);

  test('before → after in one row, not a vanished line and a new one', () => {
    const rows = c.lines.filter((x) => x.name === 'checkPassword');
    assert.equal(rows.length, 1, JSON.stringify(rows));
    const [row] = rows;
    assert.equal(row.codeChanged?.baseLine, 35);
    assert.match(row.codeChanged?.before ?? '', /pbkdf2Sync/);
    assert.match(row.codeChanged?.after ?? '', /pbkdf2Async/);
    assert.ok(row.base > 20 && row.current > 20, JSON.stringify(row));
    assert.notEqual(row.verdict, 'better');
    assert.doesNotMatch(renderComparison(c, o), /cheaper/);
  });

  test('the toast claims no saving: the request’s CPU did not move', () => {
    const toast = summarise(c);
    assert.doesNotMatch(toast, /checkPassword −/, toast);
  });

  test('a line moved by edits above it still meets its old self', () => {
    const shifted = run('c', measured, (r) => {
      for (const x of r.lines) if (x.function === 'checkPassword') x.line += 3;
    });
    assert.equal(compareReports(run('a'), shifted).lines.length, 0);
  });
});

describe('a saving the request does not carry', () => {
  // The profile puts half the hot line's cost away, but the measured CPU per request is the same
  // in both runs (the recorded sub-windows): no saving is claimed on the line.
  const c = compareReports(
    run('a'),
    run('b', [...measured].reverse(), (r) => (r.lines[0].ownMs *= 0.5)),
  );

  test('the row is within noise and says why', () => {
    const row = c.lines.find((x) => x.line === 35)!;
    assert.ok(row.change < 0);
    assert.equal(row.verdict, 'within noise');
    assert.equal(row.heldBack, true);
    assert.match(renderComparison(c, o), /~noise .* \(the request did not move with it\)/);
  });

  test('the toast names no saving', () => {
    assert.doesNotMatch(summarise(c), /checkPassword/);
  });

  test('when CPU per request did fall beyond its noise, the line’s saving stands', () => {
    const cheaper = measured.map((w) => ({ ...w, cpuMsPerRequest: w.cpuMsPerRequest! * 0.5 }));
    const d = compareReports(
      run('a'),
      run('b', cheaper, (r) => (r.lines[0].ownMs *= 0.5)),
    );
    assert.equal(d.load!.cpuPerRequestMs!.noise!.verdict, 'better');
    assert.equal(d.lines.find((x) => x.line === 35)!.verdict, 'better');
  });
});

describe('a call wrapped in a promise: its cost leaves the line, not the request', () => {
  // pbkdf2Sync moved into a setImmediate callback (an "async" form that still runs on the main
  // thread): server.js:35 costs nothing now, line 115 what it cost, and the request's CPU is a
  // lower beyond its noise (15%, every sub-window alike; the line cost all of it and more) with the loop saturated in both.
  const wrapped = (r: ReportV1): void => {
    const hot = r.lines.find((x) => x.line === 35)!;
    r.lines.push({ ...hot, line: 115, function: 'setImmediate callback', code: 'setImmediate(() => …)' });
    r.lines = r.lines.filter((x) => x !== hot);
    for (const f of r.functions) if (f.name === 'checkPassword') f.name = 'setImmediate callback';
    r.hints = r.hints.map((h) => ({ ...h, line: 115, function: 'setImmediate callback' }));
    r.eventLoop!.utilization = 1;
  };
  const base = run('a', measured, (r) => (r.eventLoop!.utilization = 1));
  const slightlyCheaper = measured.map((w) => ({ ...w, cpuMsPerRequest: w.cpuMsPerRequest! * 0.85 }));
  const c = compareReports(base, run('b', slightlyCheaper, wrapped));

  test('the request is somewhat cheaper, the line’s whole cost is not claimed', () => {
    assert.equal(c.load!.cpuPerRequestMs!.noise!.verdict, 'better');
    const row = c.lines.find((x) => x.line === 35)!;
    assert.ok(row.base > 10 && row.current === 0, JSON.stringify(row));
    // Its work moved to line 115 (the same callee): the work's own change is the verdict.
    assert.equal(row.verdict, 'within noise');
    assert.equal(row.moved?.to?.line, 115, JSON.stringify(row));
    assert.doesNotMatch(summarise(c), /checkPassword −/, summarise(c));
  });

  test('the hint stays on the changed line and says where the work went', () => {
    assert.equal(c.keptHints?.length, 1, JSON.stringify(c.keptHints));
    const [h] = c.keptHints!;
    assert.equal(h.line, 35);
    assert.match(h.message, /did not make the request cheaper/);
    assert.match(h.message, /now runs at server\.js:115/);
    assert.match(summarise(c), /server\.js:35 still blocks the event loop/);
  });

  // A saturated loop's turns batch the work differently once the hash runs from setImmediate: its
  // delay p99 came out 5% shorter beyond its noise in an e2e run, and that once carried the line's
  // whole saving into the toast ("checkPassword −30 ms/request").
  const delayed = (ws: SubWindowFigures[], ms: number): SubWindowFigures[] =>
    ws.map((w, i) => ({ ...w, loopIntervalP99Ms: ms * (1 + 0.01 * (i % 3)) }));
  const baseDelay = run('a', delayed(measured, 600), (r) => (r.eventLoop!.utilization = 1));

  test('a loop delay a few % shorter does not carry a line that was the whole request', () => {
    const d = compareReports(baseDelay, run('b', delayed(measured, 570), wrapped));
    assert.equal(d.eventLoop!.p99.noise!.verdict, 'better', JSON.stringify(d.eventLoop!.p99));
    const row = d.lines.find((x) => x.line === 35)!;
    assert.equal(row.verdict, 'within noise');
    assert.equal(row.moved?.to?.line, 115, JSON.stringify(row));
    assert.doesNotMatch(summarise(d), /checkPassword −/, summarise(d));
  });

  test('a line that was 0.5% of the request, cheaper beside that loop, is not named in the toast', () => {
    // As in the same e2e run: a line of the route handler sampled in the base run only (0.16 ms
    // a request), carried by the loop delay's 5%, was named as the saving.
    const small = (r: ReportV1): void => {
      const hot = r.lines.find((x) => x.line === 35)!;
      const ms = hot.ownMs * 0.005;
      r.lines.push({ ...hot, line: 65, function: 'handler', code: 'return res.status(400)', ownMs: ms, totalMs: ms });
    };
    const d = compareReports(
      run('a', delayed(measured, 600), (r) => {
        r.eventLoop!.utilization = 1;
        small(r);
      }),
      run('b', delayed(measured, 570), wrapped),
    );
    // The row itself stands (the report lists it), the toast does not lead with it.
    const row = d.lines.find((x) => x.line === 65)!;
    assert.equal(row.verdict, 'better', JSON.stringify(row));
    assert.doesNotMatch(summarise(d), /handler −/, summarise(d));
    assert.match(summarise(d), /server\.js:35 still blocks the event loop/, summarise(d));
  });

  test('a loop freed of the hash (moved to the threadpool) carries its saving', () => {
    const pooled = (r: ReportV1): void => {
      r.lines = r.lines.filter((x) => x.line !== 35);
      r.eventLoop!.utilization = 0.2;
    };
    const d = compareReports(baseDelay, run('b', delayed(measured, 14), pooled));
    assert.equal(d.eventLoop!.p99.noise!.verdict, 'better');
    const row = d.lines.find((x) => x.line === 35)!;
    assert.equal(row.verdict, 'better', JSON.stringify(row));
    assert.match(summarise(d), /checkPassword −\d+/, summarise(d));
  });
});

describe('the texts both runs analyzed say which line a fix rewrote', () => {
  // The e2e's fix that does not help: line 35's pbkdf2Sync wrapped in a promise run from
  // setImmediate (appended below), so the new line 35 costs microseconds and may get no sample,
  // while line 36 (unchanged) was sampled in this run only. By code and place alone, 36 passes for
  // 35's new code; the diff of the two texts (sources.json) says it is not.
  const file = path.join(FIXTURES_DIR, 'login-api', 'server.js');
  const before = fs.readFileSync(file, 'utf8');
  const syncCall = "const hash = crypto.pbkdf2Sync(password, user.salt, 10000, 512, 'sha512');";
  const wrapper =
    '\nfunction pbkdf2Later(password, salt, iterations, keylen, digest) {\n  return new Promise((resolve) => setImmediate(() => resolve(crypto.pbkdf2Sync(password, salt, iterations, keylen, digest))));\n}\n';
  const after =
    before.replace(syncCall, "const hash = await pbkdf2Later(password, user.salt, 10000, 512, 'sha512');") + wrapper;
  const wrapperLine = after.split('\n').findIndex((l) => l.includes('setImmediate(() => resolve')) + 1;
  const base = run('a', measured, (r) => {
    r.lines = r.lines.filter((x) => !(x.function === 'checkPassword' && x.line === 36));
  });
  const current = run('b', measured, (r) => {
    const hot = r.lines.find((x) => x.line === 35)!;
    const kept = r.lines.find((x) => x.line === 36)!;
    r.lines.push({
      ...hot,
      line: wrapperLine,
      function: 'setImmediate callback',
      code: after.split('\n')[wrapperLine - 1].trim(),
    });
    r.lines = r.lines.filter((x) => x !== hot);
    kept.ownMs = 0.4;
  });
  const texts = { base: new Map([[file, before]]), current: new Map([[file, after]]) };

  test('by code and place alone, the unchanged line sampled only now is taken for the new code', () => {
    const row = compareReports(base, current).lines.find((x) => x.codeChanged?.baseLine === 35);
    assert.equal(row?.line, 36, JSON.stringify(row));
  });

  test('with the texts, the row is line 35 with its new code, and 36 is a line of its own', () => {
    const c = compareReports(base, current, undefined, texts);
    const rows = c.lines.filter((x) => x.codeChanged?.baseLine === 35);
    assert.equal(rows.length, 1, JSON.stringify(c.lines));
    const [row] = rows;
    assert.equal(row.line, 35);
    assert.match(row.codeChanged?.after ?? '', /await pbkdf2Later/);
    assert.match(row.codeChanged?.before ?? '', /pbkdf2Sync/);
    assert.equal(row.current, 0);
    assert.ok(row.base > 10, JSON.stringify(row));
    const other = c.lines.find((x) => x.line === 36);
    assert.ok(other && other.codeChanged === undefined, JSON.stringify(other));
  });

  test('a header rewritten with its call (async function), sampled only now, is not the call’s new code', () => {
    // The e2e's edit rewrites lines 34 and 35 together; a run that samples the new async header
    // (34) and not the wrapped call (35) once paired 34 with the old call.
    const header = 'function checkPassword(user, password) {';
    assert.equal(before.split('\n')[33]?.trim(), header, 'the fixture has the header on line 34');
    const both = before.replace(header, `async ${header}`);
    const after2 =
      both.replace(syncCall, "const hash = await pbkdf2Later(password, user.salt, 10000, 512, 'sha512');") + wrapper;
    const current2 = run('b', measured, (r) => {
      const hot = r.lines.find((x) => x.line === 35)!;
      r.lines.push({ ...hot, line: 34, ownMs: 0.3, totalMs: 0.3, code: `async ${header}` });
      r.lines = r.lines.filter((x) => x !== hot);
    });
    const c = compareReports(base, current2, undefined, {
      base: new Map([[file, before]]),
      current: new Map([[file, after2]]),
    });
    const rows = c.lines.filter((x) => x.codeChanged?.baseLine === 35);
    assert.equal(rows.length, 1, JSON.stringify(c.lines));
    assert.equal(rows[0].line, 35, JSON.stringify(rows[0]));
    assert.match(rows[0].codeChanged?.after ?? '', /await pbkdf2Later/);
  });

  test('lines moved down by an edit above: no two rows read one place; a deleted line says removed', () => {
    // Two sampled lines of the handler; the edit adds two lines above them and deletes the second.
    // The first, sampled only in the base, is shown where its code is now (not under the number
    // another line has now, itself sampled only now); the second is "removed, was :N".
    const lines = before.split('\n');
    const [keptLine, goneLine] = [72, 73];
    const codeOf = (n: number): string => lines[n - 1].trim();
    assert.ok(codeOf(keptLine) && codeOf(goneLine) && codeOf(keptLine - 2), 'the fixture has code on lines 70–73');
    const edited = [...lines.slice(0, 39), '  const a = 1;', '  const b = 2;', ...lines.slice(39)];
    edited.splice(goneLine - 1 + 2, 1);
    const after3 = edited.join('\n');
    const sampled = (r: ReportV1, at: Array<[number, string]>): void => {
      const like = r.lines.find((x) => x.function !== 'checkPassword')!;
      r.lines = r.lines.filter((x) => x.function === 'checkPassword');
      for (const [line, code] of at) r.lines.push({ ...like, line, code, ownMs: 2, totalMs: 2, callees: [] });
    };
    const b = run('a', measured, (r) =>
      sampled(r, [
        [keptLine, codeOf(keptLine)],
        [goneLine, codeOf(goneLine)],
      ]),
    );
    // Now the number keptLine holds what was two lines above it, sampled in this run only.
    const c3 = run('b', measured, (r) => sampled(r, [[keptLine, codeOf(keptLine - 2)]]));
    const c = compareReports(b, c3, undefined, { base: new Map([[file, before]]), current: new Map([[file, after3]]) });
    const places = c.lines.filter((x) => x.file === file && x.name !== 'checkPassword').map((x) => x.line);
    assert.equal(new Set(places).size, places.length, `one row per place: ${JSON.stringify(c.lines)}`);
    const kept = c.lines.find((x) => x.base > 0 && x.current === 0 && !x.codeChanged && x.name !== 'checkPassword');
    assert.equal(kept?.line, keptLine + 2, JSON.stringify(kept));
    const gone = c.lines.find((x) => x.codeChanged?.baseLine === goneLine);
    assert.ok(gone && isRemovedLine(gone), JSON.stringify(gone));
    assert.equal(gone.codeChanged?.before, codeOf(goneLine));
    assert.match(renderComparison(c, o), new RegExp(`removed \\(was :${goneLine} `));
  });

  test('files whose text is the same in both runs are never paired', () => {
    const same = { base: new Map([[file, before]]), current: new Map([[file, before]]) };
    const c = compareReports(base, current, undefined, same);
    assert.equal(c.lines.filter((x) => x.codeChanged).length, 0, JSON.stringify(c.lines));
  });
});

describe('errors have a noise test', () => {
  test('3 errors against none in 1700 requests: within noise; 40: worse', () => {
    const few = compareReports(
      run('a'),
      run('b', measured, (r) => (r.load!.errors = 3)),
    );
    assert.equal(few.load!.errors.noise?.verdict, 'within noise');
    const many = compareReports(
      run('a'),
      run('b', measured, (r) => (r.load!.errors = 40)),
    );
    assert.equal(many.load!.errors.noise?.verdict, 'worse');
  });
});

describe('a fix that did not move the cost keeps its hint', () => {
  const base = run('a');
  const changed = run('b', [...measured].reverse(), (r) => {
    const hot = r.lines.find((x) => x.line === 35)!;
    hot.code = 'const hash = await pbkdf2Async(password, user.salt, 10000, 512);';
    r.hints = []; // the analysis no longer recognises the call
  });

  test('the base run’s hint, reworded, on the changed line', () => {
    assert.equal(base.hints.length, 1);
    const c = compareReports(base, changed);
    assert.equal(c.keptHints?.length, 1, JSON.stringify(c.keptHints));
    const [h] = c.keptHints!;
    assert.equal(h.line, 35);
    assert.equal(h.rule, 'fix-did-not-help');
    assert.match(
      h.message,
      /^still blocks the event loop: the change to this line \(was .*pbkdf2Sync.*\) did not move its cost/,
    );
    assert.match(
      renderComparison(c, o),
      /Hints kept: the line changed, the request did not get cheaper\n {2}login-api\/server\.js:35 {2}checkPassword: still blocks/,
    );
    assert.match(summarise(c), /server\.js:35 still blocks the event loop/);
  });

  test('a fix that took the cost away drops it', () => {
    const cheaper = measured.map((w) => ({ ...w, cpuMsPerRequest: w.cpuMsPerRequest! * 0.3 }));
    const fixed = run('b', cheaper, (r) => {
      const hot = r.lines.find((x) => x.line === 35)!;
      hot.code = 'const hash = await pbkdf2Async(password, user.salt, 10000, 512);';
      hot.ownMs *= 0.05;
      r.hints = [];
      r.eventLoop!.utilization = 0.3;
    });
    assert.equal(compareReports(base, fixed).keptHints, undefined);
  });
});

describe('loop delay has a noise test', () => {
  // The timer's interval p99 per sub-window (delay + its 10 ms): the recorded windows' utilisation
  // stands in for a spread of a few %, the same values reordered for identical code.
  const withLate = (k: number): SubWindowFigures[] =>
    measured.map((w, i) => ({ ...w, loopIntervalP99Ms: (60 + 4 * ((i * 3) % 5)) * k }));

  test('the same delays in another order: within noise; 3× later: worse', () => {
    const same = compareReports(run('a', withLate(1)), run('b', [...withLate(1)].reverse()));
    assert.equal(same.eventLoop!.p99.noise?.verdict, 'within noise');
    const later = compareReports(run('a', withLate(1)), run('b', withLate(3)));
    assert.equal(later.eventLoop!.p99.noise?.verdict, 'worse');
    assert.match(renderComparison(later, o), /loop delay p99 .* worse \[/);
  });

  test('two sub-windows a side: too short to tell; runs without the figure: no spread, no word', () => {
    const short = compareReports(run('a', withLate(1).slice(0, 2)), run('b', withLate(3).slice(0, 2)));
    assert.equal(short.eventLoop!.p99.noise?.verdict, 'too short');
    const old = compareReports(
      run('a'),
      run('b', measured, (r) => (r.eventLoop!.delayMs.p99 *= 2)),
    );
    assert.equal(old.eventLoop!.p99.noise, undefined);
    assert.match(renderComparison(old, o), /loop delay p99 .*\(no spread: not judged\)/);
  });
});

describe('the loop freed carries a line’s saving', () => {
  test('CPU per request the same, the loop’s busy share down beyond its noise: the saving stands', () => {
    // pbkdf2Sync → pbkdf2 on the threadpool: the same CPU, the main thread freed.
    const freed = measured.map((w, i) => ({ ...w, utilization: 0.2 + 0.01 * i }));
    const c = compareReports(
      run(
        'a',
        measured.map((w) => ({ ...w, utilization: 1 })),
      ),
      run('b', freed, (r) => (r.lines[0].ownMs *= 0.1)),
    );
    assert.equal(c.eventLoop!.utilization.noise?.verdict, 'better');
    const row = c.lines.find((x) => x.line === 35)!;
    assert.equal(row.verdict, 'better');
    assert.equal(row.heldBack, undefined);
  });
  test('on a starved machine the loop stays busy but stops stalling: its delay p99 carries the saving', () => {
    // Saturated in both runs (req/s and latency then follow the machine's CPU, not the code), the
    // same CPU per request: only the loop's delay says the hash left it.
    const late = (k: number): SubWindowFigures[] =>
      measured.map((w, i) => ({ ...w, utilization: 1, loopIntervalP99Ms: (60 + 4 * ((i * 3) % 5)) * k }));
    const c = compareReports(
      run('a', late(4), (r) => (r.eventLoop!.utilization = 1)),
      run('b', late(1), (r) => {
        r.eventLoop!.utilization = 1;
        r.lines[0].ownMs *= 0.1;
      }),
    );
    assert.equal(c.load!.saturated, true);
    assert.equal(c.eventLoop!.p99.noise?.verdict, 'better');
    assert.equal(c.lines.find((x) => x.line === 35)!.verdict, 'better');
  });
});
