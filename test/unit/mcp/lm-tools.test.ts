// package.json declares the MCP server's tools as VS Code language-model tools
// (scripts/lm-tools.ts): the same names, descriptions and input schemas, so agent mode and MCP
// clients are offered one set of tools.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { expectedLmTools, MANIFEST } from '../../../scripts/lm-tools.ts';
import { lmToolContributions, lmToolName, mcpToolName, STARTS_THE_APP } from '../../../src/mcp/lm-tools.ts';

test('package.json languageModelTools are the MCP server tools (npx tsx scripts/lm-tools.ts rewrites them)', async () => {
  const manifest = JSON.parse(fs.readFileSync(MANIFEST, 'utf8')) as {
    contributes: { languageModelTools?: unknown; mcpServerDefinitionProviders?: Array<{ id: string }> };
    activationEvents?: string[];
  };
  assert.deepEqual(manifest.contributes.languageModelTools, await expectedLmTools());
  assert.deepEqual(
    manifest.contributes.mcpServerDefinitionProviders?.map((p) => p.id),
    ['hotline'],
  );
});

test('each tool keeps its MCP name behind the hotline_ prefix; only profile starts the app', async () => {
  const tools = await expectedLmTools();
  assert.ok(tools.length >= 10, `${tools.length} tools`);
  for (const t of tools) {
    assert.equal(lmToolName(mcpToolName(t.name)!), t.name);
    assert.match(t.toolReferenceName, /^hotline[A-Z][A-Za-z]*$/);
    assert.equal(t.inputSchema.type, 'object');
    assert.ok(t.modelDescription.length > 20, t.name);
    assert.equal(t.tags.includes('runs-the-app'), STARTS_THE_APP.has(mcpToolName(t.name)!), t.name);
  }
  assert.equal(mcpToolName('other_tool'), undefined);
});

test('a tool with no description is described by its title; the schema loses $schema only', () => {
  const [t] = lmToolContributions([
    {
      name: 'hot_lines',
      title: 'Hot lines',
      inputSchema: { type: 'object', properties: { top: { type: 'number' } }, $schema: 'x' } as never,
    },
  ]);
  assert.equal(t.modelDescription, 'Hot lines');
  assert.equal(t.toolReferenceName, 'hotlineHotLines');
  assert.deepEqual(t.inputSchema, { type: 'object', properties: { top: { type: 'number' } } });
});
