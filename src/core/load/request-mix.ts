// A request mix: several requests loaded together in fixed proportions (--requests FILE, several
// --url). This module reads the list from a file's text (JSON or YAML; HAR files: har.ts) and turns
// the weights into the one order autocannon cycles through. Pure: text in, requests out; bad input
// is one RunError('bad-options') line and nothing starts.
import { parse as parseYaml } from 'yaml';
import { isLoopback } from '../common/index.ts';
import { requestsFromHar } from './har.ts';
import {
  bad,
  HEADER_NAME,
  isRecord,
  MIX_METHODS,
  type MixReadOptions,
  type MixRequest,
  type RequestMix,
} from './mix-types.ts';

export { bad, MIX_METHODS, type MixReadOptions, type MixRequest, type RequestMix } from './mix-types.ts';

const ENTRY_KEYS = new Set(['method', 'path', 'url', 'headers', 'body', 'weight']);
/** A longer cycle means weights finer than anyone means (1:100000); each connection keeps the cycle. */
export const MAX_CYCLE = 100_000;

/** Reads a mix file's text; `name` (its file name) tells the format by its extension. */
export function parseRequestMix(text: string, name: string, opts: MixReadOptions = {}): RequestMix {
  const ext = /\.([a-z]+)$/i.exec(name)?.[1]?.toLowerCase();
  const doc = parseDocument(text, name, ext);
  if (ext === 'har' || isHar(doc)) return requestsFromHar(doc, name, opts);
  return requestsFromList(doc, name, opts);
}

function parseDocument(text: string, name: string, ext: string | undefined): unknown {
  const asJson = (): unknown => JSON.parse(text) as unknown;
  const asYaml = (): unknown => parseYaml(text) as unknown;
  const tries =
    ext === 'yaml' || ext === 'yml' ? [asYaml] : ext === 'json' || ext === 'har' ? [asJson] : [asJson, asYaml];
  let last: unknown;
  for (const t of tries) {
    try {
      return t();
    } catch (err) {
      last = err;
    }
  }
  const why = last instanceof Error ? last.message.split('\n')[0] : String(last);
  throw bad(`${name}: not ${tries.length > 1 ? 'JSON or YAML' : tries[0] === asYaml ? 'YAML' : 'JSON'}: ${why}`);
}

function isHar(doc: unknown): boolean {
  const log = isRecord(doc) ? doc.log : undefined;
  return isRecord(log) && Array.isArray(log.entries);
}

/** `[{ path, weight, … }]`, or `{ requests: [...] }`. */
function requestsFromList(doc: unknown, name: string, opts: MixReadOptions): RequestMix {
  const list = Array.isArray(doc) ? doc : isRecord(doc) ? doc.requests : undefined;
  if (!Array.isArray(list))
    throw bad(`${name}: expected a list of requests, or { "requests": [...] }, or a HAR file (log.entries)`);
  if (list.length === 0) throw bad(`${name}: the list of requests is empty`);
  let origin = opts.origin;
  const requests = list.map((entry, i) => {
    const where = `${name}: request ${i + 1}`;
    const r = requestOf(entry, where);
    if (r.origin !== undefined) {
      if (origin !== undefined && r.origin !== origin)
        throw bad(`${where}: ${r.origin} is not the app's address ${origin}: one app per run`);
      origin = r.origin;
    }
    return r.request;
  });
  return { requests, notes: [], ...(origin !== undefined && opts.origin === undefined ? { origin } : {}) };
}

function requestOf(entry: unknown, where: string): { request: MixRequest; origin?: string } {
  if (!isRecord(entry)) throw bad(`${where}: expected an object with a path`);
  const unknown = Object.keys(entry).filter((k) => !ENTRY_KEYS.has(k));
  if (unknown.length > 0)
    throw bad(`${where}: unknown field ${unknown.join(', ')} (fields: ${[...ENTRY_KEYS].join(', ')})`);
  const target = entry.path ?? entry.url;
  if (entry.path !== undefined && entry.url !== undefined) throw bad(`${where}: give path or url, not both`);
  if (typeof target !== 'string') throw bad(`${where}: needs a path (/orders/1) or a url on this machine`);
  const { path, origin } = targetOf(target, where);
  const method = entry.method === undefined ? 'GET' : entry.method;
  if (typeof method !== 'string' || !MIX_METHODS.includes(method.toUpperCase()))
    throw bad(`${where}: method must be one of ${MIX_METHODS.join(', ')} (got ${JSON.stringify(method)})`);
  const headers = headersOf(entry.headers, where);
  let body: string | undefined;
  if (typeof entry.body === 'string') body = entry.body;
  else if (entry.body !== undefined && entry.body !== null) {
    if (typeof entry.body !== 'object') throw bad(`${where}: body must be text or a JSON object`);
    // An object body is sent as JSON, which the app can only read as such with its content type.
    body = JSON.stringify(entry.body);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
      headers['content-type'] = 'application/json';
  }
  const weight = entry.weight === undefined ? 1 : entry.weight;
  if (typeof weight !== 'number' || !Number.isFinite(weight) || weight <= 0)
    throw bad(`${where}: weight must be a number above 0 (got ${JSON.stringify(weight)})`);
  return {
    request: { method: method.toUpperCase(), path, headers, ...(body !== undefined ? { body } : {}), weight },
    ...(origin !== undefined ? { origin } : {}),
  };
}

