// A request mix file read from disk (the CLI's --requests, the editor's load picker): its text to
// request-mix.ts, an unreadable file one bad-options line like any other bad input.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bad, type MixReadOptions, parseRequestMix, type RequestMix } from './request-mix.ts';

/** Larger than any mix anyone writes by hand; a HAR of a long session is a few MB. */
const MAX_BYTES = 64 * 1024 * 1024;

export function readRequestMix(file: string, opts: MixReadOptions = {}): RequestMix {
  const name = path.basename(file);
  let text: string;
  try {
    if (fs.statSync(file).size > MAX_BYTES) throw bad(`${name}: larger than ${MAX_BYTES / 1024 / 1024} MB`);
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof Error && err.name === 'RunError') throw err;
    throw bad(`cannot read the request mix ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  return parseRequestMix(text, name, opts);
}
