// The CLI's option parsing (main.ts): parseArgs with its errors as usage errors, and the values
// it leaves as strings read as numbers and NAME=VALUE pairs. The options themselves: options.ts.
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { mixFromUrls, mixUrl, readRequestMix, type MixRequest } from '../core/index.ts';
import { APP_AND_LOAD, COMMON_OPTIONS, parseConfigOf } from './options.ts';

export class UsageError extends Error {
  /** The option the command does not know (main.ts points at the command's --help). */
  unknownOption?: string;
}

export function parse(
  args: string[],
  options: NonNullable<NonNullable<Parameters<typeof parseArgs>[0]>['options']>,
): ReturnType<typeof parseArgs> {
  const all = { ...parseConfigOf(COMMON_OPTIONS), ...options };
  try {
    return parseArgs({ args: joinNegativeValues(args, all), allowPositionals: true, options: all, strict: true });
  } catch (err) {
    const unknown = /^Unknown option '([^']+)'/.exec((err as Error).message)?.[1];
    // Node's advice (put it after `--`) would hand the option to the app, not to Hotline.
    const usage = new UsageError(unknown ? `unknown option ${unknown}` : (err as Error).message.split('\n')[0]);
    usage.unknownOption = unknown;
    throw usage;
  }
}

/** `--help` or `-h` before any `--` (after it, arguments are the app's). */
export function wantsHelp(args: string[]): boolean {
  const own = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  return own.some((a) => a === '--help' || a === '-h');
}

/** `--verbose` before any `--`. */
export function wantsVerbose(args: string[]): boolean {
  const own = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  return own.includes('--verbose');
}

/**
 * `--duration -1` as `--duration=-1`: parseArgs takes a value that starts with a dash for an
 * option and calls the call ambiguous, though the user plainly meant a (negative) number, which
 * then gets the range message it deserves.
 */
function joinNegativeValues(
  args: string[],
  options: Record<string, { type: 'string' | 'boolean'; short?: string }>,
): string[] {
  const byShort = new Map(Object.entries(options).flatMap(([name, o]) => (o.short ? [[o.short, name] as const] : [])));
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const name = /^--([^=]+)$/.exec(args[i])?.[1] ?? byShort.get(/^-([a-zA-Z])$/.exec(args[i])?.[1] ?? '');
    if (name !== undefined && options[name]?.type === 'string' && /^-(\d|\.\d)/.test(args[i + 1] ?? '')) {
      out.push(`--${name}=${args[i + 1]}`);
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
export const APP_AND_LOAD_OPTIONS = parseConfigOf(APP_AND_LOAD);

/**
 * `--header K:V`, or autocannon's `K=V`: whichever separator comes first (a header's name has
 * neither), so `authorization:Basic a==` and `cookie=a=b` both read as meant.
 */
export function headersOf(values: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of (values as string[] | undefined) ?? []) {
    const seps = [v.indexOf(':'), v.indexOf('=')].filter((i) => i >= 0);
    const i = seps.length > 0 ? Math.min(...seps) : -1;
    if (i <= 0) throw new UsageError(`--header takes NAME:VALUE or NAME=VALUE (got "${v}")`);
    out[v.slice(0, i).trim()] = v.slice(i + 1).trim();
  }
  return out;
}

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
    headers: headersOf(values.header),
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

/**
 * What profile loads: one --url; several (a mix of equal weights); or --requests FILE, a mix from
 * a file, with --url then giving only the app's address. Throws before anything starts.
 */
export function targetsOf(values: ReturnType<typeof parseArgs>['values']): {
  url: string;
  requests?: MixRequest[];
  requestsNotes?: string[];
} {
  const urls = (values.url === undefined ? [] : ([] as unknown[]).concat(values.url)) as string[];
  const file = values.requests as string | undefined;
  if (values['keep-secrets'] === true && file === undefined)
    throw new UsageError('--keep-secrets goes with --requests FILE (a HAR file)');
  if (file === undefined) {
    if (urls.length === 0)
      throw new UsageError(
        'profile needs --url (a path such as /login, or a full http://127.0.0.1:PORT/… URL) or --requests FILE',
      );
    if (urls.length === 1) return { url: urls[0] };
    const mix = mixFromUrls(urls, values.method as string | undefined, values.body as string | undefined);
    return { url: mixUrl(mix), requests: mix.requests };
  }
  if (values.method !== undefined || values.body !== undefined)
    throw new UsageError('with --requests, each request has its own method and body: set them in the file');
  if (urls.length > 1) throw new UsageError('--requests or several --url, not both');
  const given = urls[0];
  if (given !== undefined && !/^https?:\/\/[^/]+\/?$/.test(given))
    throw new UsageError(
      `with --requests, --url gives only the app's address, e.g. http://127.0.0.1:3000 (got ${given})`,
    );
  const origin = given !== undefined ? new URL(given).origin : undefined;
  const mix = readRequestMix(path.resolve(file), {
    keepSecrets: values['keep-secrets'] === true,
    ...(origin !== undefined ? { origin } : {}),
  });
  return {
    url: `${origin ?? mix.origin ?? ''}${mix.requests[0].path}`,
    requests: mix.requests,
    requestsNotes: mix.notes,
  };
}
