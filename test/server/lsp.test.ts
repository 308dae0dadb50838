// The language server over a real LSP connection (dist/server.js --stdio, vscode-jsonrpc): the
// committed login-api capture (test/fixtures/login-api) analyzed through AnalyzeProfileRequest,
// then lenses, hover, diagnostics, code actions and decorations on server.js, through edits that
// move the hot line, rewrite it and change the file beyond mapping; a corrupt run; clearing.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type {
  CodeAction,
  CodeLens,
  Hover,
  MarkupContent,
  PublishDiagnosticsParams,
  ShowMessageParams,
} from 'vscode-languageserver/node';
import { FIXTURES_DIR, relocateUrl, type FixtureMeta } from '../helpers/fixtures.ts';
import type {
  AnalyzeProfileResult,
  DecorationsParams,
  ExplainHintArgs,
  OpenReportAtArgs,
  ShownRunParams,
} from '../../src/protocol.ts';
import { LspClient, assertServerBuilt } from './lsp-client.ts';

const FIXTURE = path.join(FIXTURES_DIR, 'login-api');
const TEST_TIMEOUT = { timeout: 60_000 };

let tmp: string;
let appDir: string;
let serverJs: string;
let client: LspClient;
let uri: string;
let reportFile: string;
let runId: string;

/** The fixture as a run would see it: server.js in an app folder, the capture (URLs moved there) outside it. */
function stageFixture(): { profileFile: string } {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-lsp-')));
  appDir = path.join(tmp, 'login-api');
  const capture = path.join(tmp, 'capture');
  fs.mkdirSync(appDir);
  fs.mkdirSync(capture);
  serverJs = path.join(appDir, 'server.js');
  fs.copyFileSync(path.join(FIXTURE, 'server.js'), serverJs);
  const meta = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'meta.json'), 'utf8')) as FixtureMeta;
  const profile = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'profile.cpuprofile'), 'utf8')) as {
    nodes: Array<{ callFrame: { url: string } }>;
  };
  for (const node of profile.nodes) node.callFrame.url = relocateUrl(node.callFrame.url, meta.root, appDir);
  const profileFile = path.join(capture, 'login.cpuprofile');
  fs.writeFileSync(profileFile, JSON.stringify(profile));
  return { profileFile };
}

const lensesAt = (lenses: CodeLens[], line0: number): CodeLens[] => lenses.filter((l) => l.range.start.line === line0);
const titles = (lenses: CodeLens[]): string =>
  lenses.map((l) => `${l.range.start.line}: ${l.command?.title}`).join('\n');
const codeLenses = (): Promise<CodeLens[]> =>
  client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
const blocking = (l: CodeLens): boolean => /blocks the event loop/.test(l.command?.title ?? '');

before(async () => {
  assertServerBuilt();
  client = await LspClient.start();
});

