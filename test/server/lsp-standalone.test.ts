// `hotline lsp` as any editor but VS Code starts it (workspace folders, no initializationOptions),
// over a real LSP connection: it shows each folder's newest run by itself, follows the runs that
// land (also where there was no .hotline folder yet), lets the client pick or clear a run with
// workspace/executeCommand, and keeps VS Code's own messages and commands out of its answers.
// Runs are the captured login fixtures analyzed as a finished run is (test/helpers/fixture-runs.ts).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import type { CodeLens, InlayHint, PublishDiagnosticsParams } from 'vscode-languageserver/node';
import { landRun, stageLoginApp } from '../helpers/fixture-runs.ts';
import { makeTempDir, removeTempDirs } from '../helpers/tempdir.ts';
import { HOTLINE_JS, LspClient, assertServerBuilt } from './lsp-client.ts';

const TIMEOUT = { timeout: 60_000 };
/** The sync login run's hot line (test/fixtures/README.md). */
const HOT_LINE0 = 34;
const clients: LspClient[] = [];

before(() => assertServerBuilt());
after(async () => {
  for (const c of clients) await c.stop();
  removeTempDirs();
});

async function start(roots: string[], refresh = true): Promise<LspClient> {
  const caps = refresh ? { workspace: { codeLens: { refreshSupport: true } } } : {};
  const client = await LspClient.start(caps, { standalone: { roots } });
  clients.push(client);
  return client;
}

const lenses = (client: LspClient, uri: string): Promise<CodeLens[]> =>
  client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
const titles = (ls: CodeLens[]): string => ls.map((l) => `${l.range.start.line}: ${l.command?.title}`).join('\n');
const hotLens = (ls: CodeLens[]): CodeLens | undefined =>
  ls.find((l) => l.range.start.line === HOT_LINE0 && /blocks the event loop$/.test(l.command?.title ?? ''));

test('two workspace folders: each shows its newest run, with lenses the server runs itself', TIMEOUT, async () => {
  const a = stageLoginApp(makeTempDir('hotline-ws-a-'));
  const b = stageLoginApp(makeTempDir('hotline-ws-b-'));
  landRun(a, 'login-api-async', '20261126-100000-0001');
  const reportA = landRun(a, 'login-api', '20261126-110000-0002');
  landRun(b, 'login-api', '20261126-100000-0003');
  landRun(b, 'login-api-async', '20261126-110000-0004');
  const client = await start([a, b]);
  const uriA = await client.open(path.join(a, 'server.js'));
  const uriB = await client.open(path.join(b, 'server.js'));

  const inA = await lenses(client, uriA);
  const hot = hotLens(inA);
  assert.ok(hot, `the newest run of a (sync) has the hot line:\n${titles(inA)}`);
  assert.equal(hot.command?.command, 'hotline.lineDetails');
  assert.deepEqual(hot.command?.arguments, [
    {
      reportFile: reportA,
      file: path.join(a, 'server.js'),
      line: 35,
      functionName: 'checkPassword',
      title: hot.command?.title,
    },
  ]);
  const inB = await lenses(client, uriB);
  assert.ok(inB.length > 0 && !hotLens(inB), `the newest run of b (async) has no hot line 35:\n${titles(inB)}`);
  assert.ok(
    inA.concat(inB).every((l) => l.command?.command === 'hotline.lineDetails'),
    'no lens names a command only VS Code has',
  );

  // The lens's command: the server answers with a message.
  const from = client.mark();
  await client.request('workspace/executeCommand', hot.command);
  const shown = await client.waitFor<{ message: string }>('window/showMessage', () => true, from);
  assert.match(
    shown.message,
    /^Hotline: server\.js:35 in checkPassword: .* blocks the event loop\. Fix: use crypto\.pbkdf2/,
  );
  // VS Code's own messages are for VS Code only.
  assert.ok(!client.received.some((m) => m.method === 'hotline/decorations' || m.method === 'hotline/shownRun'));
});

test(
  'a run lands in a folder without .hotline: it is shown, and the client told to refresh its lenses',
  TIMEOUT,
  async () => {
    const app = stageLoginApp(makeTempDir('hotline-ws-new-'));
    const client = await start([app]);
    const uri = await client.open(path.join(app, 'server.js'));
    assert.deepEqual(await lenses(client, uri), []);
    const from = client.mark();
    landRun(app, 'login-api', '20261126-120000-0005');
    await client.waitFor('workspace/codeLens/refresh', () => true, from);
    const diagnostics = await client.waitFor<PublishDiagnosticsParams>(
      'textDocument/publishDiagnostics',
      (p) => p.uri === uri && p.diagnostics.length > 0,
      from,
    );
    assert.equal(diagnostics.diagnostics[0].range.start.line, HOT_LINE0);
    assert.ok(hotLens(await lenses(client, uri)));
  },
);

