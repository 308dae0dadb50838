// Hotline's MCP tools as VS Code language-model tools (agent mode calls them with no set-up) and
// the `hotline mcp` server offered through the editor's MCP server definitions, for clients that
// prefer it. The tools run through the very MCP server `hotline mcp` serves, linked in memory
// (src/mcp/in-process.ts): the same validation, results and errors. A tool that starts the app asks
// first (the editor's confirmation) and is refused in Restricted Mode, as the run commands are.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectInProcess } from '../mcp/in-process.ts';
import { mcpToolName, STARTS_THE_APP } from '../mcp/lm-tools.ts';
import { readSettings } from './settings.ts';

interface ToolText {
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: unknown;
  isError?: boolean;
}

const RESTRICTED =
  'Hotline starts your app with node, which runs its code. This workspace is in Restricted Mode, so Hotline will not start it. Trust the workspace to profile it.';

/** One in-memory MCP server per workspace folder, made on first use, closed with the extension. */
class Servers implements vscode.Disposable {
  private readonly clients = new Map<string, Promise<Client>>();
  private readonly shutdown = new AbortController();

  of(root: string): Promise<Client> {
    let c = this.clients.get(root);
    if (!c) {
      c = connectInProcess(root, this.shutdown.signal);
      this.clients.set(root, c);
    }
    return c;
  }

  dispose(): void {
    this.shutdown.abort(); // a run in progress stops its app and load
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
  const servers = new Servers();
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
