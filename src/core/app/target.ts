// What to start: an explicit entry, a command line, an npm script, or package.json's main / start.
// A script that is plain `node [flags] FILE` is started by Hotline itself (its inspector open from
// the first line); any other (tsx, nodemon, a package bin, a framework CLI, `&&` chains) runs as it
// stands, through the shell (command.ts), and the process that serves the port is the app.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LaunchSpec } from './launch.ts';

export class TargetError extends Error {
  constructor(
    message: string,
    /** not-plain-node: the command is something else than `node FILE` (it can still run as it stands). */
    readonly reason: 'not-plain-node' | 'invalid' = 'invalid',
  ) {
    super(message);
    this.name = 'TargetError';
  }
}

export interface TargetChoice {
  entry?: string;
  /** An npm script name from the app's package.json. */
  script?: string;
  /** A command line run as it stands (`tsx watch server.ts`). */
  command?: string;
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
  if (choice.command !== undefined) {
    if (choice.command.trim() === '')
      throw new TargetError('--command is empty: give the command line that starts the app.');
    return fromCommandLine(choice.command, base);
  }
  const pkg = readPackageJson(cwd);
  if (choice.script) {
    const command = pkg?.scripts?.[choice.script];
    if (typeof command !== 'string') throw new TargetError(`package.json in ${cwd} has no script "${choice.script}".`);
    return fromScript(command, choice.script, base);
  }
  if (pkg && typeof pkg.main === 'string' && fs.existsSync(path.resolve(cwd, pkg.main)))
    return { ...base, entry: pkg.main };
  if (typeof pkg?.scripts?.start === 'string') return fromScript(pkg.scripts.start, 'start', base);
  throw new TargetError(
    `Don't know which file starts the app in ${cwd}: pass --entry FILE, --script NAME (an npm script) or --command "…".`,
  );
}

/** An npm script: started by Hotline when it is plain node, else run as it stands. */
function fromScript(command: string, script: string, base: Omit<LaunchSpec, 'entry'>): LaunchSpec {
  try {
    return fromNodeCommand(command, `the npm script "${script}"`, base);
  } catch (err) {
    if (!(err instanceof TargetError) || err.reason !== 'not-plain-node') throw err;
    return { ...fromCommandLine(command, base), script };
  }
}

/**
 * A command line as it stands. The app's own arguments (after `--`) are appended, quoted for the
 * shell; runtime flags go to every Node process it starts, through NODE_OPTIONS.
 */
function fromCommandLine(command: string, base: Omit<LaunchSpec, 'entry'>): LaunchSpec {
  const args = commandLineOf(base.args ?? []);
  return { ...base, entry: '', args: [], command: args ? `${command} ${args}` : command };
}

/** Words as one shell command line, each quoted where the shell would split or expand it. */
export function commandLineOf(words: readonly string[]): string {
  return words.map(shellQuote).join(' ');
}

function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
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
      'not-plain-node',
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
      'not-plain-node',
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
