// Which script to start: an explicit entry, an npm script that runs `node …`, or package.json's
// main / start. Anything that is not plain node (nodemon, ts-node, next, a shell pipeline) is
// refused with a sentence that says what to pass instead.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LaunchSpec } from './launch.ts';

export class TargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetError';
  }
}

export interface TargetChoice {
  entry?: string;
  /** An npm script name from the app's package.json. */
  script?: string;
  args?: string[];
  runtimeArgs?: string[];
  env?: Record<string, string>;
  nodePath?: string;
}

export function resolveTarget(dir: string, choice: TargetChoice): LaunchSpec {
  const cwd = path.resolve(dir);
  if (!fs.existsSync(cwd)) throw new TargetError(`The app folder ${cwd} does not exist.`);
  const base = {
    cwd,
    runtimeArgs: choice.runtimeArgs ?? [],
    args: choice.args ?? [],
    env: choice.env ?? {},
    nodePath: choice.nodePath,
  };
  if (choice.entry) return { ...base, entry: choice.entry };
  const pkg = readPackageJson(cwd);
  if (choice.script) {
    const command = pkg?.scripts?.[choice.script];
    if (typeof command !== 'string') throw new TargetError(`package.json in ${cwd} has no script "${choice.script}".`);
    return fromNodeCommand(command, `the npm script "${choice.script}"`, base);
  }
  if (pkg && typeof pkg.main === 'string' && fs.existsSync(path.resolve(cwd, pkg.main)))
    return { ...base, entry: pkg.main };
  if (typeof pkg?.scripts?.start === 'string')
    return fromNodeCommand(pkg.scripts.start, 'the npm script "start"', base);
  throw new TargetError(
    `Don't know which file starts the app in ${cwd}: pass --entry FILE (or --script NAME for an npm script that runs node).`,
  );
}

interface PackageJson {
  main?: unknown;
  scripts?: Record<string, unknown>;
}

function readPackageJson(dir: string): PackageJson | undefined {
  const file = path.join(dir, 'package.json');
  if (!fs.existsSync(file)) return undefined;
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as PackageJson;
  } catch (err) {
    throw new TargetError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * `[VAR=value …] node [node flags] FILE [args]` → a launch spec. Flags that take a separate
 * value (`-r x`, `--require x`, `--import x`) keep it.
 */
export function fromNodeCommand(command: string, what: string, base: Omit<LaunchSpec, 'entry'>): LaunchSpec {
  if (/[|&;<>`$()]/.test(command.replace(/\$\{?[A-Z_][A-Z0-9_]*\}?/g, ''))) {
    throw new TargetError(
      `${what} is \`${command}\`: Hotline can only start a plain \`node [flags] FILE [args]\` command, not a shell pipeline. Pass --entry FILE instead.`,
    );
  }
  const words = splitWords(command);
  const env: Record<string, string> = {};
  while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0])) {
    const w = words.shift()!;
    env[w.slice(0, w.indexOf('='))] = w.slice(w.indexOf('=') + 1);
  }
  const program = words.shift();
  if (program !== 'node' && program !== 'nodejs') {
    throw new TargetError(
      `${what} runs \`${program ?? ''}\`, not node: Hotline starts the app with node itself. Pass --entry FILE (the script ${program ?? 'it'} would run).`,
    );
  }
  const runtimeArgs: string[] = [];
  while (words.length > 0 && words[0].startsWith('-')) {
    const flag = words.shift()!;
    runtimeArgs.push(flag);
    if (
      /^(-r|--require|--import|--loader|--experimental-loader|--env-file|-C|--conditions)$/.test(flag) &&
      words.length > 0
    )
      runtimeArgs.push(words.shift()!);
  }
  const entry = words.shift();
  if (!entry) throw new TargetError(`${what} is \`${command}\`: it names no script for node to run.`);
  return {
    ...base,
    entry,
    runtimeArgs: [...runtimeArgs, ...(base.runtimeArgs ?? [])],
    args: [...words, ...(base.args ?? [])],
    env: { ...env, ...(base.env ?? {}) },
  };
}

/** Shell-like words: quotes may open anywhere in a word (`--name="a b"`, `FOO='x y'`) and are removed. */
function splitWords(command: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < command.length) word += command[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      word ??= '';
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + (c === '\\' && i + 1 < command.length ? command[++i] : c);
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}
