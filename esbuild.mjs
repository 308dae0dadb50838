// One build for every bundle: the CLI, the load runner (a child process) and the capture sender
// (a worker thread), the extension and its language server, and the webviews (browser bundles).
// `--watch` rebuilds on change.
import * as esbuild from 'esbuild';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeReportSchema } from './scripts/report-schema.mjs';

// `--production` (npm run package): minified, as the .vsix ships; names kept for readable stacks.
const production = process.argv.includes('--production');
const minify = production ? { minify: true, keepNames: true } : {};

// chrome-remote-interface requires its own copy of the protocol (lib/protocol.json, ~0.5 MB) only
// when asked for `local: true`; Hotline never is (src/core/inspector/session.ts reads the app's own
// protocol from its inspector), so the bundles carry a stub that says so instead of the file.
const noLocalProtocol = {
  name: 'no-local-protocol',
  setup(build) {
    build.onResolve({ filter: /^\.\/protocol\.json$/ }, (args) =>
      /chrome-remote-interface[\\/]lib$/.test(args.resolveDir)
        ? { path: 'chrome-remote-interface-local-protocol', namespace: 'omitted' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'omitted' }, () => ({
      contents: "throw new Error('Hotline does not bundle chrome-remote-interface\\'s local protocol (local: true)');",
      loader: 'js',
    }));
  },
};

// The code that runs inside the user's app (src/core/in-app/scripts/*.ts) is compiled here into the
// texts the inspector evaluates: the bundles get them as string constants in place of
// src/core/in-app/compiled.ts, which compiles the same files with the same options on first use when
// Hotline runs from its TypeScript sources.
const IN_APP = 'src/core/in-app';
const inAppScripts = {
  name: 'in-app-scripts',
  setup(build) {
    build.onLoad({ filter: /[\\/]core[\\/]in-app[\\/]compiled\.ts$/ }, () => {
      const options = JSON.parse(readFileSync(path.join(IN_APP, 'build-options.json'), 'utf8'));
      const dir = path.join(IN_APP, 'scripts');
      const texts = {};
      const watchFiles = [];
      for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
        const out = esbuild.buildSync({ ...options, entryPoints: [path.join(dir, file)], metafile: true });
        texts[file.slice(0, -'.ts'.length)] = out.outputFiles[0].text;
        watchFiles.push(...Object.keys(out.metafile.inputs).map((f) => path.resolve(f)));
      }
      return {
        contents: `const TEXTS = ${JSON.stringify(texts)};
export function compiledScript(name) {
  const text = TEXTS[name];
  if (text === undefined) throw new Error('no in-app script ' + name);
  return text;
}`,
        loader: 'js',
        watchFiles,
      };
    });
  },
};

export const nodeBundle = {
  bundle: true,
  platform: 'node',
  target: 'node20', // package.json engines: node >= 20
  format: 'cjs',
  sourcemap: true,
  logLevel: 'warning',
  // ws tries these optional native speed-ups inside try/catch; they are not installed.
  external: ['bufferutil', 'utf-8-validate', 'vscode'],
  // Prefer ES module builds: jsonc-parser's UMD "main" hides its requires from the bundler.
  mainFields: ['module', 'main'],
  plugins: [noLocalProtocol, inAppScripts],
  ...minify,
};

const webBundle = {
  bundle: true,
  platform: 'browser',
  target: 'chrome114',
  format: 'iife',
  sourcemap: true,
  logLevel: 'warning',
  ...minify,
};

export const entries = [
  { ...nodeBundle, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js' },
  { ...nodeBundle, entryPoints: ['src/core/load/runner.ts'], outfile: 'dist/load-runner.js' },
  // The stack captures' sender, a worker thread of the CLI or the extension host.
  { ...nodeBundle, entryPoints: ['src/core/capture/stacks/send-thread.ts'], outfile: 'dist/capture-sender.js' },
  { ...nodeBundle, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js' },
  { ...nodeBundle, entryPoints: ['src/server/server.ts'], outfile: 'dist/server.js' },
  // `hotline mcp` alone: the MCP server the editor offers to MCP clients (assistant-tools.ts).
  { ...nodeBundle, entryPoints: ['src/mcp/main.ts'], outfile: 'dist/mcp.js' },
  // The flame graph's merged copy of a big .cpuprofile, written off the extension host's thread.
  { ...nodeBundle, entryPoints: ['src/extension/flame/flame-merge-worker.ts'], outfile: 'dist/flame-merge-worker.js' },
  { ...webBundle, entryPoints: ['webview/report/main.ts'], outfile: 'dist/webview/report.js' },
  { ...webBundle, entryPoints: ['webview/flame/main.ts'], outfile: 'dist/webview/flame.js' },
].filter((e) => existsSync(e.entryPoints[0]));

// Imported (scripts/bundle-sizes.mjs, the bundle tests): the options above, no build.
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  build(process.argv.includes('--watch')).catch(() => {
    process.exitCode = 1; // esbuild has printed the errors
  });
}

async function build(watch) {
  // speedscope ships a built, offline web app: its files are served from the extension as they are.
  const speedscope = 'node_modules/speedscope/dist/release';
  if (existsSync(speedscope)) {
    mkdirSync('dist/speedscope', { recursive: true });
    // Only what the page loads (and index.html, which names them, and the font's licence): not its
    // sample profile, favicons, file-format schema or release note.
    const unused = /(perf-vertx|favicon|file-format-schema|release\.txt)/;
    cpSync(speedscope, 'dist/speedscope', { recursive: true, filter: (f) => !unused.test(f) });
  }

  // report.json's JSON Schema, beside the bundles (skipped while the report's types are unchanged).
  const schema = writeReportSchema();
  const contexts = await Promise.all(entries.map((e) => esbuild.context(e)));
  if (watch) {
    await Promise.all(contexts.map((c) => c.watch()));
  } else {
    try {
      await Promise.all(contexts.map((c) => c.rebuild()));
    } finally {
      await Promise.all(contexts.map((c) => c.dispose()));
    }
  }
  await schema;
}
