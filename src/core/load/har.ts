// HAR files (as a browser's DevTools or a proxy saves them) as a request mix: each request to the
// app replayed once per cycle, in the file's order, with its method, path, headers and body. What
// cannot or must not be replayed is left out and counted in the notes: requests to other hosts,
// methods the load generator cannot send, websockets, secrets (unless asked), headers that belong
// to one connection or to HTTP/2 framing. Pure.
import { isLoopback } from '../common/index.ts';
import {
  bad,
  HEADER_NAME,
  isRecord,
  MIX_METHODS,
  type MixReadOptions,
  type MixRequest,
  type RequestMix,
} from './mix-types.ts';

/** Credentials: a run's files are shared and kept; a HAR's are the recording user's own. */
export const SECRET_HEADERS = new Set(['cookie', 'authorization', 'proxy-authorization']);
/**
 * One connection's or one hop's (RFC 9110 §7.6.1), and those the load generator writes itself
 * (Host, Content-Length from the body).
 */
const CONNECTION_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
  'content-length',
]);

interface Dropped {
  otherHosts: Map<string, number>;
  methods: Map<string, number>;
  websockets: number;
  notHttp: number;
  secretsIn: number;
}

/** The requests of a parsed HAR document that went to the app. */
export function requestsFromHar(doc: unknown, name: string, opts: MixReadOptions = {}): RequestMix {
  const log = isRecord(doc) ? doc.log : undefined;
  const entries = isRecord(log) && Array.isArray(log.entries) ? (log.entries as unknown[]) : undefined;
  if (!entries) throw bad(`${name}: not a HAR file (no log.entries)`);
  const keepSecrets = opts.keepSecrets === true || (isRecord(doc) && doc.keepSecrets === true);
  const parsed = entries.map((e, i) => entryOf(e, `${name}: entry ${i + 1}`));
  // The app is the loopback origin the user named, else the one the HAR went to most.
  const origin = opts.origin ?? busiestLoopbackOrigin(parsed);
  const dropped: Dropped = { otherHosts: new Map(), methods: new Map(), websockets: 0, notHttp: 0, secretsIn: 0 };
  const requests: MixRequest[] = [];
  for (const e of parsed) {
    if (!e.url || (e.url.protocol !== 'http:' && e.url.protocol !== 'https:')) dropped.notHttp++;
    else if (e.url.origin !== origin) bump(dropped.otherHosts, e.url.host);
    else if (e.websocket) dropped.websockets++;
    else if (!MIX_METHODS.includes(e.method)) bump(dropped.methods, e.method);
    else {
      const { headers, secrets } = replayedHeaders(e.headers, keepSecrets);
      if (secrets) dropped.secretsIn++;
      requests.push({
        method: e.method,
        path: `${e.url.pathname}${e.url.search}`,
        headers,
        ...(e.body !== undefined ? { body: e.body } : {}),
        weight: 1,
      });
    }
  }
  if (requests.length === 0)
    throw bad(
      `${name}: none of its ${entries.length} requests can be replayed to the app${origin ? ` (${origin})` : ' (no request to 127.0.0.1, localhost or ::1)'}${droppedText(dropped, ': ')}`,
    );
  const notes = [`${name}: ${requests.length} of ${entries.length} requests replayed${droppedText(dropped, '; ')}.`];
  if (dropped.secretsIn > 0)
    notes.push(
      `${name}: cookie and authorization headers left out of ${dropped.secretsIn} requests (secrets; --keep-secrets sends them).`,
    );
  return { requests, notes, ...(origin !== undefined && opts.origin === undefined ? { origin } : {}) };
}

interface Entry {
  method: string;
  url?: URL;
  headers: Array<[string, string]>;
  body?: string;
  websocket: boolean;
}

function entryOf(e: unknown, where: string): Entry {
  const req = isRecord(e) ? e.request : undefined;
  if (!isRecord(req) || typeof req.method !== 'string' || typeof req.url !== 'string')
    throw bad(`${where}: no request with a method and a url`);
  let url: URL | undefined;
  try {
    url = new URL(req.url);
  } catch {
    url = undefined;
  }
  const headers: Array<[string, string]> = [];
  if (Array.isArray(req.headers))
    for (const h of req.headers as unknown[])
      if (isRecord(h) && typeof h.name === 'string' && typeof h.value === 'string') headers.push([h.name, h.value]);
  const post = isRecord(req.postData) ? req.postData : undefined;
  const body = typeof post?.text === 'string' && post.text !== '' ? post.text : undefined;
  const upgrade = headers.find(([n]) => n.toLowerCase() === 'upgrade')?.[1];
  const websocket =
    (isRecord(e) && e._resourceType === 'websocket') ||
    upgrade?.toLowerCase() === 'websocket' ||
    /^wss?:$/.test(url?.protocol ?? '');
  return { method: req.method.toUpperCase(), url, headers, ...(body !== undefined ? { body } : {}), websocket };
}

function busiestLoopbackOrigin(entries: Entry[]): string | undefined {
  const counts = new Map<string, number>();
  for (const e of entries)
    if (e.url && /^https?:$/.test(e.url.protocol) && isLoopback(e.url.hostname)) bump(counts, e.url.origin);
  let best: string | undefined;
  for (const [o, n] of counts) if (best === undefined || n > counts.get(best)!) best = o;
  return best;
}

/** A HAR request's headers as they can be sent again, and whether secrets were left out. */
export function replayedHeaders(
  headers: ReadonlyArray<[string, string]>,
  keepSecrets: boolean,
): { headers: Record<string, string>; secrets: boolean } {
  const out: Record<string, string> = {};
  let secrets = false;
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    // HTTP/2's pseudo-headers (:method, :path, :authority, :scheme) are framing, not headers.
    if (lower.startsWith(':') || CONNECTION_HEADERS.has(lower) || /[\r\n]/.test(value)) continue;
    if (SECRET_HEADERS.has(lower) && !keepSecrets) {
      secrets = true;
      continue;
    }
    if (!HEADER_NAME.test(name)) continue;
    // A repeated header (two cookie lines from HTTP/2) is one line, as HTTP/1.1 folds it.
    const have = Object.keys(out).find((k) => k.toLowerCase() === lower);
    if (have !== undefined) out[have] = `${out[have]}${lower === 'cookie' ? '; ' : ', '}${value}`;
    else out[name] = value;
  }
  return { headers: out, secrets };
}

function bump(m: Map<string, number>, key: string): void {
  m.set(key, (m.get(key) ?? 0) + 1);
}

function droppedText(d: Dropped, lead: string): string {
  const parts: string[] = [];
  const hosts = [...d.otherHosts].sort((a, b) => b[1] - a[1]);
  const n = hosts.reduce((s, [, c]) => s + c, 0);
  if (n > 0) {
    const named = hosts.slice(0, 3).map(([h]) => h);
    parts.push(`${n} to other hosts dropped (${named.join(', ')}${hosts.length > 3 ? ', …' : ''})`);
  }
  for (const [m, c] of d.methods) parts.push(`${c} ${m} dropped (not sent by the load generator)`);
  if (d.websockets > 0) parts.push(`${d.websockets} websocket${d.websockets > 1 ? 's' : ''} dropped`);
  if (d.notHttp > 0) parts.push(`${d.notHttp} not http(s) dropped`);
  return parts.length > 0 ? `${lead}${parts.join(', ')}` : '';
}
