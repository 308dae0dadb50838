// Where on a line a hint's API is called, for the diagnostic's squiggle: `crypto.pbkdf2Sync(…)`
// from the start of its qualified name to its closing parenthesis (or the end of the line when the
// call goes on). Pure text scanning, one line at a time: no parser.

export interface ColumnRange {
  /** 0-based, inclusive. */
  start: number;
  /** 0-based, exclusive. */
  end: number;
}

const IDENT = /[\w$]/;
const CHAIN = /[\w$.]/;

/** The call expression of `api` (`crypto.pbkdf2Sync`, `zlib`, `JSON.stringify`) on the line, if its name is there. */
export function callRange(text: string, api: string): ColumnRange | undefined {
  const name = api.slice(api.lastIndexOf('.') + 1);
  if (!/^[\w$]+$/.test(name)) return undefined;
  let fallback: ColumnRange | undefined;
  for (let from = text.indexOf(name); from >= 0; from = text.indexOf(name, from + 1)) {
    const after = from + name.length;
    if ((from > 0 && IDENT.test(text[from - 1])) || (after < text.length && IDENT.test(text[after]))) continue;
    let start = from;
    while (start > 0 && CHAIN.test(text[start - 1])) start--;
    let end = after;
    while (end < text.length && CHAIN.test(text[end])) end++;
    let open = end;
    while (open < text.length && (text[open] === ' ' || text[open] === '\t')) open++;
    if (text[open] === '(') return { start, end: closingParen(text, open) };
    fallback ??= { start, end };
  }
  return fallback;
}

/** Index just past the `)` matching the `(` at `open`, or the end of the line's code when it is not closed there. */
function closingParen(text: string, open: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === '"' || ch === "'" || ch === '`') quote = ch;
    else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return i + 1;
  }
  return text.trimEnd().length;
}

/** The whole line's code, without its indentation and trailing blanks. */
export function lineRange(text: string): ColumnRange {
  const end = text.trimEnd().length;
  const start = Math.min(text.length - text.trimStart().length, end);
  return { start, end };
}
