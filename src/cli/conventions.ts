// What every CLI answers before it looks at a command's options: `--version` / `-v`, and
// `hotline CMD --help` / `-h` (before any `--`: after it, arguments belong to the app) or
// `hotline help CMD`.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { wantsHelp } from './args.ts';
import { usageOf } from './usage.ts';

/** The exit code when the call was one of these and has been answered on stdout; else undefined. */
export function conventionalAnswer(command: string | undefined, rest: string[]): number | undefined {
  if (command === '--version' || command === '-v' || command === 'version') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  // `hotline help profile` as `hotline profile --help`, as git and npm take it.
  if (command === 'help' && rest.length === 1) [command, rest] = [rest[0], ['--help']];
  if (command === undefined || !wantsHelp(rest)) return undefined;
  const usage = usageOf(command === 'analyse' ? 'analyze' : command);
  if (usage === undefined) return undefined; // an unknown command: main.ts names the known ones
  process.stdout.write(`${usage}\n`);
  return 0;
}

/**
 * package.json's version: the nearest package.json named hotline above this file (dist/cli.js in
 * the tarball and the .vsix, src/cli/ in a checkout), read at run time rather than bundled whole.
 */
export function packageVersion(from: string = __dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'hotline' && typeof pkg.version === 'string') return pkg.version;
    }
    if (path.dirname(dir) === dir) throw new Error(`no hotline package.json above ${from}`);
  }
}
