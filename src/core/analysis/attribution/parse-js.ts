// A JavaScript file as acorn reads it, whatever its kind: sloppy CommonJS fails as a module and
// ESM fails as a script, so both are tried. Lenient (a hashbang, top-level return and await,
// imports anywhere): the analysis reads the app's own files, never to reject them.
import * as acorn from 'acorn';

/** undefined when acorn cannot read the text (the caller then degrades). */
export function parseJs(text: string, extra: acorn.Options = { ecmaVersion: 'latest' }): acorn.Program | undefined {
  const options: acorn.Options = {
    ...extra,
    ecmaVersion: 'latest',
    allowHashBang: true,
    allowReturnOutsideFunction: true,
    allowAwaitOutsideFunction: true,
    allowImportExportEverywhere: true,
  };
  for (const sourceType of ['script', 'module'] as const) {
    try {
      return acorn.parse(text, { ...options, sourceType });
    } catch {
      // try the other kind
    }
  }
  return undefined;
}
