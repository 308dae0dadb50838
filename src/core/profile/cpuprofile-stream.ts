// A .cpuprofile read in chunks, never as one string: V8 cannot make a string over ~512 MiB, so a
// long run's profile (1–2 GB) cannot go through JSON.parse, and reading it whole also holds the
// file's bytes next to what is built from them. Here a window of the file at a time is scanned:
// the elements of `nodes` are cut out and JSON.parsed in batches, each node's call frame shared
// with the nodes before it of the same frame, else its strings (a profile repeats a few thousand
// frames and a few hundred URLs millions of times); `samples` and `timeDeltas` go straight into
// typed arrays (number-list.ts). What comes out is the value
// readOwnedCpuProfile checks, as for cpuprofile-reader.ts. A file the scan does not expect (a
// wrapped profile, a duplicate key, broken JSON) gives undefined: the caller falls back to the
// strict whole-file reader where a string can hold it, and that reader words the error.

/** Reads up to `into.length` bytes at `position` of the file; 0 at its end. */
export type ReadAt = (into: Uint8Array, position: number) => number;

import {
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  endOfString,
  isSpace,
  MINUS,
  NINE,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  ZERO,
} from './json-bytes.ts';
import { checkOwnedNodesAhead } from './cpuprofile.ts';
import { NodeBytes } from './cpuprofile-node-bytes.ts';
import { NumbersAhead } from './cpuprofile-numbers-ahead.ts';
import { NumberList } from './number-list.ts';

/** The window's size: big enough that refills are rare, small next to the files it is for. */
const WINDOW_BYTES = 8 << 20;
/** Files from this size on have their number arrays read on a second thread (cpuprofile-numbers-ahead.ts). */
const AHEAD_FROM_BYTES = 32 << 20;
/** A number token is never longer than this; the fast loop stops this far from the window's end. */
const TOKEN_MARGIN = 64;
/** Bytes of nodes parsed by one JSON.parse call. */
const NODE_BATCH_BYTES = 1 << 20;
/** A value other than nodes/samples/timeDeltas larger than this is not a profile this reader knows. */
const MAX_OTHER_VALUE = 64 << 20;

/** Thrown inside the scan for anything it does not expect; the reader then returns undefined. */
class Unexpected extends Error {}

/**
 * A window over the file: bytes [0, end) of `buf` are the file's bytes from `fileAt`. A 0 byte
 * always follows them (the buffer keeps one spare): no scan loop runs on into stale bytes.
 */
class Window {
  buf: Buffer;
  end = 0;
  fileAt = 0;
  eof = false;

  constructor(
    private readonly readAt: ReadAt,
    bytes: number,
  ) {
    this.buf = Buffer.allocUnsafe(Math.max(16, bytes));
  }

  /**
   * Keeps the bytes from `keep` on, moved to the start, and reads more after them (growing the
   * window when one value fills it). Returns how far the kept bytes moved (subtract it from any
   * index into them), or -1 at the end of the file.
   */
  refill(keep: number): number {
    if (this.eof) return -1;
    const kept = this.end - keep;
    if (kept >= this.buf.length / 2) {
      const bigger = Buffer.allocUnsafe(this.buf.length * 2);
      this.buf.copy(bigger, 0, keep, this.end);
      this.buf = bigger;
    } else this.buf.copyWithin(0, keep, this.end);
    this.fileAt += keep;
    this.end = kept;
    const room = this.buf.length - 1;
    while (this.end < room) {
      const n = this.readAt(this.buf.subarray(this.end, room), this.fileAt + this.end);
      if (n <= 0) {
        this.eof = true;
        break;
      }
      this.end += n;
    }
    this.buf[this.end] = 0;
    return keep;
  }

  /** The window from byte `position` of the file on (forward: what lies between is not read). */
  seek(position: number): void {
    this.fileAt = position;
    this.end = 0;
    this.eof = false;
    this.refill(0);
  }
}

/**
 * The profile's JSON value with `samples`/`timeDeltas` as typed arrays, or undefined when the
 * file is not the plain V8 shape this reader knows (see the top of the file).
 */
export function streamCpuProfileValue(readAt: ReadAt, opts: StreamOptions = {}): Record<string, unknown> | undefined {
  const windowBytes = opts.windowBytes ?? WINDOW_BYTES;
  const ahead =
    opts.file !== undefined && (opts.size ?? 0) >= (opts.aheadFrom ?? AHEAD_FROM_BYTES)
      ? new NumbersAhead(opts.file, windowBytes)
      : undefined;
  try {
    return new Scan(new Window(readAt, windowBytes), ahead).run();
  } catch (err) {
    if (err instanceof Unexpected || err instanceof SyntaxError || err instanceof TypeError) return undefined;
    throw err;
  } finally {
    ahead?.close();
  }
}

