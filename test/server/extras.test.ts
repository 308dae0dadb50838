// Worker threads and allocations in the editor: recorded real `hotline profile` runs (real app,
// real load, real inspector; one with --heap; test/fixtures/runs, scripts/record-fixtures.mjs)
// analyzed anew by the language server through AnalyzeRunRequest over a real LSP connection, then
// the lenses on the worker file and on the allocating function. (run.test.ts is the live run.)
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { CodeLens } from 'vscode-languageserver/node';
import type { ReportV1 } from '../../src/core/report/schema.ts';
import type { AnalyzeRunResult, OpenReportAtArgs } from '../../src/protocol.ts';
import { REPO_ROOT, assertBuilt } from '../helpers/integration.ts';
import { recordedRun, removeRecordedRuns, type Recording } from '../helpers/recorded.ts';
import { LspClient, assertServerBuilt } from './lsp-client.ts';

const WORKER_APP = path.join(REPO_ROOT, 'test', 'apps', 'worker-app');
const HEAP_APP = path.join(REPO_ROOT, 'test', 'apps', 'heap-app');
let client: LspClient | undefined;

before(() => {
  assertBuilt();
  assertServerBuilt();
});

after(async () => {
  await client?.stop();
  removeRecordedRuns();
});

/** Has the server analyze the recorded run of `app`; returns the report it wrote. */
async function analyzeRecorded(recording: Recording, app: string): Promise<ReportV1> {
  client ??= await LspClient.start();
  const result = await client.request<AnalyzeRunResult>('hotline/analyzeRun', {
    runDir: recordedRun(recording),
    root: app,
  });
  return JSON.parse(fs.readFileSync(result.reportFile, 'utf8')) as ReportV1;
}

const show = (lenses: CodeLens[]): string =>
  lenses.map((l) => `${l.range.start.line + 1}: ${l.command?.title}`).join('\n');

test(
  "a worker-thread run: the hot line of the worker file gets a lens, as a share of the workers' CPU",
  { timeout: 120_000 },
  async () => {
    const report = await analyzeRecorded('worker-app', WORKER_APP);
    const workerFile = path.join(WORKER_APP, 'hash-worker.js');
    const hotLine =
      fs
        .readFileSync(workerFile, 'utf8')
        .split('\n')
        .findIndex((l) => l.includes('// the hot line')) + 1;
    const uri = await client!.open(workerFile);
    const lenses = await client!.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
    const hot = lenses.find((l) => l.range.start.line === hotLine - 1);
    const m = /^own [\d.]+ (?:ms|s) \((\d+)% of worker threads\)$/.exec(hot?.command?.title ?? '');
    assert.ok(m, show(lenses));
    assert.ok(Number(m[1]) > 50, show(lenses));
    const line = report.lines.find((l) => l.thread === 'worker' && l.line === hotLine);
    assert.equal(Number(m[1]), Math.round(line!.ownPct), "the lens shows the report's figure");
    assert.ok(
      lenses.some((l) => /^total .* of worker threads\) · self /.test(l.command?.title ?? '')),
      `slowHash's function lens:\n${show(lenses)}`,
    );

    const hover = await client!.request<{ contents: { value: string } } | null>('textDocument/hover', {
      textDocument: { uri },
      position: { line: hotLine - 1, character: 4 },
    });
    assert.match(hover?.contents.value ?? '', /worker threads/);
  },
);

test(
  'a --heap run: the top allocating function gets an allocations lens in bytes per second and per request',
  { timeout: 120_000 },
  async () => {
    const report = await analyzeRecorded('heap-app', HEAP_APP);
    assert.ok(report.heap, 'report.heap');
    const serverJs = path.join(HEAP_APP, 'server.js');
    const source = fs.readFileSync(serverJs, 'utf8').split('\n');
    const makeRows = source.findIndex((l) => l.startsWith('function makeRows')) + 1;
    // makeRows allocates it all, unless V8 inlined it into the handler, which then owns its bytes
    // (the sampling heap profile sees no inlined frames; test/integration/workers.test.ts).
    const top = report.heap.lines[0];
    assert.ok(
      [makeRows, source.findIndex((l) => l.includes('http.createServer(')) + 1].includes(top.line),
      JSON.stringify(report.heap.lines.slice(0, 2)),
    );
    const uri = await client!.open(serverJs);
    const lenses = await client!.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
    const heap = lenses.filter(
      (l) =>
        (l.command?.arguments?.[0] as OpenReportAtArgs).kind === 'allocations' && l.range.start.line === top.line - 1,
    );
    assert.equal(heap.length, 1, show(lenses));
    const m = /^allocates ([\d.]+) (KB|MB|GB)\/s · ([\d.]+) (KB|MB)\/request$/.exec(heap[0].command?.title ?? '');
    assert.ok(m, show(lenses));
    // The per-request figure agrees with the report: the function's share of bytesPerRequest.
    const l = top;
    const perRequest = (l.ownBytes / report.heap.totalBytes) * report.heap.bytesPerRequest!;
    const shown = Number(m[3]) * (m[4] === 'MB' ? 1024 * 1024 : 1024);
    assert.ok(Math.abs(shown - perRequest) / perRequest < 0.06, `${heap[0].command?.title} vs ${perRequest} B/request`);
  },
);
