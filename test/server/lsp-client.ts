// A minimal LSP client for the server tests: spawns the built server (`node dist/server.js
// --stdio`) and talks JSON-RPC to it over its stdio with vscode-jsonrpc, as vscode-languageclient
// does. Every message the server sends is recorded; tests wait for the one they expect (never a
// sleep), and a wait fails at once if the server exits.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  StreamMessageReader,
  StreamMessageWriter,
  createMessageConnection,
  type MessageConnection,
} from 'vscode-jsonrpc/node';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const SERVER_JS = path.join(REPO_ROOT, 'dist', 'server.js');
/** The CLI (dist/cli.js through bin/hotline.js): `hotline lsp` is the server for other editors. */
export const HOTLINE_JS = path.join(REPO_ROOT, 'bin', 'hotline.js');
const CLI_JS = path.join(REPO_ROOT, 'dist', 'cli.js');

/** The bundles (the server's and the CLI's, which runs `hotline lsp`) must be newer than every source they are built from, or the tests would test old code. */
export function assertServerBuilt(): void {
  for (const bundle of [SERVER_JS, CLI_JS]) {
    const name = path.relative(REPO_ROOT, bundle);
    assert.ok(fs.existsSync(bundle), `${name} is missing: run \`node esbuild.mjs\` before the server tests`);
    const built = fs.statSync(bundle).mtimeMs;
    const newer: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(p);
        else if (p.endsWith('.ts') && fs.statSync(p).mtimeMs > built) newer.push(path.relative(REPO_ROOT, p));
      }
    };
    for (const dir of ['src/server', 'src/core', ...(bundle === CLI_JS ? ['src/cli'] : [])])
      walk(path.join(REPO_ROOT, dir));
    if (fs.statSync(path.join(REPO_ROOT, 'src/protocol.ts')).mtimeMs > built) newer.push('src/protocol.ts');
    assert.deepEqual(newer, [], `${name} is older than its sources: run \`node esbuild.mjs\``);
  }
}

export interface Message {
  method: string;
  params: unknown;
}

export class LspClient {
  /** Every notification and request the server sent, in order. */
  readonly received: Message[] = [];
  /** The server's capabilities, from its answer to `initialize`. */
  initializeResult: { capabilities: Record<string, unknown> } | undefined;
  private readonly waiters: Array<{
    from: number;
    test(m: Message): boolean;
    resolve(m: Message): void;
    reject(e: Error): void;
    what: string;
  }> = [];
  private exited: Error | undefined;
  private stderr = '';
  private readonly versions = new Map<string, number>();

  private constructor(
    readonly child: ChildProcess,
    readonly conn: MessageConnection,
  ) {
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (s: string) => {
      this.stderr += s;
    });
    child.once('exit', (code, signal) => {
      this.exited = new Error(`the server exited (code ${code}, signal ${signal}):\n${this.stderr.slice(-3000)}`);
      for (const w of this.waiters.splice(0))
        w.reject(new Error(`${this.exited.message}\nwhile waiting for ${w.what}`));
    });
    conn.onNotification((method: string, params: unknown) => this.record({ method, params }));
    conn.onRequest((method: string, params: unknown) => {
      this.record({ method, params });
      return null;
    });
  }

  /**
   * Starts the server as the VS Code client does (initializationOptions `{ client: 'vscode' }`),
   * or, with `init.standalone`, as any other editor does (`hotline lsp`, workspace folders).
   */
  static async start(
    capabilities: Record<string, unknown> = { workspace: { codeLens: { refreshSupport: true } } },
    init: { standalone?: { roots: string[] } } = {},
  ): Promise<LspClient> {
    const command = init.standalone ? [HOTLINE_JS, 'lsp', '--stdio'] : [SERVER_JS, '--stdio'];
    const child = spawn(process.execPath, command, { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    const conn = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    const client = new LspClient(child, conn);
    conn.listen();
    // A server that dies at start must fail the start, not leave `initialize` waiting forever.
    const died = new Promise<never>((_, reject) => child.once('exit', () => reject(client.exited)));
    try {
      client.initializeResult = await Promise.race([
        conn.sendRequest<{ capabilities: Record<string, unknown> }>('initialize', {
          processId: process.pid,
          capabilities,
          ...(init.standalone
            ? {
                rootUri: null,
                workspaceFolders: init.standalone.roots.map((r) => ({
                  uri: pathToFileURL(r).href,
                  name: path.basename(r),
                })),
              }
            : { rootUri: null, workspaceFolders: null, initializationOptions: { client: 'vscode' } }),
        }),
        died,
      ]);
      await conn.sendNotification('initialized', {});
    } catch (e) {
      child.kill('SIGKILL');
      conn.dispose();
      throw e;
    }
    return client;
  }

  private record(m: Message): void {
    this.received.push(m);
    const index = this.received.length - 1;
    for (const w of [...this.waiters]) {
      if (index >= w.from && w.test(m)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  }

  /** Where the next message will be recorded: wait from here for what an action causes. */
  mark(): number {
    return this.received.length;
  }

  /** The first message from `from` on with this method whose params pass `test`. */
  waitFor<P>(method: string, test: (params: P) => boolean, from: number, what = method): Promise<P> {
    const match = (m: Message): boolean => m.method === method && test(m.params as P);
    const seen = this.received.slice(from).find(match);
    if (seen) return Promise.resolve(seen.params as P);
    if (this.exited) return Promise.reject(this.exited);
    return new Promise<P>((resolve, reject) => {
      this.waiters.push({ from, test: match, resolve: (m) => resolve(m.params as P), reject, what });
    });
  }

  request<R>(method: string, params: unknown): Promise<R> {
    return this.conn.sendRequest(method, params) as Promise<R>;
  }

  notify(method: string, params?: unknown): Promise<void> {
    return this.conn.sendNotification(method, params);
  }

  async open(file: string, text = fs.readFileSync(file, 'utf8')): Promise<string> {
    const uri = pathToFileURL(file).href;
    this.versions.set(uri, 1);
    await this.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'javascript', version: 1, text } });
    return uri;
  }

  /** An incremental edit: replace the 0-based range with `text`. */
  async edit(
    uri: string,
    range: { start: { line: number; character: number }; end: { line: number; character: number } },
    text: string,
  ): Promise<void> {
    const version = (this.versions.get(uri) ?? 1) + 1;
    this.versions.set(uri, version);
    await this.notify('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ range, text }] });
  }

  /** Shuts the server down the LSP way and waits for it to exit. */
  async stop(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    await this.conn.sendRequest('shutdown');
    await this.conn.sendNotification('exit');
    await gone;
    this.conn.dispose();
  }
}
