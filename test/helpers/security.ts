// Helpers for the security tests, read straight from the kernel (/proc), independent of src/:
// which TCP sockets a process listens on, its environment and command line, outgoing connection
// attempts of this test process (a tripwire that records and blocks any to a non-loopback host),
// and a search for secret strings in the files of a run folder.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

// ---- listening sockets, from /proc --------------------------------------------------------------

export interface ListeningSocket {
  /** 4 (from /proc/net/tcp) or 6 (from /proc/net/tcp6). */
  family: 4 | 6;
  /** Dotted IPv4, or IPv6 in its compressed form ('::', '::1', '::ffff:127.0.0.1'). */
  address: string;
  port: number;
  inode: number;
}

const LISTEN = '0A';

/** `0100007F` (host byte order) → 127.0.0.1. */
function ipv4(hex: string): string {
  const bytes = Buffer.from(hex, 'hex');
  if (os.endianness() === 'LE') bytes.reverse();
  return [...bytes].join('.');
}

/** 32 hex digits, four 32-bit words in host byte order → a compressed IPv6 address. */
function ipv6(hex: string): string {
  const bytes = Buffer.alloc(16);
  for (let w = 0; w < 4; w++) {
    const word = Buffer.from(hex.slice(w * 8, w * 8 + 8), 'hex');
    if (os.endianness() === 'LE') word.reverse();
    word.copy(bytes, w * 4);
  }
  // IPv4-mapped (::ffff:a.b.c.d): shown the way Node and people write it.
  if (bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff)
    return `::ffff:${[...bytes.subarray(12)].join('.')}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
  // The URL parser compresses the longest run of zero groups, as RFC 5952 says.
  return new URL(`http://[${groups.join(':')}]/`).hostname.replace(/^\[|\]$/g, '');
}

/** Every TCP socket in LISTEN state in this network namespace. */
export function listeningSockets(): ListeningSocket[] {
  const out: ListeningSocket[] = [];
  for (const [file, family] of [
    ['/proc/net/tcp', 4],
    ['/proc/net/tcp6', 6],
  ] as const) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue; // no IPv6 in this kernel
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== LISTEN) continue;
      const [addrHex, portHex] = f[1].split(':');
      out.push({
        family,
        address: family === 4 ? ipv4(addrHex) : ipv6(addrHex),
        port: parseInt(portHex, 16),
        inode: Number(f[9]),
      });
    }
  }
  return out;
}

/** Inodes of the sockets `pid` holds open (/proc/<pid>/fd/* → `socket:[inode]`). */
export function socketInodesOf(pid: number): Set<number> {
  const inodes = new Set<number>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed while we looked
    }
    const m = /^socket:\[(\d+)\]$/.exec(target);
    if (m) inodes.add(Number(m[1]));
  }
  return inodes;
}

/** The TCP sockets process `pid` itself listens on. */
export function listeningSocketsOf(pid: number): ListeningSocket[] {
  const mine = socketInodesOf(pid);
  return listeningSockets().filter((s) => mine.has(s.inode));
}

export const describeSockets = (list: ListeningSocket[]): string =>
  list.length === 0
    ? '(none)'
    : list.map((s) => `${s.family === 6 ? `[${s.address}]` : s.address}:${s.port} (inode ${s.inode})`).join(', ');

/** Any address: 0.0.0.0, ::, or the mapped form. */
export const isWildcard = (address: string): boolean =>
  address === '0.0.0.0' || address === '::' || address === '::ffff:0.0.0.0';

// ---- a process as the kernel sees it ----------------------------------------------------------

/** The environment `pid` was started with. */
export function environOf(pid: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) out[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return out;
}

/** The argv of `pid` (what `ps` shows any user of the machine). */
export function argvOf(pid: number): string[] {
  return fs
    .readFileSync(`/proc/${pid}/cmdline`, 'utf8')
    .split('\0')
    .filter((a) => a !== '');
}

// ---- outgoing connections of this process -----------------------------------------------------

