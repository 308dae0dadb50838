// lens-text.ts: number formatting, lens titles, decoration labels and hover markdown, on hand-made
// costs and on the committed login-api capture.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FunctionCost, Hint, LineCost } from '../../src/core/analysis/model.ts';
import {
  LENS_MIN_OWN_PCT,
  code,
  decorationLabel,
  formatMs,
  formatPct,
  functionHoverMarkdown,
  functionLensText,
  isDecoratedLine,
  isHoverLine,
  isLensFunction,
  isLensLine,
  lineHoverMarkdown,
  lineLensText,
  where,
  type TextContext,
} from '../../src/server/lens-text.ts';
import { analyzeFixture } from '../helpers/fixtures.ts';

// 2 s of wall time and 1000 requests: 812 ms is 0.81 ms per request and 41% of a core.
const ctx: TextContext = { nonIdleMs: 2000, underLoad: true, root: '/app', capacity: { wallMs: 2000, requests: 1000 } };

const line = (over: Partial<LineCost> = {}): LineCost => ({
  file: '/app/server.js',
  line: 35,
  function: 'checkPassword',
  ownMs: 812,
  ownPct: 40.6,
  selfMs: 0,
  totalMs: 812,
  selfPct: 0,
  totalPct: 40.6,
  callees: [],
  ...over,
});
const fn = (over: Partial<FunctionCost> = {}): FunctionCost => ({
  name: 'checkPassword',
  file: '/app/server.js',
  line: 34,
  column: 22,
  endLine: 37,
  category: 'user',
  selfMs: 12,
  totalMs: 1860,
  selfPct: 0.6,
  totalPct: 93,
  callers: [],
  callees: [],
  ...over,
});
const hint: Hint = {
  rule: 'crypto-sync',
  file: '/app/server.js',
  line: 35,
  api: 'crypto.pbkdf2Sync',
  function: 'checkPassword',
  totalMs: 1860,
  totalPct: 93,
  message: '`crypto.pbkdf2Sync` in `checkPassword` blocks the event loop in 93% of non-idle samples',
  fix: 'use crypto.pbkdf2',
};

describe('formatting', () => {
  test('ms below a second, then seconds with one decimal', () => {
    assert.equal(formatMs(0), '0 ms');
    assert.equal(formatMs(0.01), '<0.1 ms');
    assert.equal(formatMs(1.1), '1.1 ms');
    assert.equal(formatMs(9.96), '10 ms');
    assert.equal(formatMs(812.4), '812 ms');
    assert.equal(formatMs(999.6), '1.0 s');
    assert.equal(formatMs(1860), '1.9 s');
    assert.equal(formatMs(123456), '123 s');
    assert.equal(formatMs(Number.NaN), '0 ms');
  });

  test('percentages without decimals from 10%', () => {
    assert.equal(formatPct(0), '0%');
    assert.equal(formatPct(0.01), '<0.1%');
    assert.equal(formatPct(0.93), '0.9%');
    assert.equal(formatPct(2.1), '2.1%');
    assert.equal(formatPct(9.96), '10%');
    assert.equal(formatPct(40.6), '41%');
    assert.equal(formatPct(95.34), '95%');
  });

  test('code spans survive backticks; paths are shown relative to the app', () => {
    assert.equal(code('run'), '`run`');
    assert.equal(code('a`b'), '``a`b``');
    assert.equal(code('`x'), '`` `x ``');
    assert.equal(where('/app/lib/a.js', 3, '/app'), 'lib/a.js:3');
    assert.equal(where('/elsewhere/a.js', 3, '/app'), '/elsewhere/a.js:3');
    assert.equal(where('node:internal/crypto/pbkdf2', 62, '/app'), 'node:internal/crypto/pbkdf2:62');
    assert.equal(where('', 0, '/app'), '(native)');
  });
});

describe('lens and decoration texts', () => {
  test('function: total and self, per request and of a core', () => {
    assert.equal(functionLensText(fn(), ctx), 'total 1.9 ms/request (93% of a core) · self 0.01 ms/request');
    assert.equal(functionLensText(fn(), { capacity: { wallMs: 2000 } }), 'total 1.9 s (93% of a core) · self 12 ms');
  });

  test('hot line: what it costs of the capacity, blocking with a hint', () => {
    assert.equal(
      lineLensText(line({ ownPct: 93 }), hint, ctx),
      '0.81 ms/request · 41% of a core · blocks the event loop',
    );
    assert.equal(
      lineLensText(line({ ownPct: 93 }), hint, { capacity: { wallMs: 2000 } }),
      '812 ms · 41% of a core · blocks the event loop',
    );
    assert.equal(lineLensText(line(), undefined, ctx), 'own 0.81 ms/request · 41% of a core');
    assert.equal(decorationLabel(line(), ctx.capacity), '■ 0.81 ms/request');
  });

  test('a mostly idle app: its top line is 66% of the busy time but a few % of a core, and says so', () => {
    // After the fix: 336 ms of 512 ms non-idle in a 10 s profile of 5000 requests.
    const cool = line({ ownMs: 336, ownPct: 66 });
    assert.equal(
      lineLensText(cool, undefined, { capacity: { wallMs: 10_000, requests: 5000 } }),
      'own 0.07 ms/request · 3.4% of a core',
    );
  });

  test('thresholds: one sample does not make a lens', () => {
    assert.ok(isLensLine(line({ ownPct: LENS_MIN_OWN_PCT })));
    assert.ok(!isLensLine(line({ ownPct: 0.04 })));
    assert.ok(isDecoratedLine(line({ ownPct: 0.93 })));
    assert.ok(!isDecoratedLine(line({ ownPct: 0.04 })));
    assert.ok(isHoverLine(line({ ownPct: 0, totalPct: 95 })), 'a call-site line with costly calls has a hover');
    assert.ok(isLensFunction(fn()));
    assert.ok(!isLensFunction(fn({ totalPct: 0.5 })));
    assert.ok(!isLensFunction(fn({ endLine: undefined })), 'no source range, no lens');
    assert.ok(!isLensFunction(fn({ category: 'dependencies' })));
  });
});

