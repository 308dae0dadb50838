// The nodes of a .cpuprofile read straight from the file's bytes, for the streaming reader
// (cpuprofile-stream.ts). A profile holds millions of nodes but only a few thousand distinct
// call frames: JSON.parse made each node's frame object and its three strings anew, and the
// reader then threw them away for the shared ones (most of the garbage collector's work on a big
// file). Here a node of exactly the compact shape V8 writes,
//   {"id":1,"callFrame":{"functionName":"f","scriptId":"0","url":"u","lineNumber":0,"columnNumber":0},
//    "hitCount":0,"children":[2],"positionTicks":[{"line":1,"ticks":1}]}
// (the last three optional, in this order, no spaces, strings without escapes) is read in one
// pass, and its call frame is found by its text among those seen before: no frame object or
// string of it is made for a frame already seen. Anything else is left to JSON.parse (the caller's slow path),
// so the values made are those JSON.parse makes.
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COMMA, MINUS, NINE, QUOTE, ZERO } from './json-bytes.ts';

const bytesOf = (text: string): Uint8Array => Buffer.from(text, 'latin1');
const NODE_ID = bytesOf('{"id":');
const CALL_FRAME = bytesOf(',"callFrame":');
const FUNCTION_NAME = bytesOf('{"functionName":"');
const SCRIPT_ID = bytesOf(',"scriptId":"');
const URL = bytesOf(',"url":"');
const LINE_NUMBER = bytesOf(',"lineNumber":');
const COLUMN_NUMBER = bytesOf(',"columnNumber":');
const HIT_COUNT = bytesOf('"hitCount":');
const CHILDREN = bytesOf('"children":[');
const POSITION_TICKS = bytesOf('"positionTicks":[');
const TICK_LINE = bytesOf('{"line":');
const TICK_TICKS = bytesOf(',"ticks":');

/** The most digits read as an integer here: any more and JSON.parse decides (a double may round). */
const MAX_DIGITS = 15;

export class NodeBytes {
  /** Where the last node read ends (just past its closing brace). */
  end = 0;
  /** Frames seen, by their text (the bytes as latin1: one character each). */
  private readonly frames = new Map<string, Record<string, unknown>>();
  /** One copy of each URL (many frames share one). */
  private readonly urls = new Map<string, string>();
  // A node's children and position ticks as read, copied out at their exact length (an array
  // grown by push keeps room for more: at 1 GB that was 0.25 GB more than JSON.parse's).
  private readonly childIds: number[] = [];
  private readonly ticks: Array<{ line: number; ticks: number }> = [];
  /** The value of the last integer read (no object per number). */
  private value = 0;

  /**
   * The node whose `{` is at `i` in `b`, or undefined when it is not of the plain shape above
   * or does not end before the window's `end` (a 0 byte follows the window: nothing matches it).
   */
  read(b: Buffer, i: number, end: number): Record<string, unknown> | undefined {
    let j = literal(b, i, NODE_ID);
    if (j < 0 || (j = this.integer(b, j)) < 0) return undefined;
    const id = this.value;
    if ((j = literal(b, j, CALL_FRAME)) < 0) return undefined;
    // A frame seen before is found by its text up to its first `}`: when that text is a whole
    // frame read before, it is this one (the same bytes parse the same way), so it is not read
    // again. A `}` inside one of its strings only makes a frame that is read every time.
    const close = b.indexOf(CLOSE_BRACE, j);
    const text = close >= 0 && close < end ? b.toString('latin1', j, close + 1) : undefined;
    let callFrame = text === undefined ? undefined : this.frames.get(text);
    if (callFrame !== undefined) j = close + 1;
    else {
      callFrame = this.frame(b, j);
      if (callFrame === undefined) return undefined;
      j = this.end;
      if (text !== undefined && j === close + 1) this.frames.set(text, callFrame);
    }
    let hitCount: number | undefined;
    let children: number[] | undefined;
    let positionTicks: Array<{ line: number; ticks: number }> | undefined;
    if (b[j] === COMMA && b[j + 1] === QUOTE && b[j + 2] === 0x68 /* h */) {
      if ((j = literal(b, j + 1, HIT_COUNT)) < 0 || (j = this.integer(b, j)) < 0) return undefined;
      hitCount = this.value;
    }
    if (b[j] === COMMA && b[j + 1] === QUOTE && b[j + 2] === 0x63 /* c */) {
      if ((j = literal(b, j + 1, CHILDREN)) < 0) return undefined;
      const ids = this.childIds;
      let n = 0;
      if (b[j] === CLOSE_BRACKET) j++;
      else
        for (;;) {
          if ((j = this.integer(b, j)) < 0) return undefined;
          ids[n++] = this.value;
          const c = b[j++];
          if (c === CLOSE_BRACKET) break;
          if (c !== COMMA) return undefined;
        }
      children = ids.slice(0, n);
    }
    if (b[j] === COMMA && b[j + 1] === QUOTE && b[j + 2] === 0x70 /* p */) {
      if ((j = literal(b, j + 1, POSITION_TICKS)) < 0) return undefined;
      const ticks = this.ticks;
      let n = 0;
      if (b[j] === CLOSE_BRACKET) j++;
      else
        for (;;) {
          if ((j = literal(b, j, TICK_LINE)) < 0 || (j = this.integer(b, j)) < 0) return undefined;
          const line = this.value;
          if ((j = literal(b, j, TICK_TICKS)) < 0 || (j = this.integer(b, j)) < 0) return undefined;
          if (b[j++] !== CLOSE_BRACE) return undefined;
          ticks[n++] = { line, ticks: this.value };
          const c = b[j++];
          if (c === CLOSE_BRACKET) break;
          if (c !== COMMA) return undefined;
        }
      positionTicks = ticks.slice(0, n);
    }
    if (b[j] !== CLOSE_BRACE) return undefined;
    this.end = j + 1;
    return nodeObject(id, callFrame, hitCount, children, positionTicks);
  }

