// `hotline mcp [DIR]`: Hotline's tools for coding assistants, a Model Context Protocol server on
// stdin/stdout rooted at DIR (default: the folder it is started in). Nothing but the protocol
// goes to stdout; the run's own messages go nowhere (progress goes to the client).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { packageVersion } from '../cli/conventions.ts';
import { registerReportResource } from './resources.ts';
import { registerReportTools } from './tools-report.ts';
import { registerRunTools } from './tools-runs.ts';
import { registerVerifyTool } from './tools-verify.ts';
import { Workspace } from './workspace.ts';

export function createServer(root: string, shutdown: AbortSignal): McpServer {
  const ws = new Workspace(root);
  // The name and version clients show: the package's, as `hotline --version` prints it.
  const server = new McpServer(
    { name: 'hotline', version: versionOf() },
    {
      instructions:
        `Hotline profiles the Node.js app in ${root} under HTTP load and measures whether an edit made it faster. ` +
        'Loop: profile → set_baseline → hot_lines / explain → edit → profile → verify. Report a speed-up only when verify says "faster".',
    },
  );
  registerRunTools(server, ws, shutdown);
  registerReportTools(server, ws);
  registerVerifyTool(server, ws);
  registerReportResource(server, ws);
  return server;
}

/** A bundle copied out of its package has no package.json above it: the server still serves. */
function versionOf(): string {
  try {
    return packageVersion();
  } catch {
    return 'unknown';
  }
}

/** Serves until the client closes stdin or the process is told to stop; a run then stops its app first. */
export async function mcpCommand(argv: string[]): Promise<number> {
  // --stdio is the only transport (accepted as `hotline lsp` accepts it); --verbose is main.ts's.
  const dirs = argv.filter((a) => a !== '--stdio' && a !== '--verbose');
  const root = path.resolve(dirs[0] ?? '.');
  const wrong =
    dirs.length > 1 || dirs.some((a) => a.startsWith('-'))
      ? `mcp takes one workspace folder (got ${argv.join(' ')})`
      : !fs.existsSync(root) || !fs.statSync(root).isDirectory()
        ? `the workspace folder ${root} does not exist`
        : undefined;
  if (wrong !== undefined) {
    // As the CLI's usage errors (main.ts): one line, the pointer to help, exit 2.
    process.stderr.write(`hotline: ${wrong}\nRun \`hotline mcp --help\` for the options.\n`);
    return 2;
  }
  const shutdown = new AbortController();
  const server = createServer(root, shutdown.signal);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  const stop = (): void => {
    shutdown.abort(); // a run in progress stops its app and load
    void server.close();
  };
  process.stdin.once('end', stop);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await server.connect(new StdioServerTransport());
  await closed;
  return 0;
}