/** A strict, independent loopback test (not the one in src/): 127.0.0.0/8, ::1, localhost. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h === '::1') return true;
  return net.isIPv4(h) && h.startsWith('127.');
}

export interface ConnectAttempt {
  host: string;
  port: number | string | undefined;
  blocked: boolean;
}

/**
 * Records every TCP connection this process starts (net.Socket#connect underlies http, ws, tls
 * and chrome-remote-interface) and blocks, with an exception before any packet, those to hosts
 * that are not loopback: a test that is wrong still sends nothing off the machine.
 */
export class NetTripwire {
  readonly attempts: ConnectAttempt[] = [];
  private readonly original = net.Socket.prototype.connect;

  constructor() {
    const attempts = this.attempts;
    const original = this.original;
    net.Socket.prototype.connect = function patched(this: net.Socket, ...args: unknown[]): net.Socket {
      // Node calls it with (options[, cb]), (port[, host][, cb]), (path[, cb]) or, internally,
      // with one array of the normalised arguments.
      let first = args[0];
      if (Array.isArray(first)) first = first[0];
      let host: string | undefined;
      let port: number | string | undefined;
      // A unix socket, as net itself decides it: a non-empty `path` (http passes `path: null`).
      let pipe = false;
      if (typeof first === 'object' && first !== null) {
        const o = first as { host?: string | null; port?: number | string; path?: string | null };
        host = o.host ?? undefined;
        port = o.port;
        pipe = !!o.path;
      } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
        port = first;
        host = typeof args[1] === 'string' ? args[1] : undefined;
      } else if (typeof first === 'string') {
        pipe = first !== '';
      }
      if (pipe) return original.apply(this, args as never);
      const target = host ?? 'localhost';
      const blocked = !isLoopbackHost(target);
      attempts.push({ host: target, port, blocked });
      if (blocked)
        throw new Error(
          `NetTripwire: blocked a connection to ${target}:${port} (only loopback is allowed in this test)`,
        );
      return original.apply(this, args as never);
    } as typeof net.Socket.prototype.connect;
  }

  dispose(): void {
    net.Socket.prototype.connect = this.original;
  }

  nonLoopback(): ConnectAttempt[] {
    return this.attempts.filter((a) => !isLoopbackHost(a.host));
  }
}

// ---- apps ---------------------------------------------------------------------------------------

/** Copies an app folder (node_modules included, no .hotline) into `into`; returns the copy's path. */
export function copyApp(src: string, into: string): string {
  const dest = path.join(into, path.basename(src));
  fs.cpSync(src, dest, { recursive: true, filter: (p) => !p.split(path.sep).includes('.hotline') });
  return dest;
}

// ---- secrets in files -------------------------------------------------------------------------

export interface SecretHit {
  file: string;
  secret: string;
  /** Some text around the first occurrence. */
  context: string;
}

/** Every file under `dir` (recursively). */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

/** Occurrences of any of `secrets` in `text` (as written, URL-encoded, or JSON-escaped). */
export function secretsIn(text: string, secrets: readonly string[]): Array<{ secret: string; context: string }> {
  const hits: Array<{ secret: string; context: string }> = [];
  for (const secret of secrets) {
    for (const form of new Set([
      secret,
      encodeURIComponent(secret),
      JSON.stringify(secret).slice(1, -1),
      Buffer.from(secret).toString('base64'),
    ])) {
      const at = text.indexOf(form);
      if (at >= 0) {
        hits.push({ secret, context: text.slice(Math.max(0, at - 60), at + form.length + 20) });
        break;
      }
    }
  }
  return hits;
}

/** Occurrences of `secrets` in the text of each file under `dir`. */
export function secretsInFiles(
  dir: string,
  secrets: readonly string[],
  skip: (file: string) => boolean = () => false,
): SecretHit[] {
  const hits: SecretHit[] = [];
  for (const file of filesUnder(dir)) {
    if (skip(file)) continue;
    for (const h of secretsIn(fs.readFileSync(file, 'utf8'), secrets)) hits.push({ file, ...h });
  }
  return hits;
}