  /** The call frame whose `{` is at `j`, made as JSON.parse makes it (its end in `end`), or undefined. */
  private frame(b: Buffer, j: number): Record<string, unknown> | undefined {
    if ((j = literal(b, j, FUNCTION_NAME)) < 0) return undefined;
    const nameFrom = j;
    if ((j = plainString(b, j)) < 0) return undefined;
    const nameTo = j - 1;
    if ((j = literal(b, j, SCRIPT_ID)) < 0) return undefined;
    const scriptFrom = j;
    if ((j = plainString(b, j)) < 0) return undefined;
    const scriptTo = j - 1;
    if ((j = literal(b, j, URL)) < 0) return undefined;
    const urlFrom = j;
    if ((j = plainString(b, j)) < 0) return undefined;
    const urlTo = j - 1;
    if ((j = literal(b, j, LINE_NUMBER)) < 0 || (j = this.integer(b, j)) < 0) return undefined;
    const lineNumber = this.value;
    if ((j = literal(b, j, COLUMN_NUMBER)) < 0 || (j = this.integer(b, j)) < 0) return undefined;
    const columnNumber = this.value;
    if (b[j] !== CLOSE_BRACE) return undefined;
    this.end = j + 1;
    const url = b.toString('utf8', urlFrom, urlTo);
    const sharedUrl = this.urls.get(url) ?? url;
    if (sharedUrl === url) this.urls.set(url, url);
    // Key order as in the file, so the object is the one JSON.parse would make.
    return {
      functionName: b.toString('utf8', nameFrom, nameTo),
      scriptId: b.toString('utf8', scriptFrom, scriptTo),
      url: sharedUrl,
      lineNumber,
      columnNumber,
    };
  }

  /** A JSON integer at `j` into `value` (as JSON.parse reads it); just past it, or -1. */
  private integer(b: Buffer, j: number): number {
    let c = b[j];
    const negative = c === MINUS;
    if (negative) c = b[++j];
    if (c < ZERO || c > NINE) return -1;
    const from = j;
    let v = c - ZERO;
    c = b[++j];
    if (v === 0) {
      if (c >= ZERO && c <= NINE) return -1; // JSON has no leading zeros
    } else
      while (c >= ZERO && c <= NINE) {
        v = v * 10 + (c - ZERO);
        c = b[++j];
      }
    // A fraction, an exponent or a long number: JSON.parse's (it may not be an integer at all).
    if (c === 0x2e || c === 0x65 || c === 0x45 || j - from > MAX_DIGITS) return -1;
    this.value = negative ? -v : v;
    return j;
  }
}

/**
 * The node as JSON.parse makes it: the keys present, in the file's order, all in the object
 * itself (one literal per set of keys; adding keys one by one put them in a second store).
 */
function nodeObject(
  id: number,
  callFrame: Record<string, unknown>,
  hitCount: number | undefined,
  children: number[] | undefined,
  positionTicks: unknown[] | undefined,
): Record<string, unknown> {
  if (hitCount !== undefined) {
    if (children !== undefined)
      return positionTicks !== undefined
        ? { id, callFrame, hitCount, children, positionTicks }
        : { id, callFrame, hitCount, children };
    return positionTicks !== undefined ? { id, callFrame, hitCount, positionTicks } : { id, callFrame, hitCount };
  }
  if (children !== undefined)
    return positionTicks !== undefined ? { id, callFrame, children, positionTicks } : { id, callFrame, children };
  return positionTicks !== undefined ? { id, callFrame, positionTicks } : { id, callFrame };
}

/**
 * Just past the closing quote of the string whose bytes start at `j` (just past its opening
 * quote), or -1 for an escape or a control character (JSON.parse's to judge and decode).
 */
function plainString(b: Uint8Array, j: number): number {
  for (;;) {
    const c = b[j++];
    if (c === QUOTE) return j;
    if (c < 0x20 || c === BACKSLASH) return -1;
  }
}

/** Just past `lit` when the bytes at `j` are it, else -1. */
function literal(b: Uint8Array, j: number, lit: Uint8Array): number {
  for (let k = 0; k < lit.length; k++) if (b[j + k] !== lit[k]) return -1;
  return j + lit.length;
}
