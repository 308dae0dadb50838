// The report page's pure parts, in Node: the message validation, the HTML and its CSP, and the
// path/number formatting.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { buildReport, type EventLoopFigures, type LoadFigures, type ReportV1 } from '../../src/core/report/schema.ts';
import { canOpen, pct, relPath, where } from '../../webview/report/format.ts';
import { reportCsp, reportHtml } from '../../webview/report/html.ts';
import { isReportV1 as isReport } from '../../src/core/report/index.ts';
import { parseToReportView } from '../../webview/report/validate.ts';
import { FIXTURES_DIR, FIXTURE_NAMES, analyzeFixture, type FixtureName } from '../helpers/fixtures.ts';

const SETTINGS = {
  url: '/login',
  method: 'POST',
  headers: {},
  connections: 20,
  pipelining: 1,
  durationS: 3,
  warmupS: 1,
  samplingIntervalUs: 1000,
  timeoutS: 10,
};

/** A report of a captured fixture, built the way a run builds it (as compare.test.ts does). */
function fixtureReport(name: FixtureName, as: FixtureName = name): ReportV1 {
  const loadFile = path.join(FIXTURES_DIR, name, 'load.json');
  const figures = fs.existsSync(loadFile)
    ? (JSON.parse(fs.readFileSync(loadFile, 'utf8')) as { load: LoadFigures; eventLoop: EventLoopFigures })
    : undefined;
  return buildReport({
    id: `${name}-as-${as}`,
    startedAt: '2026-11-21T12:00:00.000Z',
    app: { command: ['node', 'server.js'], cwd: path.join(FIXTURES_DIR, as), pid: 1, url: 'http://127.0.0.1:3000/' },
    settings: SETTINGS,
    load: figures?.load,
    eventLoop: figures?.eventLoop,
    profileFile: 'profile.cpuprofile',
    analysis: analyzeFixture(name, { as }),
  });
}

const reports = new Map<string, ReportV1>();
function report(name: FixtureName, as: FixtureName = name): ReportV1 {
  const key = `${name}/${as}`;
  if (!reports.has(key)) reports.set(key, fixtureReport(name, as));
  return reports.get(key)!;
}

describe('message validation (webview/report/validate.ts)', () => {
  test('every fixture report is accepted', () => {
    for (const name of FIXTURE_NAMES) assert.ok(isReport(report(name)), name);
  });

  test('a report message keeps only what ToReportView has', () => {
    const r = report('login-api');
    assert.deepEqual(parseToReportView({ type: 'report', report: r, baseline: undefined, focus: undefined }), {
      type: 'report',
      report: r,
    });
    const focus = { file: '/a/server.js', line: 35, functionName: 'checkPassword' };
    assert.deepEqual(parseToReportView({ type: 'report', report: r, baseline: r, focus, extra: 1 }), {
      type: 'report',
      report: r,
      baseline: r,
      focus,
    });
    assert.deepEqual(parseToReportView({ type: 'focus', file: '/a/b.js', line: 3, other: 'x' }), {
      type: 'focus',
      file: '/a/b.js',
      line: 3,
    });
  });

  test('anything else is dropped', () => {
    const r = report('login-api');
    const broken: Array<[string, unknown]> = [
      ['not an object', 'report'],
      ['null', null],
      ['an array', [{ type: 'report', report: r }]],
      ['unknown type', { type: 'openSource', file: '/a', line: 1 }],
      ['version 2', { type: 'report', report: { ...r, version: 2 } }],
      ['no lines', { type: 'report', report: { ...r, lines: undefined } }],
      ['a line number that is text', { type: 'report', report: { ...r, lines: [{ ...r.lines[0], line: '35' }] } }],
      ['NaN (postMessage can carry it)', { type: 'report', report: { ...r, nonIdleMs: Number.NaN } }],
      [
        'an unknown category',
        { type: 'report', report: { ...r, functions: [{ ...r.functions[0], category: 'kernel' }] } },
      ],
      [
        'a hint without a message',
        { type: 'report', report: { ...r, hints: [{ ...r.hints[0], message: undefined }] } },
      ],
      ['load without latency', { type: 'report', report: { ...r, load: { ...r.load!, latencyMs: undefined } } }],
      ['a bad baseline', { type: 'report', report: r, baseline: { version: 1 } }],
      ['a focus on line 0', { type: 'report', report: r, focus: { file: '/a', line: 0 } }],
      ['focus without a file', { type: 'focus', line: 3 }],
      ['focus with a fractional line', { type: 'focus', file: '/a', line: 1.5 }],
    ];
    for (const [what, msg] of broken) assert.equal(parseToReportView(msg), undefined, what);
  });
});

