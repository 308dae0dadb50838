// A pprof file opened in the editor: the language server analyzes it through AnalyzeProfileRequest
// like a .cpuprofile, its fleet paths mapped by hotline.pathMap (relative to the workspace folder),
// and the lenses land on the hot lines of the known-answer app (test/fixtures/pprof-app: heavy()
// and light() cost 2:1), written by @datadog/pprof under load.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { CodeLens } from 'vscode-languageserver-protocol';
import type { AnalyzeProfileResult, ShownRunParams } from '../../src/protocol.ts';
import { LspClient, assertServerBuilt } from './lsp-client.ts';

const APP = path.resolve(__dirname, '../fixtures/pprof-app');
const TEST_TIMEOUT = { timeout: 60_000 };
let client: LspClient;
let tmp: string;

before(async () => {
  assertServerBuilt();
  client = await LspClient.start();
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-lsp-pprof-')));
});

after(async () => {
  await client?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('a @datadog/pprof wall profile with hotline.pathMap: lenses on the two loops, 2:1', TEST_TIMEOUT, async () => {
  const appDir = path.join(tmp, 'app');
  fs.mkdirSync(appDir);
  const serverJs = path.join(appDir, 'server.js');
  fs.copyFileSync(path.join(APP, 'server.js'), serverJs);
  const source = fs.readFileSync(serverJs, 'utf8').split('\n');
  const line0 = (text: string): number => source.findIndex((l) => l.includes(text));

  const from = client.mark();
  const result = await client.request<AnalyzeProfileResult>('hotline/analyzeProfile', {
    profileFile: path.join(APP, 'wall.pb.gz'),
    root: appDir,
    outDir: path.join(tmp, 'out'),
    pathMap: { '/tmp/fleet/app/': '.' },
  });
  await client.waitFor<ShownRunParams>('hotline/shownRun', (p) => p.runId === result.runId, from);
  const uri = await client.open(serverJs);
  const lenses = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
  const share = (l0: number): number => {
    const lens = lenses.find((l) => l.range.start.line === l0 && /% of a core/.test(l.command?.title ?? ''));
    assert.ok(
      lens,
      `a lens on line ${l0 + 1}: ${lenses.map((l) => `${l.range.start.line}: ${l.command?.title}`).join('\n')}`,
    );
    return Number(/(\d+(?:\.\d+)?)% of a core/.exec(lens.command!.title)![1]);
  };
  const heavy = share(line0('i < 2 * N'));
  const light = share(line0('i < N;'));
  const ratio = heavy / (heavy + light);
  assert.ok(ratio > 0.6 && ratio < 0.73, `heavy ${heavy}%, light ${light}%`);
  assert.ok(
    lenses.some((l) => l.range.start.line === line0('function heavy(') && /^total /.test(l.command?.title ?? '')),
    'a function lens on heavy()',
  );
});
