// The MCP server and a client in one process, linked in memory: the editor's language-model tools
// (src/extension/assistant-tools.ts) and the list of tools package.json declares
// (scripts/lm-tools.ts) go through the very server `hotline mcp` serves, so they cannot differ.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createServer } from './server.ts';

export async function connectInProcess(root: string, shutdown: AbortSignal): Promise<Client> {
  const server = createServer(root, shutdown);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'hotline-in-process', version: '1' });
  await client.connect(clientSide);
  return client;
}
