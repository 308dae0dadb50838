// The MCP tools as VS Code language-model tools: package.json `contributes.languageModelTools` is
// generated from the server's own tool list (scripts/lm-tools.ts; test/unit/mcp/lm-tools.test.ts keeps
// them equal), so agent mode sees the same names, descriptions and input schemas as MCP clients.

/** What listTools gives per tool, the part we use. */
export interface McpToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { type: 'object'; properties?: Record<string, unknown>; required?: string[] };
  annotations?: { title?: string; readOnlyHint?: boolean };
}

export interface LmToolContribution {
  name: string;
  toolReferenceName: string;
  displayName: string;
  modelDescription: string;
  userDescription: string;
  canBeReferencedInPrompt: boolean;
  icon: string;
  tags: string[];
  inputSchema: Record<string, unknown>;
}

/** `hot_lines` → `hotline_hot_lines`: VS Code's tool names are global, so they carry ours. */
export const lmToolName = (mcpName: string): string => `hotline_${mcpName}`;
export const mcpToolName = (lmName: string): string | undefined =>
  lmName.startsWith('hotline_') ? lmName.slice('hotline_'.length) : undefined;

/** Tools that start the user's app: the editor asks before each (and refuses in Restricted Mode). */
export const STARTS_THE_APP = new Set(['profile']);

export function lmToolContributions(tools: McpToolInfo[]): LmToolContribution[] {
  return [...tools]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((t) => {
      const title = t.title ?? t.annotations?.title ?? t.name;
      const { $schema: _drop, ...schema } = t.inputSchema as Record<string, unknown>;
      return {
        name: lmToolName(t.name),
        // `#hotlineHotLines` in a chat prompt.
        toolReferenceName: `hotline${t.name.replace(/(^|_)([a-z])/g, (_m, _s: string, c: string) => c.toUpperCase())}`,
        displayName: `Hotline: ${title}`,
        modelDescription: t.description ?? title,
        // The first sentence: what a user reads in the tools picker.
        userDescription: (t.description ?? title).split(/(?<=\.)\s/)[0]!,
        canBeReferencedInPrompt: true,
        icon: '$(flame)',
        tags: ['hotline', 'profiling', ...(STARTS_THE_APP.has(t.name) ? ['runs-the-app'] : [])],
        inputSchema: schema,
      };
    });
}
