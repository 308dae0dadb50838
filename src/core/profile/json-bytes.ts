// The bytes of JSON that the .cpuprofile readers (cpuprofile-reader.ts, cpuprofile-stream.ts) scan
// for, and the one scan both need: where a string ends.
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const MINUS = 0x2d;
export const PLUS = 0x2b;
export const DOT = 0x2e;
export const ZERO = 0x30;
export const NINE = 0x39;

export const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Index of the quote closing the string that opens at `i`, looking before `end`; -1 when none does. */
export function endOfString(bytes: Uint8Array, i: number, end = bytes.length): number {
  for (let j = i + 1; j < end; j++) {
    const c = bytes[j];
    if (c === QUOTE) return j;
    if (c === BACKSLASH) j++;
  }
  return -1;
}
