// Waits on data stores, inside the app: the exchanges the app makes over its client sockets with
// PostgreSQL, MySQL/MariaDB, Redis and MongoDB, each timed from the write that opens it to the
// first data that answers it, on the calling line of the user's code at that write (part of the
// wait probe: wait-probe.ts starts and removes it). The server is told by the protocol the app
// writes, not by its port (a socket's first recognised write decides); the statement's first
// words come from the same bytes, with literals taken out. A socket whose protocol is not
// recognised is counted as not paired and left alone. While an exchange is open, more writes on
// its socket (a pipelining client) belong to it: one wait, not many.
import type { Socket } from 'node:net';
import { builtin } from './shared/builtins.ts';

export type StoreKind = 'pg' | 'mysql' | 'redis' | 'mongodb';

/** What the wait probe does with an exchange (its type: `<kind>:<host:port> <statement>`). */
export interface ExchangeSink {
  /** `socket`: the pool probe's grants are keyed by it (pool-probe.ts). */
  begin(key: object, type: string, socket: Socket): void;
  end(key: object): void;
}

interface SocketState {
  kind: StoreKind | undefined;
  /** The socket's protocol was not recognised: counted once, never timed. */
  unpaired: boolean;
  /** An exchange is open (its key is this state). */
  open: boolean;
}

/** Writes looked at per socket before it counts as not paired (a handshake may come first). */
const SNIFF_WRITES = 8;
/** Statement text kept: its first words, at most this long. */
const STATEMENT_CHARS = 48;

/**
 * Wraps net.Socket's `write` until the returned function puts it back. `unpaired` is called once
 * per socket whose protocol is not recognised.
 */