export interface StreamOptions {
  windowBytes?: number;
  /** The file `readAt` reads, of `size` bytes: from `aheadFrom` bytes on its number arrays are read on a second thread. */
  file?: string;
  size?: number;
  aheadFrom?: number;
}

class Scan {
  private i = 0;
  private readonly strings = new Map<string, string>();
  private readonly frames = new Map<string, Record<string, unknown>>();
  private readonly plain = new NodeBytes();

  constructor(
    private readonly w: Window,
    private readonly ahead?: NumbersAhead,
  ) {}

  /** The byte at `i`, reading more when the window ends there; -1 at the end of the file. */
  private byteAt(): number {
    if (this.i >= this.w.end) {
      const moved = this.w.refill(this.i);
      if (moved < 0 || this.w.end === 0) return -1;
      this.i -= moved;
      if (this.i >= this.w.end) return -1;
    }
    return this.w.buf[this.i];
  }

  private skipSpace(): number {
    let c = this.byteAt();
    while (c >= 0 && isSpace(c)) {
      this.i++;
      c = this.byteAt();
    }
    return c;
  }

  private expect(byte: number): void {
    if (this.skipSpace() !== byte) throw new Unexpected();
    this.i++;
  }

  run(): Record<string, unknown> {
    this.w.refill(0);
    const b = this.w.buf;
    if (this.w.end >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) this.i = 3;
    this.expect(OPEN_BRACE);
    const out: Record<string, unknown> = {};
    for (;;) {
      if (this.skipSpace() !== QUOTE) throw new Unexpected(); // also {}: nothing to read
      const key = this.parseValue() as string;
      if (typeof key !== 'string' || key === '__proto__' || Object.prototype.hasOwnProperty.call(out, key))
        throw new Unexpected();
      this.expect(COLON);
      const c = this.skipSpace();
      if (key === 'nodes' && c === OPEN_BRACKET) out.nodes = this.readNodes();
      else if ((key === 'samples' || key === 'timeDeltas') && c === OPEN_BRACKET) {
        // The second of the two has as many numbers as the first, in a valid profile.
        // While the worker may still be reading, the nodes are checked (their work, done now, not later).
        if (this.ahead && Array.isArray(out.nodes)) checkOwnedNodesAhead(out.nodes);
        const read = this.ahead?.take(key, this.w.fileAt + this.i);
        if (read) {
          out[key] = read.values;
          this.w.seek(read.end);
          this.i = 0;
        } else {
          const other = out[key === 'samples' ? 'timeDeltas' : 'samples'] as Int32Array | Float64Array | undefined;
          out[key] = this.readNumbers(other?.length);
        }
      } else out[key] = this.parseValue();
      const next = this.skipSpace();
      this.i++;
      if (next === COMMA) continue;
      if (next !== CLOSE_BRACE) throw new Unexpected();
      break;
    }
    if (this.skipSpace() !== -1) throw new Unexpected();
    if (!Array.isArray(out.nodes)) throw new Unexpected(); // a wrapped profile: the whole-file reader's
    return out;
  }

  /** One JSON value at `i`, cut out and parsed on its own. */
  private parseValue(): unknown {
    let end = endOfValue(this.w.buf, this.i, this.w.end);
    while (end < 0) {
      if (this.w.end - this.i > MAX_OTHER_VALUE) throw new Unexpected();
      const moved = this.w.refill(this.i);
      if (moved < 0) throw new Unexpected();
      this.i -= moved;
      end = endOfValue(this.w.buf, this.i, this.w.end);
      if (end < 0 && this.w.eof) throw new Unexpected();
    }
    // Decoded as readFileSync(file, 'utf8') decodes the whole file, for the same strings.
    const text = this.w.buf.toString('utf8', this.i, end);
    this.i = end;
    return JSON.parse(text) as unknown;
  }