test('a run in progress: shown when its report.json lands', TIMEOUT, async () => {
  const app = stageLoginApp(makeTempDir('hotline-ws-progress-'));
  landRun(app, 'login-api-async', '20261126-100000-0015');
  const client = await start([app]);
  const uri = await client.open(path.join(app, 'server.js'));
  assert.ok(!hotLens(await lenses(client, uri)));
  let from = client.mark();
  const run = landRun(app, 'login-api', '20261126-110000-0016', true);
  await client.waitFor<{ message: string }>(
    'window/logMessage',
    (p) => p.message.includes('run 20261126-110000-0016 has no report.json yet'),
    from,
  );
  assert.ok(!hotLens(await lenses(client, uri)), 'a run without its report is not shown');
  from = client.mark();
  run.finish();
  await client.waitFor('workspace/codeLens/refresh', () => true, from);
  assert.ok(hotLens(await lenses(client, uri)));
});

test('hotline.showRun picks an older run, hotline.clearRun hides all, the next run is shown', TIMEOUT, async () => {
  const app = stageLoginApp(makeTempDir('hotline-ws-pick-'));
  const older = landRun(app, 'login-api-async', '20261126-100000-0006');
  landRun(app, 'login-api', '20261126-110000-0007');
  const client = await start([app]);
  const uri = await client.open(path.join(app, 'server.js'));
  assert.ok(hotLens(await lenses(client, uri)), 'the newest run first');

  const picked = await client.request<{ runId: string }>('workspace/executeCommand', {
    command: 'hotline.showRun',
    arguments: [path.relative(app, path.dirname(older))],
  });
  assert.equal(picked.runId, '20261126-100000-0006');
  const olderLenses = await lenses(client, uri);
  assert.ok(olderLenses.length > 0 && !hotLens(olderLenses), titles(olderLenses));

  await client.request('workspace/executeCommand', { command: 'hotline.clearRun' });
  assert.deepEqual(await lenses(client, uri), []);

  const from = client.mark();
  landRun(app, 'login-api', '20261126-120000-0008');
  await client.waitFor('workspace/codeLens/refresh', () => true, from);
  assert.ok(hotLens(await lenses(client, uri)), 'the run that landed is shown');

  await assert.rejects(
    client.request('workspace/executeCommand', { command: 'hotline.showRun', arguments: [path.join(app, 'nothing')] }),
    /No run at/,
  );
});

test('a client without lens refresh hears of a new run through the open file diagnostics', TIMEOUT, async () => {
  const app = stageLoginApp(makeTempDir('hotline-ws-nudge-'));
  landRun(app, 'login-api-async', '20261126-100000-0009');
  const client = await start([app], false);
  const uri = await client.open(path.join(app, 'server.js'));
  const before = await lenses(client, uri);
  assert.ok(before.length > 0);
  // Neither run has a hint: only the re-sent (empty) diagnostics say that one landed.
  const from = client.mark();
  landRun(app, 'login-api-async', '20261126-110000-0010');
  const nudge = await client.waitFor<PublishDiagnosticsParams>(
    'textDocument/publishDiagnostics',
    (p) => p.uri === uri,
    from,
  );
  assert.deepEqual(nudge.diagnostics, []);
  assert.ok(!client.received.slice(from).some((m) => m.method === 'workspace/codeLens/refresh'));
});

test('inlay hints carry the lens texts at the end of their lines; the VS Code client gets none', TIMEOUT, async () => {
  const app = stageLoginApp(makeTempDir('hotline-ws-hints-'));
  landRun(app, 'login-api', '20261126-110000-0011');
  const client = await start([app]);
  assert.equal(client.initializeResult?.capabilities.inlayHintProvider, true);
  const file = path.join(app, 'server.js');
  const uri = await client.open(file);
  const text = fs.readFileSync(file, 'utf8').split('\n');
  const hints = await client.request<InlayHint[]>('textDocument/inlayHint', {
    textDocument: { uri },
    range: { start: { line: 0, character: 0 }, end: { line: text.length, character: 0 } },
  });
  const hot = hints.find((h) => h.position.line === HOT_LINE0);
  assert.ok(hot, JSON.stringify(hints));
  assert.equal(hot.position.character, text[HOT_LINE0].length);
  assert.equal(hot.label, `■ ${hotLens(await lenses(client, uri))?.command?.title}`);
  // Only the lines asked for.
  const some = await client.request<InlayHint[]>('textDocument/inlayHint', {
    textDocument: { uri },
    range: { start: { line: 0, character: 0 }, end: { line: HOT_LINE0 - 1, character: 0 } },
  });
  assert.ok(!some.some((h) => h.position.line >= HOT_LINE0));

  const vscode = await LspClient.start();
  clients.push(vscode);
  assert.equal(vscode.initializeResult?.capabilities.inlayHintProvider, undefined);
  assert.equal(vscode.initializeResult?.capabilities.executeCommandProvider, undefined);
});

