// "Explain: why X blocks the event loop" (the hint diagnostics' code action): the explanation as
// a read-only document of our own scheme, shown in the Markdown preview. Nothing to save and
// nothing asked on close (an untitled buffer was both). Its text comes from the URI itself.
import * as vscode from 'vscode';
import { ExplainHintCommand, type ExplainHintArgs } from '../../protocol.ts';

/**
 * The explanation of a hint, as a read-only document of our own scheme shown in the Markdown
 * preview: nothing to save, nothing asked on close (an untitled buffer was both).
 */
const HINT_SCHEME = 'hotline-hint';

export function hintUri(args: ExplainHintArgs): vscode.Uri {
  return vscode.Uri.from({
    scheme: HINT_SCHEME,
    path: `/${args.api.replace(/[^\w.-]/g, '_')}.md`,
    query: JSON.stringify({ rule: args.rule, api: args.api, fix: args.fix }),
  });
}

export function hintMarkdownOf(uri: vscode.Uri): string {
  let args: Partial<ExplainHintArgs>;
  try {
    args = JSON.parse(uri.query) as Partial<ExplainHintArgs>;
  } catch {
    return '# Hotline\n\nThis explanation is no longer available: run the quick fix again.';
  }
  if (typeof args.api !== 'string' || typeof args.rule !== 'string' || typeof args.fix !== 'string')
    return '# Hotline\n\nThis explanation is no longer available.';
  return [
    `# ${args.api} blocks the event loop`,
    '',
    `Hotline found \`${args.api}\` on a hot path of your app while it was under load (rule \`${args.rule}\`).`,
    '',
    'While a synchronous call runs, the event loop serves nobody else: every other request waits, so latency grows with the number of connections and throughput stays at what one thread can do.',
    '',
    `**Fix:** ${args.fix}.`,
    '',
    'Then run *Hotline: Profile Under Load* again and compare it with the first run (set the first run as the baseline in the Runs view) to verify the fix.',
  ].join('\n');
}

function explainHint(args: ExplainHintArgs): void {
  if (!args || typeof args.api !== 'string') return;
  void vscode.commands.executeCommand('markdown.showPreviewToSide', hintUri(args));
}

export function registerHintExplanations(): vscode.Disposable[] {
  return [
    vscode.workspace.registerTextDocumentContentProvider(HINT_SCHEME, {
      provideTextDocumentContent: (uri) => hintMarkdownOf(uri),
    }),
    vscode.commands.registerCommand(ExplainHintCommand, (args: ExplainHintArgs) => explainHint(args)),
  ];
}
