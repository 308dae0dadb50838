// Hotline's MCP tools as VS Code language-model tools (agent mode calls them with no set-up) and
// the `hotline mcp` server offered through the editor's MCP server definitions, for clients that
// prefer it. The tools are calls to the very server `hotline mcp` serves (dist/mcp.js, one child
// process per workspace folder, started on first use with the extension host's own Node): the
// same validation, results and errors, and the runs and their analysis stay out of the extension
// host (which only captures; test/unit/bundles.test.ts). A tool that starts the app asks first (the
// editor's confirmation) and is refused in Restricted Mode, as the run commands are.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mcpToolName, STARTS_THE_APP } from '../mcp/lm-tools.ts';
import { readSettings } from './settings.ts';

interface ToolText {
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: unknown;
  isError?: boolean;
}

const RESTRICTED =
  'Hotline starts your app with node, which runs its code. This workspace is in Restricted Mode, so Hotline will not start it. Trust the workspace to profile it.';

/** One `hotline mcp` per workspace folder, started on first use; closing it stops a run's app first. */
class Servers implements vscode.Disposable {
  private readonly clients = new Map<string, Promise<Client>>();

  constructor(private readonly script: string) {}

  of(root: string): Promise<Client> {
    let c = this.clients.get(root);
    if (!c) {
      c = this.connect(root);
      this.clients.set(root, c);
      // A server that could not start or has gone is started again at the next call.
      c.then(
        (client) => {
          client.onclose = () => this.clients.delete(root);
        },
        () => this.clients.delete(root),
      );
    }
    return c;
  }

  private async connect(root: string): Promise<Client> {
    const transport = new StdioClientTransport({
      // The extension host's Node (Electron's, run as Node): no PATH lookup, the version VS Code ships.
      command: process.execPath,
      args: [this.script, root],
      env: { ...(process.env as Record<string, string>), ELECTRON_RUN_AS_NODE: '1' },
      cwd: root,
      stderr: 'ignore',
    });
    const client = new Client({ name: 'hotline-vscode', version: '1' });
    await client.connect(transport);
    return client;
  }

  dispose(): void {
    // The server's stdin closes: a run in progress stops its app and load, then it exits.
    for (const c of this.clients.values()) void c.then((client) => client.close()).catch(() => undefined);
    this.clients.clear();
  }
}

/** The folder the tools work in: the active editor's workspace folder, else the first one. */
function workspaceRoot(): string | undefined {
  const active = vscode.window.activeTextEditor?.document.uri;
  const folder = (active && vscode.workspace.getWorkspaceFolder(active)) ?? vscode.workspace.workspaceFolders?.[0];
  return folder?.uri.fsPath;
}

function textOf(r: ToolText): string {
  return (r.content ?? [])
    .filter((p) => p.type === 'text')
    .map((p) => p.text ?? '')
    .join('\n');
}

class HotlineTool implements vscode.LanguageModelTool<Record<string, unknown>> {
  constructor(
    private readonly servers: Servers,
    private readonly name: string,
    private readonly onRun: (root: string) => void,
  ) {}

  prepareInvocation(
    options: vscode.LanguageModelToolInvocationPrepareOptions<Record<string, unknown>>,
  ): vscode.PreparedToolInvocation {
    if (!STARTS_THE_APP.has(this.name)) return { invocationMessage: `Hotline: ${this.name.replace(/_/g, ' ')}` };
    const root = workspaceRoot() ?? 'the workspace';
    const what = [options.input.script ? `npm script "${String(options.input.script)}"` : options.input.entry]
      .filter(Boolean)
      .join('');
    return {
      invocationMessage: 'Hotline: profiling under load…',
      confirmationMessages: {
        title: 'Start the app and profile it under load?',
        message: new vscode.MarkdownString(
          `Hotline will start the app in \`${path.basename(root)}\`${what ? ` (${what})` : ''} with node, load ` +
            `\`${String(options.input.url ?? '/')}\` on 127.0.0.1 and stop the app afterwards.`,
        ),
      },
    };
  }

  async invoke(
    options: vscode.LanguageModelToolInvocationOptions<Record<string, unknown>>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    if (STARTS_THE_APP.has(this.name) && !vscode.workspace.isTrusted) throw new Error(RESTRICTED);
    const root = workspaceRoot();
    if (!root) throw new Error('Open the folder of a Node.js app first: Hotline works in a workspace folder.');
    const client = await this.servers.of(root);
    const abort = new AbortController();
    const sub = token.onCancellationRequested(() => abort.abort());
    try {
      // A run takes twice its duration and more: no client-side time limit beyond the run's own.
      const r = (await client.callTool({ name: this.name, arguments: options.input }, undefined, {
        signal: abort.signal,
        timeout: 30 * 60_000,
        resetTimeoutOnProgress: true,
        onprogress: () => undefined,
      })) as ToolText;
      // The model reads the same one line the CLI prints; VS Code shows a thrown error as the tool's failure.
      if (r.isError) throw new Error(textOf(r));
      if (STARTS_THE_APP.has(this.name)) this.onRun(root);
      return new vscode.LanguageModelToolResult([
        new vscode.LanguageModelTextPart(
          r.structuredContent !== undefined ? JSON.stringify(r.structuredContent) : textOf(r),
        ),
      ]);
    } finally {
      sub.dispose();
    }
  }
}

/**
 * Registers every tool package.json declares (generated from the MCP server's list) and the MCP
 * server definition. `onRun`: a tool's run finished in `root` (the editor shows its costs).
 */
export function registerAssistantTools(
  extension: vscode.ExtensionContext,
  onRun: (root: string) => void,
): vscode.Disposable[] {
  const servers = new Servers(vscode.Uri.joinPath(extension.extensionUri, 'dist', 'mcp.js').fsPath);
  const declared = (
    extension.extension.packageJSON as { contributes?: { languageModelTools?: Array<{ name: string }> } }
  ).contributes?.languageModelTools;
  const tools = (declared ?? []).flatMap(({ name }) => {
    const mcp = mcpToolName(name);
    return mcp ? [vscode.lm.registerTool(name, new HotlineTool(servers, mcp, onRun))] : [];
  });
  return [servers, ...tools, registerMcpDefinition(extension)];
}

/** `hotline mcp <folder>` with the node Hotline starts apps with (hotline.nodePath, else node on PATH). */
function registerMcpDefinition(extension: vscode.ExtensionContext): vscode.Disposable {
  const changed = new vscode.EventEmitter<void>();
  const folders = vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire());
  const provider = vscode.lm.registerMcpServerDefinitionProvider('hotline', {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () =>
      (vscode.workspace.workspaceFolders ?? []).map(
        (f) =>
          new vscode.McpStdioServerDefinition(
            `Hotline (${f.name})`,
            readSettings(f.uri).nodePath || 'node',
            [vscode.Uri.joinPath(extension.extensionUri, 'dist', 'mcp.js').fsPath, f.uri.fsPath],
            {},
            String((extension.extension.packageJSON as { version?: string }).version ?? ''),
          ),
      ),
    // Restricted Mode: the server would start apps, so it is not started.
    resolveMcpServerDefinition: (def) => (vscode.workspace.isTrusted ? def : undefined),
  });
  return vscode.Disposable.from(provider, folders, changed);
}
