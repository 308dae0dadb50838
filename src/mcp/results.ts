// What a tool hands back: a structured result with a short text twin (clients that ignore
// structuredContent show the text), or a tool error whose text is the one line the CLI prints.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RunError } from '../core/index.ts';

/** A failure the tool reports to the model as it stands (a wrong run id, no baseline yet). */
export class ToolError extends Error {}

export function ok(structured: Record<string, unknown>, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

export function toolError(err: unknown): CallToolResult {
  return { content: [{ type: 'text', text: reasonOf(err) }], isError: true };
}

/** The reason as `hotline` prints it after "hotline: ": the engine's own sentence, one line. */
export function reasonOf(err: unknown): string {
  if (err instanceof RunError && err.kind === 'cancelled') return `${err.message} The app and the load were stopped.`;
  return firstLine(err instanceof Error ? err.message : String(err));
}

const firstLine = (s: string): string => s.split('\n')[0];

/** Runs a tool's body: whatever it throws becomes a tool error, never a failed request. */
export async function guarded(body: () => CallToolResult | Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (err) {
    return toolError(err);
  }
}
