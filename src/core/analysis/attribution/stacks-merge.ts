// The stack captures of several profiles as one input for their merge (profile/merge.ts). mergeProfiles
// keeps every sample, in order, profile after profile: a tick's sample index moves by the samples
// of the profiles before its own, and its capture and frames are renumbered into the joint lists.
// The merged tree differs from each profile's, but a tick names a sample, not a node, so the
// evidence is laid over the merged tree exactly as over each profile's own. Pure.
import { indexer } from '../../common/index.ts';
import type { StackCapturesInput, StackFrameV1 } from './stacks.ts';

export interface StacksPart {
  /** The profile's captures; none: its samples are counted, no tick points into them. */
  stacks?: StackCapturesInput;
  /** How many samples the profile has (its place in the merged profile's samples). */
  sampleCount: number;
}

/** One input whose ticks point into `mergeProfiles(profiles)`, for parts given in the same order; undefined when no part has captures. */
export function mergeStackCaptures(parts: readonly StacksPart[]): StackCapturesInput | undefined {
  if (!parts.some((p) => p.stacks)) return undefined;
  if (parts.length === 1) return parts[0].stacks;
  const frames: StackFrameV1[] = [];
  // The same frame in two processes is one frame of the merge (same file, line, column, function).
  const frameIndexOf = indexer(frames, (f) => `${f.url}\u0001${f.line}\u0001${f.column}\u0001${f.functionName}`);
  const captures: number[][] = [];
  const ticks: Array<[number, number]> = [];
  let sampleOffset = 0;
  for (const { stacks, sampleCount } of parts) {
    if (stacks) {
      const frameOf = stacks.frames.map(frameIndexOf);
      const captureOffset = captures.length;
      for (const c of stacks.captures) captures.push(c.map((f) => frameOf[f]));
      for (const [sample, capture] of stacks.ticks) ticks.push([sample + sampleOffset, capture + captureOffset]);
    }
    sampleOffset += sampleCount;
  }
  return { frames, captures, ticks };
}
