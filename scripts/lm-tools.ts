// package.json `contributes.languageModelTools` from the MCP server's own tool list (src/mcp/lm-tools.ts).
// `npx tsx scripts/lm-tools.ts` rewrites it; test/unit/mcp/lm-tools.test.ts fails when they differ.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { connectInProcess } from '../src/mcp/in-process.ts';
import { lmToolContributions, type LmToolContribution, type McpToolInfo } from '../src/mcp/lm-tools.ts';

const ROOT = path.resolve(__dirname, '..');
export const MANIFEST = path.join(ROOT, 'package.json');

export async function expectedLmTools(): Promise<LmToolContribution[]> {
  const shutdown = new AbortController();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-lm-tools-'));
  try {
    const client = await connectInProcess(dir, shutdown.signal);
    const { tools } = await client.listTools();
    await client.close();
    return lmToolContributions(tools as McpToolInfo[]);
  } finally {
    shutdown.abort();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const text = fs.readFileSync(MANIFEST, 'utf8');
  const manifest = JSON.parse(text) as { contributes: Record<string, unknown> };
  manifest.contributes.languageModelTools = await expectedLmTools();
  fs.writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`package.json: ${(manifest.contributes.languageModelTools as unknown[]).length} language-model tools`);
}

if (require.main === module) void main();
