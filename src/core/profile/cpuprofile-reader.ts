// A .cpuprofile's bytes → CpuProfile without turning its two big number arrays into JS arrays.
// A long run's `samples` and `timeDeltas` hold millions of numbers: JSON.parse makes each a
// boxed or double array element on top of the file's text (4-5× the file size in memory). Here
// a small scan of the top-level object finds those two arrays, reads them straight into typed
// arrays, and JSON.parse reads only the rest (nodes, startTime, endTime: the smaller part).
// Anything the scan does not expect (a key with escapes, a duplicate key, a non-number element,
// broken JSON, a wrapped profile) falls back to the plain path, so results and error messages
// are those of parseProfileJson + readCpuProfile.
import {
  ProfileFormatError,
  parseProfileJson,
  readCpuProfile,
  readOwnedCpuProfile,
  type CpuProfile,
} from './cpuprofile.ts';
import { type ReadAt, streamCpuProfileValue } from './cpuprofile-stream.ts';
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  DOT,
  endOfString,
  isSpace,
  MINUS,
  NINE,
  OPEN_BRACE,
  OPEN_BRACKET,
  PLUS,
  QUOTE,
  ZERO,
} from './json-bytes.ts';

/**
 * The most bytes read as one string: V8's longest string is 2^29 - 24 UTF-16 units (~512 MiB),
 * and a file of ASCII bytes decodes to as many units. A larger file can only be streamed.
 */
export const MAX_STRING_BYTES = 2 ** 29 - 24;

/**
 * A .cpuprofile file of `size` bytes read in chunks through `readAt` (cpuprofile-stream.ts):
 * never one string, never its whole bytes at once. A file the stream does not expect, or one
 * the profile rules refuse, is read again by the whole-file reader (`load`) where a string can
 * hold it, so its result or error is that reader's; a larger one gets the stream's verdict.
 */
export function readCpuProfileStream(
  readAt: ReadAt,
  size: number,
  load: () => Uint8Array,
  opts: { windowBytes?: number; file?: string; aheadFrom?: number } = {},
): CpuProfile {
  const value = streamCpuProfileValue(readAt, { ...opts, size });
  const fits = size <= MAX_STRING_BYTES;
  if (value !== undefined) {
    try {
      return readOwnedCpuProfile(value);
    } catch (err) {
      if (!(err instanceof ProfileFormatError) || !fits) throw err;
    }
  }
  if (!fits)
    throw new ProfileFormatError(
      `the file is ${(size / 2 ** 20).toFixed(0)} MiB, more than one JavaScript string holds, and not in the plain layout V8 writes ({"nodes": [...], "startTime", "endTime", "samples": [...], "timeDeltas": [...]}, no wrapper, valid JSON)`,
      'file',
    );
  return readCpuProfileBytes(load, { consume: true });
}

/** The bytes of a .cpuprofile file (UTF-8, optionally with a byte order mark), strictly read. */
export function parseCpuProfileBytes(bytes: Uint8Array): CpuProfile {
  return readCpuProfileBytes(() => bytes);
}

/**
 * The same from `load`, which must give the same bytes each call: it is called once, and again
 * only when the fast path gives up (a broken or unusual file). In between the bytes are not
 * held, so a big file's buffer can be freed while the rest of it is parsed. With `consume` (each
 * call returns a fresh buffer nobody else holds, as fs.readFileSync does) the buffer's memory is
 * handed back as soon as it is scanned, not whenever the garbage collector reaches it: for a
 * 100 MB file that decides whether it still counts in the peak of the analysis.
 */
export function readCpuProfileBytes(load: () => Uint8Array, opts: { consume?: boolean } = {}): CpuProfile {
  const fast = fastJson(load, opts.consume === true);
  if (fast !== undefined) {
    try {
      return readOwnedCpuProfile(fast);
    } catch (err) {
      // The slow path below gives the same verdict; let it word the message, as it always did.
      if (!(err instanceof ProfileFormatError)) throw err;
    }
  }
  return readCpuProfile(parseProfileJson(asBuffer(load()).toString('utf8')));
}

const asBuffer = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);

const BIG_ARRAYS = ['samples', 'timeDeltas'] as const;
type BigArray = (typeof BIG_ARRAYS)[number];
const KEY_BYTES = BIG_ARRAYS.map((k) => Buffer.from(k, 'latin1'));

