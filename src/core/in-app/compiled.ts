// The in-app scripts as text, compiled from scripts/*.ts on first use: this is the path the
// TypeScript sources take (tsx, tests). The bundles never run this file: esbuild.mjs replaces it
// with the same texts compiled at build time, with the same options (build-options.json), so the
// code a test runs in the app is the code that ships.
import { buildSync, type BuildOptions } from 'esbuild';
import * as path from 'node:path';
import options from './build-options.json';

const texts = new Map<string, string>();

/** The text of `scripts/<name>.ts`: an expression whose value is the module's exports. */
export function compiledScript(name: string): string {
  let text = texts.get(name);
  if (text === undefined) {
    const out = buildSync({
      ...(options as BuildOptions),
      entryPoints: [path.join(__dirname, 'scripts', `${name}.ts`)],
    });
    text = out.outputFiles![0].text;
    texts.set(name, text);
  }
  return text;
}
