// A run folder's stack captures as read back for the analysis: stacks.json beside the main
// process's profile, process-<pid>.stacks.json beside a child's. Their ticks name the samples of
// that one profile; a file that cannot be read or does not fit it only costs precision.
import * as fs from 'node:fs';
import { readStackCaptures, type StackCapturesInput } from '../analysis/index.ts';

/** The captures in `file` if they fit a profile of `sampleCount` samples; why not, otherwise. */
export function readStacksFile(file: string, sampleCount: number): StackCapturesInput | { unusable: string } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    return { unusable: (err as Error).message };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { unusable: 'it is not JSON' };
  }
  return readStackCaptures(value, sampleCount) ?? { unusable: 'it does not fit the profile beside it' };
}

export function isUnusable(read: StackCapturesInput | { unusable: string }): read is { unusable: string } {
  return 'unusable' in read;
}