interface Cut {
  key: BigArray;
  /** The array's bytes: [from, to). */
  from: number;
  to: number;
  values: Int32Array | Float64Array;
}

/**
 * The JSON value of the file with `samples`/`timeDeltas` as typed arrays, or undefined when the
 * fast path does not apply (then the caller parses the whole text, which also words any error).
 */
function fastJson(load: () => Uint8Array, consume: boolean): Record<string, unknown> | undefined {
  const bytes = load();
  const split = splitOffBigArrays(asBuffer(bytes));
  if (consume) release(bytes);
  if (split === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(split.rest);
  } catch {
    return undefined;
  }
  const rest = value as Record<string, unknown>;
  // A wrapped profile ({profile: {...}}) is read from its inner object: not what was cut.
  if (!Array.isArray(rest.nodes)) return undefined;
  for (const c of split.cuts) rest[c.key] = c.values;
  return rest;
}

/**
 * The file's text without its top-level samples/timeDeltas arrays (each replaced by null) and
 * those arrays read; undefined when the top level is not the plain object expected.
 */
function splitOffBigArrays(bytes: Buffer): { rest: string; cuts: Cut[] } | undefined {
  const n = bytes.length;
  let i = n >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const start = i;
  while (i < n && isSpace(bytes[i])) i++;
  if (bytes[i] !== OPEN_BRACE) return undefined;
  i++;
  const cuts: Cut[] = [];
  for (;;) {
    while (i < n && isSpace(bytes[i])) i++;
    if (bytes[i] !== QUOTE) return undefined; // also the empty object: nothing to gain
    const keyFrom = i + 1;
    const keyTo = endOfString(bytes, i);
    if (keyTo < 0) return undefined;
    for (let k = keyFrom; k < keyTo; k++) if (bytes[k] === BACKSLASH) return undefined; // "s\u0061mples" is "samples" too
    i = keyTo + 1;
    while (i < n && isSpace(bytes[i])) i++;
    if (bytes[i] !== COLON) return undefined;
    i++;
    while (i < n && isSpace(bytes[i])) i++;
    const key = bigArrayKey(bytes, keyFrom, keyTo);
    if (key !== undefined && bytes[i] === OPEN_BRACKET) {
      if (cuts.some((c) => c.key === key)) return undefined; // JSON.parse keeps the last: leave that rule to it
      const read = readNumberArray(bytes, i);
      if (read === undefined) return undefined;
      cuts.push({ key, from: i, to: read.end, values: read.values });
      i = read.end;
    } else {
      i = endOfValue(bytes, i);
      if (i < 0) return undefined;
    }
    while (i < n && isSpace(bytes[i])) i++;
    if (bytes[i] === COMMA) {
      i++;
      continue;
    }
    if (bytes[i] !== CLOSE_BRACE) return undefined;
    i++;
    break;
  }
  while (i < n && isSpace(bytes[i])) i++;
  if (i !== n || cuts.length === 0) return undefined;

  // The rest, with each cut array replaced by null. Cuts sit on ASCII bytes, so decoding the
  // pieces gives the same text as decoding the whole file.
  let text = '';
  let at = start;
  for (const c of cuts) {
    text += `${bytes.toString('utf8', at, c.from)}null`;
    at = c.to;
  }
  text += bytes.toString('utf8', at, n);
  return { rest: text, cuts };
}

/**
 * Detaches the bytes' memory: moved into an unreferenced young ArrayBuffer, which the next
 * scavenge frees. Only for a buffer that owns its whole ArrayBuffer and may be moved.
 */
function release(bytes: Uint8Array): void {
  const whole = bytes.buffer;
  if (!(whole instanceof ArrayBuffer) || bytes.byteOffset !== 0 || bytes.byteLength !== whole.byteLength) return;
  try {
    structuredClone(whole, { transfer: [whole] });
  } catch {
    // not transferable (a pooled buffer): the garbage collector frees it in its own time
  }
}

