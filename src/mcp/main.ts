// dist/mcp.js: `hotline mcp` on its own, the entry the editor's MCP server definition starts
// (src/extension/assistant-tools.ts) — the .vsix ships it instead of the whole CLI.
import { mcpCommand } from './server.ts';

mcpCommand(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`hotline: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
