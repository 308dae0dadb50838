// The CLI's option parsing (main.ts): parseArgs with its errors as usage errors, and the values
// it leaves as strings read as numbers and NAME=VALUE pairs.
import { parseArgs } from 'node:util';

export class UsageError extends Error {}

export function parse(
  args: string[],
  options: NonNullable<NonNullable<Parameters<typeof parseArgs>[0]>['options']>,
): ReturnType<typeof parseArgs> {
  try {
    return parseArgs({ args: joinNegativeValues(args, options), allowPositionals: true, options, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message.split('\n')[0]);
  }
}

/**
 * `--duration -1` as `--duration=-1`: parseArgs takes a value that starts with a dash for an
 * option and calls the call ambiguous, though the user plainly meant a (negative) number, which
 * then gets the range message it deserves.
 */
function joinNegativeValues(args: string[], options: Record<string, { type: 'string' | 'boolean' }>): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const name = /^--([^=]+)$/.exec(args[i])?.[1];
    if (name !== undefined && options[name]?.type === 'string' && /^-(\d|\.\d)/.test(args[i + 1] ?? '')) {
      out.push(`${args[i]}=${args[i + 1]}`);
      i++;
    } else out.push(args[i]);
  }
  return out;
}

export function num(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new UsageError(`--${flag} needs a number (got "${String(value)}")`);
  return n;
}

export function pairs(values: unknown, sep: string, flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of (values as string[] | undefined) ?? []) {
    const i = v.indexOf(sep);
    if (i <= 0) throw new UsageError(`--${flag} takes NAME${sep}VALUE (got "${v}")`);
    out[v.slice(0, i).trim()] = v.slice(i + 1).trim();
  }
  return out;
}

/** The options of the app Hotline starts and of its own load: `profile` and `gate` take them alike. */
export const APP_AND_LOAD_OPTIONS = {
  entry: { type: 'string' },
  script: { type: 'string' },
  command: { type: 'string' },
  url: { type: 'string' },
  method: { type: 'string' },
  header: { type: 'string', multiple: true },
  body: { type: 'string' },
  connections: { type: 'string' },
  pipelining: { type: 'string' },
  duration: { type: 'string' },
  warmup: { type: 'string' },
  timeout: { type: 'string' },
  env: { type: 'string', multiple: true },
  node: { type: 'string' },
  'listen-timeout': { type: 'string' },
  'stop-grace': { type: 'string' },
  json: { type: 'boolean' },
  'fail-if-slower': { type: 'string' },
} as const;

/** Those options' values as the engine takes them (undefined: its default). */
export function loadAndStartOf(values: ReturnType<typeof parseArgs>['values']): {
  method?: string;
  headers: Record<string, string>;
  body?: string;
  connections?: number;
  pipelining?: number;
  durationS?: number;
  warmupS?: number;
  timeoutS?: number;
  listenTimeoutS?: number;
  stopGraceS?: number;
} {
  return {
    method: values.method as string | undefined,
    headers: pairs(values.header, ':', 'header'),
    body: values.body as string | undefined,
    connections: num(values.connections, 'connections'),
    pipelining: num(values.pipelining, 'pipelining'),
    durationS: num(values.duration, 'duration'),
    warmupS: num(values.warmup, 'warmup'),
    timeoutS: num(values.timeout, 'timeout'),
    listenTimeoutS: num(values['listen-timeout'], 'listen-timeout'),
    stopGraceS: num(values['stop-grace'], 'stop-grace'),
  };
}
