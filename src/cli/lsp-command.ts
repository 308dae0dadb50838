// `hotline lsp`: the language server the VS Code extension runs (src/server/language-server.ts),
// over stdio for any editor (docs/editors.md). It finds the runs under the editor's workspace
// folders itself. `--stdio` is accepted, as many editors' configurations pass it.
import { ProposedFeatures, createConnection } from 'vscode-languageserver/node';
import { startServer } from '../server/language-server.ts';
import { UsageError } from './args.ts';

export function lspCommand(argv: string[]): Promise<number> {
  const extra = argv.filter((a) => a !== '--stdio');
  if (extra.length > 0) throw new UsageError(`lsp takes no arguments but --stdio (got ${extra.join(' ')})`);
  // stdout carries the protocol: a stray console.log there would break the client's framing.
  const toStderr = (...args: unknown[]): void => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  startServer(createConnection(ProposedFeatures.all, process.stdin, process.stdout));
  // Never settles: the process ends with the client (the `exit` notification, or stdin closing).
  return new Promise<number>(() => undefined);
}