export function startSocketProbe(sink: ExchangeSink, unpaired: () => void): () => void {
  const net = builtin('net');
  const proto = net.Socket.prototype as unknown as { write: (...args: unknown[]) => boolean };
  const own = Object.getOwnPropertyDescriptor(proto, 'write');
  const write = proto.write;
  const states = new WeakMap<Socket, SocketState & { writes: number }>();
  const listening = new Set<Socket>();
  const onData = function (this: Socket): void {
    const s = states.get(this);
    if (!s || !s.open) return;
    s.open = false;
    sink.end(s);
  };
  const wrapped = function (this: Socket, ...args: unknown[]): boolean {
    try {
      noteWrite(this, args[0]);
    } catch {
      // never the app's problem: this write is not timed
    }
    return write.apply(this, args);
  };
  const noteWrite = (socket: Socket, chunk: unknown): void => {
    // Server-side sockets and HTTP clients' sockets are not data-store clients.
    const s0 = socket as Socket & { server?: unknown; _httpMessage?: unknown };
    if (s0.server || s0._httpMessage !== undefined) return;
    let s = states.get(socket);
    if (!s) states.set(socket, (s = { kind: undefined, unpaired: false, open: false, writes: 0 }));
    if (s.unpaired || s.open) return;
    const bytes = bytesOf(chunk);
    if (!bytes) return;
    const seen = sniff(bytes);
    if (seen) s.kind = seen.kind;
    if (!s.kind) {
      if (++s.writes >= SNIFF_WRITES) {
        s.unpaired = true;
        unpaired();
      }
      return;
    }
    // The driver reads its answers from 'data' (one listener already there): without one there
    // is nothing to time, and adding one would change how the socket is read.
    if (!listening.has(socket)) {
      if (socket.listenerCount('data') === 0) return;
      socket.prependListener('data', onData);
      listening.add(socket);
    }
    s.open = true;
    const where = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    sink.begin(s, `${s.kind}:${where}${seen?.statement ? ` ${seen.statement}` : ''}`, socket);
  };
  proto.write = wrapped;
  return () => {
    if (proto.write === wrapped) {
      if (own) Object.defineProperty(proto, 'write', own);
      else delete (proto as { write?: unknown }).write;
    }
    for (const socket of listening) socket.removeListener('data', onData);
    listening.clear();
  };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function bytesOf(chunk: unknown): Uint8Array | undefined {
  if (chunk instanceof Uint8Array) return chunk;
  if (typeof chunk === 'string') return encoder.encode(chunk.slice(0, 512));
  return undefined;
}

const int32 = (b: Uint8Array, at: number): number =>
  ((b[at] << 24) | (b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]) >>> 0;
const int32le = (b: Uint8Array, at: number): number =>
  (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;

/** The text from `at` to the next NUL (or the end), at most 512 bytes. */
function cstring(b: Uint8Array, at: number): string {
  let end = at;
  while (end < b.length && end < at + 512 && b[end] !== 0) end++;
  return decoder.decode(b.subarray(at, end));
}

/**
 * The protocol a client write belongs to, and its statement where it carries one; undefined
 * when the bytes are none of those this probe knows (or a handshake it does not time).
 */
export function sniff(b: Uint8Array): { kind: StoreKind; statement: string } | undefined {
  if (b.length < 5) return undefined;
  // PostgreSQL: a typed message, its length (which counts itself) plausible. Query ('Q') and
  // Parse ('P') carry the SQL; Bind ('B') runs a prepared statement.
  // The write holds whole messages (node-postgres writes them so): the first one ends in it.
  const pgLength = int32(b, 1);
  if ((b[0] === 0x51 || b[0] === 0x50 || b[0] === 0x42) && pgLength >= 4 && pgLength + 1 <= b.length) {
    if (b[0] === 0x51) return b[pgLength] === 0 ? { kind: 'pg', statement: statementOf(cstring(b, 5)) } : undefined;
    if (b[0] === 0x50) {
      const name = cstring(b, 5);
      return { kind: 'pg', statement: statementOf(cstring(b, 5 + encoder.encode(name).length + 1)) };
    }
    return { kind: 'pg', statement: '' };
  }
  // Redis: a RESP array of bulk strings, the first the command's name.
  if (b[0] === 0x2a /* * */) {
    const text = decoder.decode(b.subarray(0, Math.min(b.length, 128)));
    const m = /^\*\d+\r\n\$\d+\r\n([A-Za-z.]+)\r\n/.exec(text);
    if (m) return { kind: 'redis', statement: m[1].toUpperCase() };
    return undefined;
  }
  // MySQL / MariaDB: a packet of sequence 0 (a new command) whose length is the write's (or
  // more: a long one spans writes): COM_QUERY (its SQL), COM_STMT_PREPARE, COM_STMT_EXECUTE.
  const len = b[0] | (b[1] << 8) | (b[2] << 16);
  if (b[3] === 0 && len >= b.length - 4 && (b[4] === 0x03 || b[4] === 0x16 || b[4] === 0x17)) {
    if (b[4] === 0x17) return { kind: 'mysql', statement: '' };
    return { kind: 'mysql', statement: statementOf(decoder.decode(b.subarray(5, Math.min(b.length, 517)))) };
  }
  // MongoDB: OP_MSG (2013), the command's name the first key of its body.
  if (b.length >= 26 && int32le(b, 0) >= 21 && int32le(b, 12) === 2013 && b[20] === 0) {
    return { kind: 'mongodb', statement: cstring(b, 26) };
  }
  return undefined;
}

/**
 * A statement's first words with its literals taken out: strings and numbers become `?`, so no
 * value leaves the app.
 */
export function statementOf(sql: string): string {
  const redacted = sql
    .replace(/'(?:[^']|'')*'?/g, '?')
    .replace(/(?<![$\w.])\d+(?:\.\d+)?\b/g, '?')
    .replace(/\s+/g, ' ')
    .trim();
  const words = redacted.split(' ').slice(0, 6).join(' ');
  return words.length > STATEMENT_CHARS ? `${words.slice(0, STATEMENT_CHARS - 1)}…` : words;
}