describe('the page HTML (webview/report/html.ts)', () => {
  const o = {
    cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
    nonce: 'AbCdEfGhIjKlMnOpQrStUvWx',
    script: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview/report.js',
    title: 'Hotline <run>',
  };

  test('the CSP: nonce scripts only, nonce or extension styles, nothing remote', () => {
    assert.equal(
      reportCsp(o),
      "default-src 'none'; script-src 'nonce-AbCdEfGhIjKlMnOpQrStUvWx'; style-src https://file+.vscode-resource.vscode-cdn.net 'nonce-AbCdEfGhIjKlMnOpQrStUvWx'; font-src https://file+.vscode-resource.vscode-cdn.net; img-src https://file+.vscode-resource.vscode-cdn.net data:",
    );
    const html = reportHtml(o);
    assert.ok(
      html.includes(`<meta http-equiv="Content-Security-Policy" content="${reportCsp(o).replace(/'/g, '&#39;')}">`),
    );
    assert.doesNotMatch(html, /unsafe-inline|unsafe-eval|https?:\/\/(?!file\+\.vscode-resource)/);
  });

  test('one script, with the nonce; every <style>/<link> has it too; no data in the page', () => {
    const html = reportHtml({ ...o, style: 'https://file+.vscode-resource.vscode-cdn.net/ext/media/extra.css' });
    const scripts = html.match(/<script\b[^>]*>/g) ?? [];
    assert.deepEqual(scripts, [`<script nonce="${o.nonce}" src="${o.script}">`]);
    for (const tag of html.match(/<(style|link)\b[^>]*>/g) ?? [])
      assert.match(tag, new RegExp(`nonce="${o.nonce}"`), tag);
    assert.match(
      html,
      /<meta property="csp-nonce" content="AbCdEfGhIjKlMnOpQrStUvWx">/,
      "the toolkit's :focus-visible probe reads its nonce here",
    );
    assert.match(html, /<title>Hotline &lt;run&gt;<\/title>/);
    assert.doesNotMatch(html, /"version"|checkPassword|server\.js/);
  });

  test('refuses a missing or malformed nonce', () => {
    assert.throws(() => reportHtml({ ...o, nonce: '' }));
    assert.throws(() => reportHtml({ ...o, nonce: 'abc" onload="x' }));
  });
});

describe('formatting (webview/report/format.ts)', () => {
  test('paths relative to the app folder, POSIX and Windows', () => {
    assert.equal(relPath('/w/app/server.js', '/w/app'), 'server.js');
    assert.equal(relPath('/w/app/lib/a.js', '/w/app/'), 'lib/a.js');
    assert.equal(relPath('/w/application/a.js', '/w/app'), '/w/application/a.js');
    assert.equal(relPath('C:\\w\\app\\lib\\a.js', 'c:\\w\\app'), 'lib\\a.js');
    assert.equal(relPath('node:internal/crypto/pbkdf2', '/w/app'), 'node:internal/crypto/pbkdf2');
  });

  test('where and what can be opened', () => {
    assert.equal(where('', 0, '/w'), '(native)');
    assert.equal(where('node:events', 471, '/w'), 'node:events:471');
    assert.equal(where('/w/server.js', 35, '/w'), 'server.js:35');
    assert.ok(canOpen('/w/server.js', 35));
    assert.ok(canOpen('C:\\w\\server.js', 1));
    assert.ok(!canOpen('node:events', 471));
    assert.ok(!canOpen('', 0));
    assert.ok(!canOpen('/w/server.js', 0));
  });

  test('percentages', () => {
    assert.equal(pct(94.48), '94%');
    assert.equal(pct(2.25), '2.3%');
    assert.equal(pct(0.01), '<0.1%');
    assert.equal(pct(0), '0%');
  });
});
