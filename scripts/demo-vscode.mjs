#!/usr/bin/env node
// Starts a real VS Code (code-server 4.139.1) with the Hotline extension installed, on
// 127.0.0.1, for a person to try in a browser. Runs until Ctrl-C, then stops code-server (its
// whole process group, and whatever the extension started) and removes its run folder.
//
//   node scripts/demo-vscode.mjs [--vsix FILE.vsix] [--workspace DIR] [--port N] [--no-extension]
//
// Defaults: the newest *.vsix in the repo root, the workspace examples/login-api, a free port.
// Runs scripts/e2e-setup.sh first when the e2e cache (~/.cache/hotline-e2e) is missing.
// Uses the same code as the e2e suite (test/e2e/harness.ts, loaded through tsx).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { tsImport } from 'tsx/esm/api';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const { values } = parseArgs({
  options: {
    vsix: { type: 'string' },
    workspace: { type: 'string' },
    port: { type: 'string' },
    'no-extension': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
  allowPositionals: false,
});

if (values.help) {
  console.log(
    fs
      .readFileSync(fileURLToPath(import.meta.url), 'utf8')
      .split('\n')
      .slice(1, 10)
      .join('\n')
      .replace(/^\/\/ ?/gm, '') + '\n',
  );
  process.exit(0);
}

function newestVsix() {
  const found = fs
    .readdirSync(repo)
    .filter((f) => f.endsWith('.vsix'))
    .map((f) => ({ f: path.join(repo, f), t: fs.statSync(path.join(repo, f)).mtimeMs }))
    .sort((a, b) => b.t - a.t);
  return found[0]?.f;
}

const harness = await tsImport('../test/e2e/harness.ts', import.meta.url);

if (!harness.readSetup())
  console.error('e2e cache missing: running scripts/e2e-setup.sh (a few minutes the first time)...');
harness.ensureSetup();

let vsix;
if (!values['no-extension']) {
  vsix = values.vsix ? path.resolve(values.vsix) : newestVsix();
  if (!vsix) {
    console.error(
      `No .vsix in ${repo}. Build one first, e.g.:\n` +
        '  npm run package\n' +
        'or pass --vsix FILE, or --no-extension.',
    );
    process.exit(2);
  }
  if (!fs.existsSync(vsix)) {
    console.error(`no such file: ${vsix}`);
    process.exit(2);
  }
}
const workspace = path.resolve(values.workspace ?? path.join(repo, 'examples/login-api'));
if (!fs.existsSync(workspace)) {
  console.error(`no such workspace folder: ${workspace}`);
  process.exit(2);
}

const cs = await harness.startCodeServer({
  workspace,
  extensionVsix: vsix,
  port: values.port ? Number(values.port) : undefined,
});
const url = `${cs.url}?folder=${encodeURI(workspace)}`;
console.log(`
VS Code (code-server) is running with ${vsix ? path.basename(vsix) : 'no extension'}.
  open:      ${url}
  workspace: ${workspace}
  log:       ${path.join(cs.runDir, 'code-server.log')}
Press Ctrl-C to stop.`);

let stopping = false;
async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  console.log('\nstopping code-server...');
  try {
    await cs.stop();
  } finally {
    process.exit(code);
  }
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
cs.exited.then(() => {
  if (stopping) return;
  console.error(`code-server exited on its own; log:\n${cs.logs().slice(-2000)}`);
  void shutdown(1);
});
