// Which app to start, the way a VS Code user expects: their launch.json Node configurations
// first (program, args, cwd, env, runtimeArgs; a runtimeExecutable such as tsx or nodemon, or an
// npm script, runs as a command line), else package.json main / start. Pure (no
// `vscode` import): the text of the files comes in, launch specs or reasons go out.
import * as path from 'node:path';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { commandLineOf, fromNodeCommand, type LaunchSpec, TargetError } from '../../core/index.ts';

export interface LaunchChoice {
  /** The configuration's name, shown in a quick pick. */
  label: string;
  spec: LaunchSpec;
}

export interface LaunchJsonResult {
  choices: LaunchChoice[];
  /** Configurations that are not usable here, with why (shown when nothing else is found). */
  skipped: string[];
}

export interface LaunchJsonContext {
  /** Absolute path of the workspace folder (${workspaceFolder}). */
  folder: string;
  env: Record<string, string | undefined>;
  homeDir: string;
  /** Reads a package.json script (for `runtimeExecutable: "npm"` configurations). */
  npmScript?: (cwd: string, name: string) => string | undefined;
  /** Reads an envFile (KEY=VALUE lines); undefined if it cannot be read. */
  readEnvFile?: (file: string) => string | undefined;
}

const NODE_TYPES = new Set(['node', 'pwa-node', 'node2']);

export function nodeConfigsFromLaunchJson(text: string, ctx: LaunchJsonContext): LaunchJsonResult {
  const errors: ParseError[] = [];
  const json = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false }) as unknown;
  const result: LaunchJsonResult = { choices: [], skipped: [] };
  const configs = (json as { configurations?: unknown })?.configurations;
  if (!Array.isArray(configs)) {
    if (errors.length > 0 || json !== undefined) result.skipped.push('launch.json has no "configurations" list.');
    return result;
  }
  for (const raw of configs) {
    if (typeof raw !== 'object' || raw === null) continue;
    const c = raw as Record<string, unknown>;
    const name = typeof c.name === 'string' ? c.name : '(unnamed)';
    if (!NODE_TYPES.has(String(c.type)) || c.request !== 'launch') continue;
    try {
      result.choices.push({ label: name, spec: specOf(c, ctx) });
    } catch (err) {
      result.skipped.push(`"${name}": ${(err as Error).message}`);
    }
  }
  return result;
}

function specOf(c: Record<string, unknown>, ctx: LaunchJsonContext): LaunchSpec {
  const sub = (v: string): string => substitute(v, ctx);
  const cwd = typeof c.cwd === 'string' ? path.resolve(ctx.folder, sub(c.cwd)) : ctx.folder;
  const args = stringList(c.args, 'args').map(sub);
  const runtimeArgs = stringList(c.runtimeArgs, 'runtimeArgs').map(sub);
  const env: Record<string, string | undefined> = {};
  if (typeof c.envFile === 'string') {
    const file = path.resolve(cwd, sub(c.envFile));
    const text = ctx.readEnvFile?.(file);
    if (text === undefined) throw new Error(`its envFile ${file} cannot be read`);
    Object.assign(env, parseEnvFile(text));
  }
  if (typeof c.env === 'object' && c.env !== null) {
    for (const [k, v] of Object.entries(c.env)) env[k] = v === null ? undefined : sub(String(v));
  }
  const runtime = typeof c.runtimeExecutable === 'string' ? sub(c.runtimeExecutable) : undefined;
  const base = { cwd, args, runtimeArgs, env };
  if (runtime && /^(npm|yarn|pnpm)$/.test(path.basename(runtime))) {
    // `npm run-script start` / `npm run dev`: Hotline starts the script's node command itself.
    const scriptName =
      runtimeArgs.find((_a, i) => i > 0 && /^(run|run-script)$/.test(runtimeArgs[i - 1])) ??
      runtimeArgs.find((a) => !a.startsWith('-') && !/^(run|run-script)$/.test(a));
    const command = scriptName ? ctx.npmScript?.(cwd, scriptName) : undefined;
    if (!scriptName || command === undefined)
      throw new Error(`it runs ${runtime} without a package.json script Hotline can read`);
    try {
      return fromNodeCommand(command, `the npm script "${scriptName}"`, { cwd, args, runtimeArgs: [], env });
    } catch (err) {
      if (!(err instanceof TargetError)) throw err;
      if (err.reason !== 'not-plain-node') throw new Error(err.message);
      // Any other script runs as it stands (core/app/command.ts).
      const line = args.length > 0 ? `${command} ${commandLineOf(args)}` : command;
      return { cwd, entry: '', args: [], runtimeArgs: [], env, command: line, script: scriptName };
    }
  }
  const program = typeof c.program === 'string' ? path.resolve(cwd, sub(c.program)) : undefined;
  if (runtime && !/^node(\.exe)?$/.test(path.basename(runtime))) {
    // tsx, ts-node, nodemon… as the runtime: run as VS Code would, the program after its arguments.
    const words = [runtime, ...runtimeArgs, ...(program ? [program] : []), ...args];
    return { cwd, entry: '', args: [], runtimeArgs: [], env, command: commandLineOf(words) };
  }
  if (!program) throw new Error('it has no "program" to start');
  const nodePath = runtime && runtime !== 'node' ? runtime : undefined;
  return { ...base, entry: program, nodePath };
}

function stringList(v: unknown, what: string): string[] {
  if (v === undefined) return [];
  if (typeof v === 'string') return v.split(/\s+/).filter(Boolean);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  throw new Error(`"${what}" must be a list of strings`);
}

/** VS Code's launch.json variables that make sense outside a debug session; others are refused. */
export function substitute(value: string, ctx: LaunchJsonContext): string {
  return value.replace(/\$\{([^}]+)\}/g, (_whole, name: string) => {
    if (name === 'workspaceFolder' || name === 'workspaceRoot') return ctx.folder;
    if (name === 'workspaceFolderBasename') return path.basename(ctx.folder);
    if (name === 'userHome') return ctx.homeDir;
    if (name === 'pathSeparator' || name === '/') return path.sep;
    if (name.startsWith('env:')) return ctx.env[name.slice(4)] ?? '';
    throw new Error(`it uses \${${name}}, which Hotline cannot resolve outside a debug session`);
  });
}

/** KEY=VALUE lines, `#` comments, optional quotes and `export ` (what dotenv files hold). */
export function parseEnvFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!m || line.trim().startsWith('#')) continue;
    let value = m[2];
    if (/^(['"]).*\1$/.test(value)) value = value.slice(1, -1);
    else value = value.replace(/\s+#.*$/, '');
    env[m[1]] = value;
  }
  return env;
}
