// The language server's entry in the extension's bundle (dist/server.js): the transport comes
// from the command line (--node-ipc from the VS Code client, --stdio from other editors and the
// tests). `hotline lsp` starts the same server from the CLI (src/cli/lsp-command.ts).
import { ProposedFeatures, createConnection } from 'vscode-languageserver/node';
import { startServer } from './language-server.ts';

startServer(createConnection(ProposedFeatures.all));