after(async () => {
  await client?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('login-api capture through AnalyzeProfileRequest', () => {
  test('analyses the profile, writes the report and announces the shown run', TEST_TIMEOUT, async () => {
    const { profileFile } = stageFixture();
    const from = client.mark();
    const outDir = path.join(tmp, 'out');
    const result = await client.request<AnalyzeProfileResult>('hotline/analyzeProfile', {
      profileFile,
      root: appDir,
      outDir,
    });
    reportFile = result.reportFile;
    runId = result.runId;
    assert.equal(reportFile, path.join(outDir, 'report.json'));
    for (const name of ['report.json', 'sources.json', 'profile.cpuprofile'])
      assert.ok(fs.existsSync(path.join(outDir, name)), name);
    const shownRun = await client.waitFor<ShownRunParams>('hotline/shownRun', (p) => p.runId === runId, from);
    assert.deepEqual(shownRun.staleFiles, []);
    assert.deepEqual(shownRun.filesWithoutSnapshot, []);
    assert.equal(shownRun.reportFile, reportFile);
    await client.waitFor('workspace/codeLens/refresh', () => true, from);
    // The hint is published for server.js before it is opened (the Problems view lists it).
    await client.waitFor<PublishDiagnosticsParams>(
      'textDocument/publishDiagnostics',
      (p) => p.diagnostics.some((d) => d.code === 'crypto-sync'),
      from,
    );
  });

  test('opening server.js sends its heat decorations', TEST_TIMEOUT, async () => {
    const from = client.mark();
    uri = await client.open(serverJs);
    const deco = await client.waitFor<DecorationsParams>('hotline/decorations', (p) => p.uri === uri, from);
    const hot = deco.lines.find((l) => l.line === 34);
    assert.ok(hot, `line 35 decorated: ${JSON.stringify(deco.lines)}`);
    assert.ok(hot.ownPct > 90, `own ${hot.ownPct}%`);
    assert.match(hot.label, /^■ \d+(\.\d)? s$/);
  });

  test('lenses: the pbkdf2Sync line and checkPassword', TEST_TIMEOUT, async () => {
    const lenses = await codeLenses();
    const [hot] = lensesAt(lenses, 34);
    assert.ok(hot, titles(lenses));
    assert.match(hot.command!.title, /^2\.\d s · 9\d% of a core · blocks the event loop$/, titles(lenses));
    assert.equal(hot.command!.command, 'hotline.openReportAt');
    assert.deepEqual(hot.command!.arguments, [
      { reportFile, file: serverJs, line: 35, functionName: 'checkPassword' } satisfies OpenReportAtArgs,
    ]);
    const fn = lensesAt(lenses, 33).find((l) => l.command?.title.startsWith('total '));
    assert.ok(fn, `a lens on checkPassword (line 34):\n${titles(lenses)}`);
    assert.match(fn.command!.title, /^total \d+\.\d s \(9\d% of a core\) · self \S+ ms$/);
    assert.equal((fn.command!.arguments![0] as OpenReportAtArgs).functionName, 'checkPassword');
    // Not every sampled line gets a lens: line 36 (timingSafeEqual) has a few samples.
    assert.deepEqual(lensesAt(lenses, 35), [], titles(lenses));
  });

  test('hover on line 35 names pbkdf2Sync and says the call site is inferred', TEST_TIMEOUT, async () => {
    const hover = await client.request<Hover | null>('textDocument/hover', {
      textDocument: { uri },
      position: { line: 34, character: 20 },
    });
    assert.ok(hover);
    const md = (hover.contents as MarkupContent).value;
    assert.match(md, /pbkdf2Sync/);
    assert.match(md, /inferred call site/);
    assert.match(md, /Callers of `checkPassword`/);
    assert.match(md, /\*\*Fix:\*\* use crypto\.pbkdf2/);
    // The hint's message is the diagnostic's, which VS Code shows in the same hover: not twice.
    assert.doesNotMatch(md, /blocks the event loop in/);
    // The lens's own words are there: the hover says no less than the lens.
    assert.match(md, /Of the app's capacity: \d+(\.\d)? s · 9\d% of a core · blocks the event loop\./);
    const none = await client.request<Hover | null>('textDocument/hover', {
      textDocument: { uri },
      position: { line: 12, character: 0 },
    });
    assert.equal(none, null);
  });

  test('a crypto-sync diagnostic on the call expression of line 35, and its code action', TEST_TIMEOUT, async () => {
    const published = await client.waitFor<PublishDiagnosticsParams>(
      'textDocument/publishDiagnostics',
      (p) => p.uri === uri && p.diagnostics.length > 0,
      0,
    );
    const d = published.diagnostics.find((x) => x.code === 'crypto-sync');
    assert.ok(d, JSON.stringify(published.diagnostics));
    assert.equal(d.range.start.line, 34);
    assert.equal(d.source, 'hotline');
    assert.equal(d.severity, 2);
    const line = fs.readFileSync(serverJs, 'utf8').split('\n')[34];
    assert.equal(
      line.slice(d.range.start.character, d.range.end.character),
      "crypto.pbkdf2Sync(password, user.salt, 10000, 512, 'sha512')",
    );
    assert.deepEqual(Object.keys(d.data as object).sort(), ['api', 'fix', 'rule']);
    assert.match(
      d.message,
      /^crypto\.pbkdf2Sync in checkPassword blocks the event loop/,
      'plain text: no markdown backticks',
    );

    const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: d.range,
      context: { diagnostics: [d] },
    });
    // checkPassword is not async: no edit (its callers would all change), only the explanation.
    assert.equal(actions.length, 1);
    assert.equal(actions[0].title, 'Explain: why crypto.pbkdf2Sync blocks the event loop');
    assert.equal(actions[0].command?.command, 'hotline.explainHint');
    const args = actions[0].command?.arguments?.[0] as ExplainHintArgs;
    assert.equal(args.rule, 'crypto-sync');
    assert.equal(args.api, 'crypto.pbkdf2Sync');
    assert.match(args.fix, /crypto\.pbkdf2/);
  });

  test('three lines inserted at the top move everything down by three', TEST_TIMEOUT, async () => {
    const from = client.mark();
    await client.edit(
      uri,
      { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      '// one\n// two\n// three\n',
    );
    const deco = await client.waitFor<DecorationsParams>('hotline/decorations', (p) => p.uri === uri, from);
    assert.ok(
      deco.lines.some((l) => l.line === 37),
      JSON.stringify(deco.lines),
    );
    assert.ok(!deco.lines.some((l) => l.line === 34));
    const published = await client.waitFor<PublishDiagnosticsParams>(
      'textDocument/publishDiagnostics',
      (p) => p.uri === uri,
      from,
    );
    assert.deepEqual(
      published.diagnostics.map((d) => d.range.start.line),
      [37],
    );
    const lenses = await codeLenses();
    assert.ok(lensesAt(lenses, 37).some(blocking), titles(lenses));
    assert.ok(!lensesAt(lenses, 34).some(blocking), titles(lenses));
    assert.ok(
      lensesAt(lenses, 36).some((l) => l.command?.title.startsWith('total ')),
      titles(lenses),
    );
  });

  test(
    'rewriting the hot line takes its lens, decoration and diagnostic away, and nothing else',
    TEST_TIMEOUT,
    async () => {
      const from = client.mark();
      const line = '  const hash = crypto.scryptSync(password, user.salt, 64);';
      await client.edit(uri, { start: { line: 37, character: 0 }, end: { line: 37, character: 1000 } }, line);
      const deco = await client.waitFor<DecorationsParams>('hotline/decorations', (p) => p.uri === uri, from);
      assert.ok(!deco.lines.some((l) => l.line === 37), JSON.stringify(deco.lines));
      assert.ok(deco.lines.length > 0, 'the other hot lines keep their decorations');
      const published = await client.waitFor<PublishDiagnosticsParams>(
        'textDocument/publishDiagnostics',
        (p) => p.uri === uri,
        from,
      );
      assert.deepEqual(published.diagnostics, []);
      const lenses = await codeLenses();
      assert.deepEqual(lensesAt(lenses, 37), [], titles(lenses));
      assert.ok(
        lensesAt(lenses, 36).some((l) => l.command?.title.startsWith('total ')),
        titles(lenses),
      );
      const hover = await client.request<Hover | null>('textDocument/hover', {
        textDocument: { uri },
        position: { line: 37, character: 5 },
      });
      assert.equal(hover, null);
    },
  );

  test('a corrupt report.json: a warning, and the server keeps showing the run it had', TEST_TIMEOUT, async () => {
    const bad = path.join(tmp, 'bad-run');
    fs.mkdirSync(bad);
    fs.writeFileSync(path.join(bad, 'report.json'), '{"version": 1, "id": "half a rep');
    const from = client.mark();
    await client.notify('hotline/showRun', { reportFile: path.join(bad, 'report.json') });
    const message = await client.waitFor<ShowMessageParams>('window/showMessage', () => true, from);
    assert.equal(message.type, 2);
    assert.match(message.message, /not valid JSON/);
    const lenses = await codeLenses();
    assert.ok(
      lensesAt(lenses, 36).some((l) => l.command?.title.startsWith('total ')),
      titles(lenses),
    );
    assert.ok(
      !client.received.slice(from).some((m) => m.method === 'hotline/shownRun'),
      'the shown run did not change',
    );
  });

  test('a file changed beyond mapping is reported stale and shows nothing', TEST_TIMEOUT, async () => {
    const from = client.mark();
    const text = fs.readFileSync(serverJs, 'utf8');
    const rewritten = text
      .split('\n')
      .map((l, i) => (i >= 30 && i <= 80 && l.trim() ? `${l} // changed` : l))
      .join('\n');
    await client.edit(uri, { start: { line: 0, character: 0 }, end: { line: 200, character: 0 } }, rewritten);
    const shownRun = await client.waitFor<ShownRunParams>('hotline/shownRun', (p) => p.staleFiles.length > 0, from);
    assert.deepEqual(shownRun.staleFiles, [serverJs]);
    assert.equal(shownRun.runId, runId);
    const deco = await client.waitFor<DecorationsParams>('hotline/decorations', (p) => p.uri === uri, from);
    assert.deepEqual(deco.lines, []);
    assert.deepEqual(await codeLenses(), []);
  });

  test('showing the run again after the file is restored brings the costs back', TEST_TIMEOUT, async () => {
    let from = client.mark();
    await client.edit(
      uri,
      { start: { line: 0, character: 0 }, end: { line: 200, character: 0 } },
      fs.readFileSync(serverJs, 'utf8'),
    );
    await client.waitFor<ShownRunParams>('hotline/shownRun', (p) => p.staleFiles.length === 0, from);
    from = client.mark();
    await client.notify('hotline/showRun', { reportFile });
    await client.waitFor<ShownRunParams>('hotline/shownRun', (p) => p.runId === runId, from);
    const lenses = await codeLenses();
    assert.ok(lensesAt(lenses, 34).some(blocking), titles(lenses));
  });

  test('a run without sources.json shows nothing, and says why', TEST_TIMEOUT, async () => {
    const old = path.join(tmp, 'old-run');
    fs.mkdirSync(old);
    const copy = JSON.parse(fs.readFileSync(reportFile, 'utf8')) as { id: string };
    copy.id = 'old-run';
    fs.writeFileSync(path.join(old, 'report.json'), JSON.stringify(copy));
    const from = client.mark();
    await client.notify('hotline/showRun', { reportFile: path.join(old, 'report.json') });
    const shownRun = await client.waitFor<ShownRunParams>('hotline/shownRun', (p) => p.runId === 'old-run', from);
    assert.deepEqual(shownRun.filesWithoutSnapshot, [serverJs]);
    const message = await client.waitFor<ShowMessageParams>('window/showMessage', () => true, from);
    assert.match(message.message, /sources\.json is missing/);
    const deco = await client.waitFor<DecorationsParams>('hotline/decorations', (p) => p.uri === uri, from);
    assert.deepEqual(deco.lines, [], "the previous run's decorations are taken down");
    assert.deepEqual(await codeLenses(), []);
    const next = client.mark();
    await client.notify('hotline/showRun', { reportFile });
    await client.waitFor<ShownRunParams>('hotline/shownRun', (p) => p.runId === runId, next);
  });

  test('clearing the run takes every cost away', TEST_TIMEOUT, async () => {
    const from = client.mark();
    await client.notify('hotline/clearRun');
    const shownRun = await client.waitFor<ShownRunParams>('hotline/shownRun', () => true, from);
    assert.equal(shownRun.runId, undefined);
    const deco = await client.waitFor<DecorationsParams>('hotline/decorations', (p) => p.uri === uri, from);
    assert.deepEqual(deco.lines, []);
    await client.waitFor<PublishDiagnosticsParams>(
      'textDocument/publishDiagnostics',
      (p) => p.uri === uri && p.diagnostics.length === 0,
      from,
    );
    assert.deepEqual(await codeLenses(), []);
  });

  test('a profile that cannot be analyzed is a request error with the reason', TEST_TIMEOUT, async () => {
    const missing = path.join(tmp, 'nope.cpuprofile');
    await assert.rejects(
      client.request('hotline/analyzeProfile', { profileFile: missing, root: appDir }),
      (err: Error & { code?: number }) => {
        assert.equal(err.code, -32803);
        assert.match(err.message, /Could not analyze .*nope\.cpuprofile/);
        return true;
      },
    );
    const notRun = path.join(tmp, 'capture');
    await assert.rejects(client.request('hotline/analyzeRun', { runDir: notRun, root: appDir }), /run\.json/);
  });
});