/** A path, or a full URL on this machine (its origin kept to check it is the app's). */
export function targetOf(target: string, where: string): { path: string; origin?: string } {
  if (target.startsWith('/')) {
    if (/[\s]/.test(target)) throw bad(`${where}: a path has no spaces (got ${JSON.stringify(target)})`);
    return { path: target };
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw bad(`${where}: ${JSON.stringify(target)} is neither a path (/login) nor a full http:// URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw bad(`${where}: only http: and https: URLs`);
  if (!isLoopback(url.hostname))
    throw bad(`${where}: ${url.hostname} is not this machine: load tests only target 127.0.0.1, localhost or ::1`);
  return { path: `${url.pathname}${url.search}`, origin: url.origin };
}

function headersOf(x: unknown, where: string): Record<string, string> {
  if (x === undefined || x === null) return {};
  if (!isRecord(x)) throw bad(`${where}: headers must be an object of name: value`);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(x)) {
    if (!HEADER_NAME.test(name)) throw bad(`${where}: invalid header name ${JSON.stringify(name)}`);
    if ((typeof value !== 'string' && typeof value !== 'number') || /[\r\n]/.test(String(value)))
      throw bad(`${where}: invalid value for header ${name}`);
    out[name] = String(value);
  }
  return out;
}

/** Several --url: one request each, equal weights, the command's method and body. */
export function mixFromUrls(urls: readonly string[], method = 'GET', body?: string): RequestMix {
  let origin: string | undefined;
  const requests = urls.map((u, i) => {
    const t = targetOf(u, `--url ${i + 1}`);
    if (t.origin !== undefined) {
      if (origin !== undefined && t.origin !== origin)
        throw bad(`--url ${u}: not the address of the other --url (${origin}): one app per run`);
      origin = t.origin;
    }
    return {
      method: method.toUpperCase(),
      path: t.path,
      headers: {},
      ...(body !== undefined ? { body } : {}),
      weight: 1,
    };
  });
  return { requests, notes: [], ...(origin !== undefined ? { origin } : {}) };
}

/**
 * The order a connection sends the requests in: each request's index as often as its weight says
 * per cycle, spread out by smooth weighted round-robin (nginx's), so 1:2:1 is `1 0 2 1`, not
 * `0 1 1 2`. autocannon cycles through its list in order per connection, so every whole cycle
 * holds the mix exactly. Weights are made whole numbers first (0.5:1 → 1:2).
 */
export function interleave(weights: readonly number[]): number[] {
  const whole = wholeWeights(weights);
  const total = whole.reduce((a, b) => a + b, 0);
  if (total > MAX_CYCLE)
    throw bad(`the weights make a cycle of ${total} requests (at most ${MAX_CYCLE}): use coarser weights`);
  const current = whole.map(() => 0);
  const order: number[] = [];
  for (let n = 0; n < total; n++) {
    let best = 0;
    for (let i = 0; i < whole.length; i++) {
      current[i] += whole[i];
      if (current[i] > current[best]) best = i;
    }
    current[best] -= total;
    order.push(best);
  }
  return order;
}

/** The smallest whole numbers in the weights' proportions (to 1 in 1000 for fractional ones). */
export function wholeWeights(weights: readonly number[]): number[] {
  if (weights.length === 0) throw bad('a request mix needs at least one request');
  for (const w of weights) if (!(Number.isFinite(w) && w > 0)) throw bad(`a weight must be above 0 (got ${w})`);
  let scale = 1;
  while (scale < 1000 && !weights.every((w) => Math.abs(w * scale - Math.round(w * scale)) < 1e-9)) scale++;
  const ints = weights.map((w) => Math.max(1, Math.round(w * scale)));
  const g = ints.reduce(gcd);
  return ints.map((w) => w / g);
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** The run's `url` for a mix: its first request, at the app's address when the file named it. */
export function mixUrl(mix: RequestMix): string {
  return `${mix.origin ?? ''}${mix.requests[0].path}`;
}
