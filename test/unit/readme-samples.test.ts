// README's sample outputs (a run, a comparison, a gate) add up: every percentage can be recomputed
// from the figures printed beside it, within the rounding of what is shown. The samples are real
// runs of examples/login-api (`npm run demo`, then the same with HASH_MODE=async and `hotline
// compare`) and of the CI recipe's test app; their numbers change from run to run, their
// arithmetic may not. The checks themselves are tried on lines that do not add up (the README's
// former verify sample among them), so a check that cannot fail fails here.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

const README = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');

/** The fenced blocks of a Markdown text, without their fences. */
function blocks(md: string): string[] {
  return [...md.matchAll(/^```[a-z]*\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

function sample(start: RegExp, what: string): string {
  const found = blocks(README).filter((b) => start.test(b));
  assert.equal(found.length, 1, `README has one ${what} sample (a block matching ${start})`);
  return found[0];
}

/** A printed figure and half its last shown digit: "5.0" → 5 ± 0.05, "−72" → −72 ± 0.5. */
interface Shown {
  value: number;
  half: number;
}
function shown(text: string): Shown {
  const t = text.replace('−', '-').replace(/^\+/, '');
  assert.match(t, /^-?\d+(\.\d+)?$/, `not a number: ${text}`);
  const decimals = t.includes('.') ? t.split('.')[1].length : 0;
  return { value: Number(t), half: 0.5 * 10 ** -decimals };
}

/** The range of (b − a) ÷ |a| in percent over every value the shown a and b may stand for. */
function changeRange(a: Shown, b: Shown): [number, number] {
  const out: number[] = [];
  for (const x of [a.value - a.half, a.value + a.half])
    for (const y of [b.value - b.half, b.value + b.half]) if (x !== 0) out.push(((y - x) / Math.abs(x)) * 100);
  return [Math.min(...out), Math.max(...out)];
}

const overlaps = (p: Shown, [lo, hi]: [number, number]): boolean =>
  p.value + p.half >= lo - 1e-9 && p.value - p.half <= hi + 1e-9;

/** `A → B (P%)` (units ms, s or %): P is the change from A to B. Throws when it is not. */
function checkChange(line: string): void {
  const m = /([−+]?[\d.]+)(?: ?(?:ms|s|%))? → ([−+]?[\d.]+)(?: ?(?:ms|s|%))? \(([−+]?[\d.]+)%/.exec(line);
  assert.ok(m, `no "A → B (P%)" in: ${line}`);
  const [a, b, p] = [shown(m[1]), shown(m[2]), shown(m[3])];
  const range = changeRange(a, b);
  assert.ok(
    overlaps(p, range),
    `${line.trim()}\n  ${m[3]}% is not the change from ${m[1]} to ${m[2]} (${range.map((x) => x.toFixed(2)).join('% to ')}%)`,
  );
}

/** `A → B  (D)`: D is B − A. */
function checkDelta(line: string): void {
  const m = /([\d.]+) → ([\d.]+)\s+\(([−+][\d.]+)/.exec(line);
  assert.ok(m, `no "A → B (D)" in: ${line}`);
  const [a, b, d] = [shown(m[1]), shown(m[2]), shown(m[3])];
  assert.ok(
    Math.abs(b.value - a.value - d.value) <= a.half + b.half + d.half + 1e-9,
    `${line.trim()}\n  ${m[3]} is not ${m[2]} − ${m[1]}`,
  );
}

/** `[lo%, hi%]` after a verdict: "within noise" holds no change, "better"/"worse" does not. */
function checkVerdict(line: string): void {
  const m = /(better|worse|within noise) \[([−+]?[\d.]+)%, ([−+]?[\d.]+)%\]/.exec(line);
  if (!m) return;
  const [lo, hi] = [shown(m[2]).value, shown(m[3]).value];
  assert.ok(lo <= hi, line);
  const holdsZero = lo <= 0 && hi >= 0;
  assert.equal(holdsZero, m[1] === 'within noise', `${line.trim()}: "${m[1]}" with the interval [${lo}, ${hi}]`);
}

const num = (text: string, re: RegExp, what: string): Shown => {
  const m = re.exec(text);
  assert.ok(m, `no ${what} (${re}) in the sample`);
  return shown(m[1].replace(/,/g, ''));
};

/**
 * A gate line: its change is of its two figures, its estimate lies in its interval, and its outcome
 * fits: ok only when the interval's worse end is within the limit, REGRESSED only when the whole
 * interval is on the worse side and the estimate past the limit (src/core/verdicts/gate.ts).
 */
function checkGateLine(line: string): void {
  checkChange(line);
  const m =
    /\(([−+][\d.]+)%(?:; estimate ([−+][\d.]+)%)? [\d.]+% \[([−+]?[\d.]+)%, ([−+]?[\d.]+)%\], limit ([−+])(\d+)%\)\s+(.*)$/.exec(
      line,
    );
  assert.ok(m, `a gate line with its interval and limit: ${line}`);
  const estimate = shown(m[2] ?? m[1]).value;
  const [lo, hi] = [shown(m[3]).value, shown(m[4]).value];
  assert.ok(lo <= estimate && estimate <= hi, `${line}: the estimate lies in its interval`);
  const limit = Number(m[6]);
  // Slowdowns: req/s is worse downwards, the others upwards.
  const down = m[5] === '−';
  const [least, most, est] = down ? [-hi, -lo, -estimate] : [lo, hi, estimate];
  if (m[7] === 'ok') assert.ok(most <= limit, `${line}: ok, but the interval reaches past ${limit}%`);
  if (m[7] === 'REGRESSED')
    assert.ok(least > 0 && est > limit, `${line}: REGRESSED, but not wholly slower and past ${limit}%`);
}

test('the checks fail on figures that do not add up', () => {
  // README's verify sample before this test: 1346 → 2109 ms is +56.7%, not +16.9%.
  assert.throws(() => checkChange('  latency p50      1346 ms → 2109 ms (+16.9% within noise [−64.8%, +288.8%])'));
  assert.throws(() => checkChange('  req/s            14.8 → 22.2 (+40%)  better [+1%, +110.6%]'));
  assert.throws(() => checkDelta('  cheaper  52.1 → 0.000  (−43.4)  checkPassword'));
  assert.throws(() => checkVerdict('  CPU/request      50.0 ms → 43.6 ms (−12.8%)  better [−32.3%, +16.4%]'));
  assert.throws(() => checkVerdict('  req/s            14.8 → 22.2 (+50%)  within noise [+1%, +110.6%]'));
  assert.throws(() => checkGateLine('gate: cpu/request 3.6 → 1.1 (−69.4% 98.3% [−74.5%, +6.3%], limit +5%)  ok'));
  assert.throws(() => checkGateLine('gate: req/s       200 → 150 (−25% 98.3% [−40%, +2%], limit −5%)  REGRESSED'));
  assert.throws(() => checkGateLine('gate: cpu/request 3.6 → 1.1 (−60% 98.3% [−74.5%, −65.3%], limit +5%)  ok'));
  // …and pass on the rounding of what is shown.
  checkGateLine('gate: req/s       200 → 150 (−25% 98.3% [−40%, −12%], limit −5%)  REGRESSED');
  checkChange('  CPU/request      50.0 ms → 43.6 ms (−12.8%)  within noise [−32.3%, +16.4%]');
  checkDelta('  ~noise   0.764 → 1.6  (+0.807 [+52%, +178%])');
});

test('the run sample: req/s from requests and seconds, errors, shares of the CPU, the top line', () => {
  const run = sample(/^Hotline run /, 'profile');
  const seconds = num(run, /^Load \(profiler off, ([\d.]+) s\)/m, 'the measured window');
  const rps = num(run, /^\s+([\d.]+) req\/s\s+\d+ requests/m, 'req/s');
  const requests = num(run, /^\s+[\d.]+ req\/s\s+(\d+) requests/m, 'requests').value;
  const perSecond: [number, number] = [
    requests / (seconds.value + seconds.half),
    requests / (seconds.value - seconds.half),
  ];
  assert.ok(overlaps(rps, perSecond), `${rps.value} req/s is not ${requests} requests in ${seconds.value} s`);

  const statuses = [...(/status (\S+)/.exec(run)?.[1] ?? '').matchAll(/\d{3}×(\d+)/g)].map((m) => Number(m[1]));
  assert.equal(
    statuses.reduce((a, b) => a + b, 0),
    requests,
    'the statuses add up to the requests',
  );
  const errors = num(run, /errors (\d+)/, 'errors').value;
  const timeouts = num(run, /timeouts (\d+)/, 'timeouts').value;
  const refused = /! (\d+) connection errors/.exec(run);
  assert.equal(errors, timeouts + (refused ? Number(refused[1]) : 0), 'errors = timeouts + connection errors');
  const countedAt = /\((\d+) timed-out requests are counted/.exec(run);
  if (countedAt) assert.equal(Number(countedAt[1]), timeouts);
  const spread = /alternating: ([\d.]+)–([\d.]+) req\/s across the measured ones/.exec(run);
  if (spread) assert.ok(Number(spread[1]) <= rps.value && rps.value <= Number(spread[2]), spread[0]);

  const where = /^Where the CPU went \(of (\d+) ms non-idle\)(.*?)·\s+idle/m.exec(run);
  assert.ok(where, 'a "Where the CPU went" line');
  const shares = [...where[2].matchAll(/([\d.]+)%/g)].map((m) => shown(m[1]));
  const total = shares.reduce((a, s) => a + s.value, 0);
  const slack = shares.reduce((a, s) => a + s.half, 0);
  assert.ok(Math.abs(total - 100) <= slack + 1e-9, `the categories add up to ${total}%, not 100%`);

  const hot = [...run.matchAll(/^\s+([\d.]+)% \S*\s+\S+:\d+ /gm)].map((m) => shown(m[1]));
  assert.ok(hot.length >= 1, 'hot lines');
  assert.ok(hot.reduce((a, s) => a + s.value, 0) <= 100, 'own times add up to at most 100%');
  for (let i = 1; i < hot.length; i++) assert.ok(hot[i].value <= hot[i - 1].value, 'hot lines by own time');
  const busy = /^\s+\(% of the (\d+) ms of busy CPU; the top line costs [\d.]+ ms\/request · (\d+)% of a core\)/m.exec(
    run,
  );
  assert.ok(busy, 'the busy-CPU line under the hot lines');
  assert.equal(busy[1], where[1], 'the hot lines are of the same non-idle time');
  // The top line's share of a core: its share of the busy CPU over the profile's length.
  const profileS = num(run, /^Profile\s+([\d.]+) s,/m, 'the profile length');
  const nonIdleMs = Number(where[1]);
  const core: [number, number] = [
    ((hot[0].value - hot[0].half) * nonIdleMs) / ((profileS.value + profileS.half) * 1000),
    ((hot[0].value + hot[0].half) * nonIdleMs) / ((profileS.value - profileS.half) * 1000),
  ];
  assert.ok(
    overlaps(shown(busy[2]), core),
    `${busy[2]}% of a core is not ${hot[0].value}% of ${nonIdleMs} ms in ${profileS.value} s`,
  );
  const hint = /blocks the event loop in (\d+)% of non-idle samples/.exec(run);
  if (hint) assert.ok(overlaps(shown(hint[1]), [hot[0].value - hot[0].half, hot[0].value + hot[0].half]), hint[0]);

  // The prose under the sample quotes it.
  for (const figure of [`${rps.value} req/s`, `${requests} requests in ${seconds.value} s`, `${hot[0].value}%`])
    assert.ok(README.includes(figure), `README's reading of the run quotes ${figure}`);
});

test('the verify sample: each change is of the two figures beside it, each verdict fits its interval', () => {
  const cmp = sample(/^Hotline compare /, 'compare');
  const changes = cmp.split('\n').filter((l) => / → .*\([−+]?[\d.]+%\)/.test(l));
  assert.ok(changes.length >= 5, 'req/s, latency, CPU/request, … with their changes');
  for (const line of changes) {
    checkChange(line);
    checkVerdict(line);
  }
  const deltas = cmp.split('\n').filter((l) => /^\s+(cheaper|costlier|~noise)\s/.test(l));
  assert.ok(deltas.length >= 1, 'a line of your code, base → now');
  for (const line of deltas) checkDelta(line);
  // The worked example in the prose: "(22.2 − 14.8) ÷ 14.8 = +50%".
  const worked = /\(([\d.]+) − ([\d.]+)\) ÷ ([\d.]+) = ([−+][\d.]+)%/.exec(README);
  assert.ok(worked, 'README works one percentage out');
  assert.equal(worked[2], worked[3]);
  checkChange(`${worked[2]} → ${worked[1]} (${worked[4]}%)`);
  assert.ok(cmp.includes(`${worked[2]} → ${worked[1]} (${worked[4]}%)`), 'the worked example is from the sample');
});

test('the gate sample: each change is of its two figures, each outcome fits its interval and limit', () => {
  const gate = sample(/^hotline: gate: /m, 'gate');
  const figures = gate.split('\n').filter((l) => /^hotline: gate: (cpu\/request|req\/s|latency p99)\s+[\d.]/.test(l));
  assert.ok(figures.length >= 2, 'the gated figures');
  for (const line of figures) checkGateLine(line);
  const verdict = /^hotline: gate: (pass|FAIL|INCONCLUSIVE) /m.exec(gate);
  assert.ok(verdict, 'the verdict line');
  const outcomes = figures.map((l) => /\)\s+(\S+)/.exec(l.slice(l.lastIndexOf('limit')))?.[1]);
  if (verdict[1] === 'pass')
    assert.ok(
      outcomes.every((o) => o === 'ok' || o === 'not'),
      outcomes.join(', '),
    );
  if (verdict[1] === 'FAIL') assert.ok(outcomes.includes('REGRESSED'), outcomes.join(', '));
});