function bigArrayKey(bytes: Uint8Array, from: number, to: number): BigArray | undefined {
  for (let k = 0; k < KEY_BYTES.length; k++) {
    const want = KEY_BYTES[k];
    if (want.length !== to - from) continue;
    let same = true;
    for (let j = 0; j < want.length && same; j++) same = bytes[from + j] === want[j];
    if (same) return BIG_ARRAYS[k];
  }
  return undefined;
}

/**
 * Index just past the value starting at `i` (not validated: JSON.parse of the rest does that),
 * or -1. Nesting is counted, not recursed into: a file can nest deeper than the stack.
 */
function endOfValue(bytes: Uint8Array, i: number): number {
  const n = bytes.length;
  const c = bytes[i];
  if (c === QUOTE) {
    const end = endOfString(bytes, i);
    return end < 0 ? -1 : end + 1;
  }
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    for (let j = i; j < n; j++) {
      const b = bytes[j];
      if (b === QUOTE) {
        j = endOfString(bytes, j);
        if (j < 0) return -1;
      } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
        depth++;
      } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
        if (--depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  while (j < n) {
    const b = bytes[j];
    if (b === COMMA || b === CLOSE_BRACE || b === CLOSE_BRACKET || isSpace(b)) break;
    j++;
  }
  return j > i ? j : -1;
}

/**
 * A JSON array of numbers starting at `i` (the `[`), into an Int32Array while every value is a
 * 32-bit integer (node ids, µs deltas), else a Float64Array (the same doubles JSON.parse gives).
 * Undefined for anything else (strings, nesting, syntax JSON does not allow). One tight loop per
 * byte: this is most of a big profile.
 */
function readNumberArray(bytes: Buffer, i: number): { values: Int32Array | Float64Array; end: number } | undefined {
  // A number array holds no brackets: the first `]` closes it (a nested `[` is refused below).
  const close = bytes.indexOf(CLOSE_BRACKET, i);
  if (close < 0) return undefined;
  let commas = 0;
  let blank = true;
  for (let j = i + 1; j < close; j++) {
    const c = bytes[j];
    if (c === COMMA) commas++;
    else if (blank && !isSpace(c)) blank = false;
  }
  if (blank) return commas === 0 ? { values: new Int32Array(0), end: close + 1 } : undefined;
  const count = commas + 1;
  let ints: Int32Array | undefined = new Int32Array(count);
  let floats: Float64Array | undefined;
  // Every read below stays at or before `close`: no token runs past a `]`.
  let j = i + 1;
  let c = bytes[j];
  for (let k = 0; k < count; k++) {
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = bytes[++j];
    const tokenFrom = j;
    const negative = c === MINUS;
    if (negative) c = bytes[++j];
    if (c < ZERO || c > NINE) return undefined;
    const digitsFrom = j;
    let v = c - ZERO;
    c = bytes[++j];
    if (v === 0) {
      if (c >= ZERO && c <= NINE) return undefined; // JSON has no leading zeros
    } else {
      while (c >= ZERO && c <= NINE) {
        v = v * 10 + (c - ZERO);
        c = bytes[++j];
      }
    }
    if (c === DOT || c === 0x65 || c === 0x45 || j - digitsFrom > 15) {
      // A fraction, an exponent or more digits than a double holds exactly: checked here,
      // converted by Number(), which gives what JSON.parse gives for a valid JSON number.
      if (c === DOT) {
        c = bytes[++j];
        if (c < ZERO || c > NINE) return undefined;
        while (c >= ZERO && c <= NINE) c = bytes[++j];
      }
      if (c === 0x65 || c === 0x45) {
        c = bytes[++j];
        if (c === PLUS || c === MINUS) c = bytes[++j];
        if (c < ZERO || c > NINE) return undefined;
        while (c >= ZERO && c <= NINE) c = bytes[++j];
      }
      v = Number(bytes.toString('latin1', tokenFrom, j));
    } else if (negative) {
      v = -v;
    }
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = bytes[++j];
    if (c !== (k === count - 1 ? CLOSE_BRACKET : COMMA)) return undefined;
    c = bytes[++j];
    if (ints !== undefined && (v | 0) === v) {
      ints[k] = v;
    } else {
      if (floats === undefined) {
        floats = new Float64Array(count);
        floats.set(ints!.subarray(0, k));
        ints = undefined;
      }
      floats[k] = v;
    }
  }
  return { values: ints ?? floats!, end: j };
}