  private readNodes(): unknown[] {
    this.i++; // [
    const nodes: unknown[] = [];
    if (this.skipSpace() === CLOSE_BRACKET) {
      this.i++;
      return nodes;
    }
    for (;;) {
      // As many whole nodes as the window holds (up to a batch): those of V8's plain shape read
      // from their bytes (cpuprofile-node-bytes.ts), each run of others by one JSON.parse (a
      // call per node cost twice the time of the same bytes in one call).
      this.skipSpace();
      const b = this.w.buf;
      const end = this.w.end;
      const from = this.i;
      let j = from;
      let last = -1;
      let closed = false;
      /** Where the run of nodes left to JSON.parse starts, -1 when there is none. */
      let slowFrom = -1;
      while (j - from < NODE_BATCH_BYTES) {
        const node = this.plain.read(b, j, end);
        let e: number;
        if (node !== undefined) {
          if (slowFrom >= 0) this.parseNodes(nodes, slowFrom, last);
          slowFrom = -1;
          nodes.push(node);
          e = this.plain.end;
        } else {
          e = endOfValue(b, j, end);
          if (e < 0) break;
          if (slowFrom < 0) slowFrom = j;
        }
        last = e;
        let k = e;
        while (k < end && isSpace(b[k])) k++;
        if (k >= end) break;
        if (b[k] === CLOSE_BRACKET) {
          closed = true;
          j = k + 1;
          break;
        }
        if (b[k] !== COMMA) throw new Unexpected();
        k++;
        while (k < end && isSpace(b[k])) k++;
        if (k >= end) break;
        j = k;
      }
      if (last < 0) {
        // Not one whole node in the window: read on (the window grows for a node larger than it).
        const moved = this.w.refill(from);
        if (moved < 0) throw new Unexpected();
        this.i = from - moved;
        continue;
      }
      if (slowFrom >= 0) this.parseNodes(nodes, slowFrom, last);
      if (closed) {
        this.i = j;
        return nodes;
      }
      this.i = last;
      const c = this.skipSpace();
      this.i++;
      if (c !== COMMA) throw new Unexpected();
    }
  }

  /** The nodes in the window's bytes [from, to) (whole ones, with commas between), by one JSON.parse. */
  private parseNodes(nodes: unknown[], from: number, to: number): void {
    // Decoded as readFileSync(file, 'utf8') decodes the whole file, for the same strings.
    const batch = JSON.parse(`[${this.w.buf.toString('utf8', from, to)}]`) as unknown[];
    for (let n = 0; n < batch.length; n++) nodes.push(this.share(batch[n]));
  }

  /**
   * The node with its call frame shared with the nodes read before that have the same one (a
   * function sits at many nodes: one object for all, far fewer objects for the garbage collector
   * to move and mark), or else the frame's strings shared (one copy each).
   */
  private share(node: unknown): unknown {
    const n = node as { callFrame?: Record<string, unknown> } | null;
    const cf = n?.callFrame;
    if (typeof cf !== 'object' || cf === null) return node;
    const key = plainFrameKey(cf);
    if (key !== undefined) {
      const known = this.frames.get(key);
      if (known !== undefined) {
        n!.callFrame = known;
        return node;
      }
      this.frames.set(key, cf);
    }
    for (const k of ['functionName', 'url', 'scriptId'] as const) {
      const v = cf[k];
      if (typeof v !== 'string') continue;
      const known = this.strings.get(v);
      if (known === undefined) this.strings.set(v, v);
      else cf[k] = known;
    }
    return node;
  }

  /** A JSON array of numbers into a typed array (as cpuprofile-reader.ts reads them); `expected`: their count, when known. */
  private readNumbers(expected?: number): Int32Array | Float64Array {
    this.i++; // [
    const list = new NumberList(expected);
    if (this.skipSpace() === CLOSE_BRACKET) {
      this.i++;
      return list.done();
    }
    for (;;) {
      // The fast loop: whole tokens while the window holds well more than one.
      const b = this.w.buf;
      const stop = this.w.eof ? this.w.end : this.w.end - TOKEN_MARGIN;
      const end = this.w.end;
      let j = this.i;
      // The list's array and fill in locals (written back before anything else sees the list).
      let cur = list.current;
      let at = list.at;
      let room = list.floats ? 0 : cur.length;
      while (j < stop) {
        j = plainTokens(b, j, stop, cur, at, room);
        at = plainTokensAt;
        if (j >= stop) break;
        // Any other token, one: spaces, a minus, a zero, a fraction, the last one, a full array.
        let c = b[j];
        const tokenFrom = j;
        while (isSpace(c)) c = b[++j];
        const negative = c === MINUS;
        if (negative) c = b[++j];
        if (c < ZERO || c > NINE) {
          if (j < end || this.w.eof) throw new Unexpected();
          j = tokenFrom; // only spaces (or a minus) before the window's end: read on
          break;
        }
        const digitsFrom = j;
        let v = c - ZERO;
        c = b[++j];
        if (v === 0) {
          if (c >= ZERO && c <= NINE) throw new Unexpected();
        } else {
          while (c >= ZERO && c <= NINE) {
            v = v * 10 + (c - ZERO);
            c = b[++j];
          }
        }
        // A fraction, an exponent or more digits than a double holds exactly: rare, parsed as text.
        if (c === 0x2e || c === 0x65 || c === 0x45 || j - digitsFrom > 15) {
          let k = j;
          while (k < end && !isSpace(b[k]) && b[k] !== COMMA && b[k] !== CLOSE_BRACKET) k++;
          const token = b.toString('latin1', negative ? digitsFrom - 1 : digitsFrom, k);
          if (!/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(token)) throw new Unexpected();
          v = Number(token);
          j = k;
          c = b[j];
        } else if (negative) v = -v;
        while (isSpace(c)) c = b[++j];
        if (j >= end) {
          // The token ran to the window's end (the 0 after it stopped it): read on, or truncated.
          if (this.w.eof) throw new Unexpected();
          j = tokenFrom;
          break;
        }
        if (at < room && (v | 0) === v) cur[at++] = v;
        else {
          list.at = at;
          list.push(v);
          cur = list.current;
          at = list.at;
          room = list.floats ? 0 : cur.length;
        }
        j++;
        if (c === COMMA) continue;
        if (c === CLOSE_BRACKET) {
          list.at = at;
          this.i = j;
          return list.done();
        }
        throw new Unexpected();
      }
      list.at = at;
      this.i = j;
      const moved = this.w.refill(this.i);
      if (moved < 0) throw new Unexpected();
      this.i -= moved;
    }
  }
}