describe('hover', () => {
  test('own/self/total, callees with inferred call sites, callers, the generated position, the hint and its fix', () => {
    const md = lineHoverMarkdown(
      {
        line: line({
          callees: [
            { name: 'pbkdf2Sync', file: 'node:internal/crypto/pbkdf2', line: 62, totalMs: 800, inferred: true },
          ],
          generated: { file: '/app/dist/server.js', line: 80 },
        }),
        fn: fn({ callers: [{ name: "app.post('/login') callback", file: '/app/server.js', line: 62, totalMs: 1860 }] }),
        hints: [hint],
      },
      ctx,
    );
    assert.match(md, /\| own \| 812 ms \| 41% \|/);
    assert.match(md, /\| self \| 0 ms \| 0% \|/);
    assert.match(md, /\| total \| 812 ms \| 41% \|/);
    assert.match(md, /- `pbkdf2Sync` `node:internal\/crypto\/pbkdf2:62` — 800 ms \(40%\) · \*inferred call site\*/);
    assert.match(
      md,
      /Callers of `checkPassword`:\n\n- `app\.post\('\/login'\) callback` `server\.js:62` — 1\.9 s \(93%\)/,
    );
    assert.match(md, /Generated code: `dist\/server\.js:80`/);
    assert.doesNotMatch(
      md,
      /blocks the event loop in/,
      "the hint's message is the diagnostic's: VS Code shows it in the same hover",
    );
    // The lens's words are, though: the hover says no less than the lens.
    assert.match(md, /Of the app's capacity: [^\n]* · blocks the event loop\./);
    assert.match(md, /\*\*Fix:\*\* use crypto\.pbkdf2/);
    assert.match(md, /non-idle CPU time \(2\.0 s under load\)/);
  });

  test('a line whose callees were given by V8 does not say "inferred"', () => {
    const md = lineHoverMarkdown(
      { line: line({ callees: [{ name: 'timingSafeEqual', file: '', line: 0, totalMs: 1 }] }), hints: [] },
      ctx,
    );
    assert.doesNotMatch(md, /inferred/i);
    assert.match(md, /`timingSafeEqual` `\(native\)`/);
  });

  test('function hover', () => {
    const md = functionHoverMarkdown(fn(), ctx);
    assert.match(md, /function `checkPassword`/);
    assert.match(md, /total 1\.9 s \(93%\) · self 12 ms \(0\.6%\)/);
  });

  test('the login-api capture: the pbkdf2Sync line', () => {
    const a = analyzeFixture('login-api');
    const hot = a.lines.find((l) => l.line === 35);
    assert.ok(hot);
    const h = a.hints.find((x) => x.line === 35);
    const capacity = { wallMs: a.durationMs };
    assert.match(lineLensText(hot, h, { capacity }), /^2\.\d s · 9\d% of a core · blocks the event loop$/);
    const checkPassword = a.functions.find((f) => f.name === 'checkPassword');
    assert.ok(checkPassword && isLensFunction(checkPassword));
    assert.match(functionLensText(checkPassword, { capacity }), /^total 2\.9 s \(9\d% of a core\) · self /);
    const md = lineHoverMarkdown(
      { line: hot, fn: checkPassword, hints: h ? [h] : [] },
      { nonIdleMs: a.nonIdleMs, underLoad: true, root: '/', capacity },
    );
    assert.match(md, /`pbkdf2Sync`.*inferred call site/);
  });
});

describe('child-process lines', () => {
  test('lens and hover: a share of the child processes’ CPU, the split by process, no capacity figure', () => {
    const l = line({
      ownMs: 2000,
      ownPct: 66,
      thread: 'process',
      processes: [
        { pid: 4102, ownMs: 1100 },
        { pid: 4101, ownMs: 900 },
      ],
    });
    assert.equal(lineLensText(l, undefined, ctx), 'own 2.0 s (66% of child processes)');
    const hover = lineHoverMarkdown({ line: l, hints: [] }, { ...ctx, processesNonIdleMs: 3000 });
    assert.match(hover, /· child processes/);
    assert.match(hover, /By process: 4102 1\.1 s · 4101 900 ms/);
    assert.match(hover, /Percentages are of non-idle CPU time of the child processes, all processes together \(3\.0 s/);
    assert.doesNotMatch(hover, /capacity/);
  });
});