test('stale-file rules as in VS Code: a rewritten hot line loses its lens, hint and diagnostic', TIMEOUT, async () => {
  const app = stageLoginApp(makeTempDir('hotline-ws-stale-'));
  landRun(app, 'login-api', '20261126-110000-0017');
  const client = await start([app]);
  const file = path.join(app, 'server.js');
  const uri = await client.open(file);
  assert.ok(hotLens(await lenses(client, uri)));
  const line = fs.readFileSync(file, 'utf8').split('\n')[HOT_LINE0];
  const from = client.mark();
  await client.edit(
    uri,
    { start: { line: HOT_LINE0, character: 0 }, end: { line: HOT_LINE0, character: line.length } },
    '  return "rewritten";',
  );
  await client.waitFor<PublishDiagnosticsParams>(
    'textDocument/publishDiagnostics',
    (p) => p.uri === uri && p.diagnostics.length === 0,
    from,
  );
  const now = await lenses(client, uri);
  assert.ok(!now.some((l) => l.range.start.line === HOT_LINE0), titles(now));
  const hints = await client.request<InlayHint[]>('textDocument/inlayHint', {
    textDocument: { uri },
    range: { start: { line: 0, character: 0 }, end: { line: HOT_LINE0 + 1, character: 0 } },
  });
  assert.ok(!hints.some((h) => h.position.line === HOT_LINE0), JSON.stringify(hints));
});

test("a workspace opened above the app: the runs of an opened file's app folder are followed", TIMEOUT, async () => {
  const repo = makeTempDir('hotline-ws-repo-');
  const app = stageLoginApp(path.join(repo, 'packages'));
  landRun(app, 'login-api', '20261126-110000-0012');
  const client = await start([repo]);
  const uri = await client.open(path.join(app, 'server.js'));
  assert.ok(hotLens(await lenses(client, uri)), "the app folder's newest run");
  const from = client.mark();
  landRun(app, 'login-api-async', '20261126-120000-0013');
  await client.waitFor('workspace/codeLens/refresh', () => true, from);
  const now = await lenses(client, uri);
  assert.ok(now.length > 0 && !hotLens(now), titles(now));
});

test('workspace folders added and removed: their runs are shown and hidden', TIMEOUT, async () => {
  const app = stageLoginApp(makeTempDir('hotline-ws-folders-'));
  landRun(app, 'login-api', '20261126-110000-0014');
  const client = await LspClient.start(
    { workspace: { workspaceFolders: true, codeLens: { refreshSupport: true } } },
    { standalone: { roots: [] } },
  );
  clients.push(client);
  const uri = await client.open(path.join(app, 'server.js'));
  const folder = { uri: pathToFileURL(app).href, name: 'login-api' };
  // Opened with no workspace folder, the file's app folder is followed already; adding it as a
  // folder keeps its run, removing it hides it, adding it again shows it.
  assert.ok(hotLens(await lenses(client, uri)));
  await client.notify('workspace/didChangeWorkspaceFolders', { event: { added: [folder], removed: [] } });
  assert.ok(hotLens(await lenses(client, uri)));
  let from = client.mark();
  await client.notify('workspace/didChangeWorkspaceFolders', { event: { added: [], removed: [folder] } });
  await client.waitFor('workspace/codeLens/refresh', () => true, from);
  assert.deepEqual(await lenses(client, uri), []);
  from = client.mark();
  await client.notify('workspace/didChangeWorkspaceFolders', { event: { added: [folder], removed: [] } });
  await client.waitFor('workspace/codeLens/refresh', () => true, from);
  assert.ok(hotLens(await lenses(client, uri)));
});

test('hotline lsp takes no arguments but --stdio', () => {
  const r = spawnSync(process.execPath, [HOTLINE_JS, 'lsp', '--port', '3000'], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /lsp takes no arguments but --stdio \(got --port 3000\)/);
});