/** Where plainTokens left the array's fill. */
let plainTokensAt = 0;

/**
 * Nearly every token V8 writes, as many as follow each other from `j` (before `stop`): 1–9 digits,
 * no leading zero, right before a comma, into out[at..room). Returns where the first other token
 * starts (its fill in plainTokensAt). A small function of its own so that V8 compiles this loop
 * once, apart from the slow paths around it (which deoptimised it when it sat among them).
 */
function plainTokens(
  b: Uint8Array,
  j: number,
  stop: number,
  out: Int32Array | Float64Array,
  at: number,
  room: number,
): number {
  while (j < stop && at < room) {
    let c = b[j];
    if (c <= ZERO || c > NINE) break;
    let v = c - ZERO;
    let k = j + 1;
    c = b[k];
    while (c >= ZERO && c <= NINE && k - j < 9) {
      v = v * 10 + (c - ZERO);
      c = b[++k];
    }
    if (c !== COMMA) break;
    out[at++] = v;
    j = k + 1;
  }
  plainTokensAt = at;
  return j;
}

const FRAME_KEYS = ['functionName', 'scriptId', 'url', 'lineNumber', 'columnNumber'];

/**
 * A key of everything in a call frame of V8's exact shape (these five keys in this order, strings
 * and numbers), or undefined for any other: such frames are left alone, for the checks to judge.
 */
function plainFrameKey(cf: Record<string, unknown>): string | undefined {
  let k = 0;
  for (const key in cf) if (key !== FRAME_KEYS[k++]) return undefined;
  if (k !== FRAME_KEYS.length) return undefined;
  const { functionName, scriptId, url, lineNumber, columnNumber } = cf;
  if (typeof functionName !== 'string' || typeof scriptId !== 'string' || typeof url !== 'string') return undefined;
  if (typeof lineNumber !== 'number' || typeof columnNumber !== 'number') return undefined;
  // Lengths first: no two different frames can give the same key, whatever their strings hold.
  return `${lineNumber} ${columnNumber} ${scriptId.length} ${url.length} ${scriptId}${url}${functionName}`;
}

/**
 * Index just past the value starting at `i` in bytes [0, end), or -1 when it does not end
 * there (not validated: JSON.parse of the value does that). Nesting is counted, not recursed.
 */
function endOfValue(bytes: Uint8Array, i: number, end: number): number {
  const c = bytes[i];
  if (c === QUOTE) {
    const close = endOfString(bytes, i, end);
    return close < 0 ? -1 : close + 1;
  }
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    for (let j = i; j < end; j++) {
      const b = bytes[j];
      if (b === QUOTE) {
        j = endOfString(bytes, j, end);
        if (j < 0) return -1;
      } else if (b === OPEN_BRACE || b === OPEN_BRACKET) depth++;
      else if ((b === CLOSE_BRACE || b === CLOSE_BRACKET) && --depth === 0) return j + 1;
    }
    return -1;
  }
  let j = i;
  while (j < end) {
    const b = bytes[j];
    if (b === COMMA || b === CLOSE_BRACE || b === CLOSE_BRACKET || isSpace(b)) return j > i ? j : -1;
    j++;
  }
  return -1; // a number or literal running to the window's end may go on after it
}
