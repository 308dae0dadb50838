// The main path, end to end: a real `hotline profile` run of examples/login-api (real app, real
// load, real inspector) captured by the CLI, then analyzed by the language server through
// AnalyzeRunRequest over a real LSP connection, and shown on server.js.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { CodeLens, PublishDiagnosticsParams } from 'vscode-languageserver/node';
import type { ReportV1 } from '../../src/core/report/schema.ts';
import type { AnalyzeRunResult, DecorationsParams, ShownRunParams } from '../../src/protocol.ts';
import {
  LOGIN_API,
  LOGIN_PROFILE_ARGS,
  assertBuilt,
  ensureLoginApiDeps,
  removeTempDirs,
  runCli,
  tempDir,
} from '../helpers/integration.ts';
import { LspClient, assertServerBuilt } from './lsp-client.ts';

let client: LspClient | undefined;

before(() => {
  assertBuilt();
  assertServerBuilt();
  ensureLoginApiDeps();
});

after(async () => {
  await client?.stop();
  removeTempDirs();
});

test('a real login-api run, analyzed by the server, puts pbkdf2Sync on line 35', { timeout: 120_000 }, async () => {
  const out = tempDir('hotline-lsp-run-');
  const cli = await runCli([
    ...LOGIN_PROFILE_ARGS,
    '--connections',
    '20',
    '--duration',
    '2',
    '--warmup',
    '1',
    '--out',
    out,
  ]);
  assert.equal(cli.code, 0, `the CLI failed:\n${cli.stderr.slice(-3000)}`);
  const [id] = fs.readdirSync(out).filter((name) => fs.statSync(path.join(out, name)).isDirectory());
  assert.ok(id, `a run folder in ${out}`);
  const runDir = path.join(out, id);

  client = await LspClient.start();
  const from = client.mark();
  const result = await client.request<AnalyzeRunResult>('hotline/analyzeRun', { runDir, root: LOGIN_API });
  assert.deepEqual(result, { reportFile: path.join(runDir, 'report.json'), runId: id });
  const report = JSON.parse(fs.readFileSync(result.reportFile, 'utf8')) as ReportV1;
  assert.ok(report.load, 'the run has load figures');
  const shownRun = await client.waitFor<ShownRunParams>('hotline/shownRun', (p) => p.runId === id, from);
  assert.deepEqual(shownRun.staleFiles, []);

  const serverJs = path.join(LOGIN_API, 'server.js');
  const uri = await client.open(serverJs);
  const deco = await client.waitFor<DecorationsParams>('hotline/decorations', (p) => p.uri === uri, from);
  // The pbkdf2Sync line is the hottest (its share of a core depends on how much CPU the machine
  // gave the app, so the test compares lines rather than asserting a level).
  const top = deco.lines.reduce((a, b) => (b.corePct > a.corePct ? b : a));
  assert.ok(top.line === 34 && /^■ \d+(\.\d+)? ms\/request$/.test(top.label), JSON.stringify(deco.lines));

  const lenses = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
  const shown = lenses.map((l) => `${l.range.start.line + 1}: ${l.command?.title}`).join('\n');
  const hot = lenses.find((l) => l.range.start.line === 34);
  const m = /^\d+(?:\.\d+)? ms\/request · (\d+)% of a core · blocks the event loop$/.exec(hot?.command?.title ?? '');
  assert.ok(m, shown);
  assert.ok(Number(m[1]) > 0, `pbkdf2Sync costs a share of a core:\n${shown}`);
  assert.ok(
    lenses.some((l) => l.range.start.line === 33 && /^total .* · self /.test(l.command?.title ?? '')),
    `checkPassword:\n${shown}`,
  );

  const diagnostics = await client.waitFor<PublishDiagnosticsParams>(
    'textDocument/publishDiagnostics',
    (p) => p.uri === uri && p.diagnostics.length > 0,
    from,
  );
  assert.ok(
    diagnostics.diagnostics.some((d) => d.code === 'crypto-sync' && d.range.start.line === 34),
    JSON.stringify(diagnostics),
  );
});
