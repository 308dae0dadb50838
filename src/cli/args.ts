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
