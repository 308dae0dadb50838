// stacks.json as read back: checked field by field, since a run folder can be edited, truncated or
// copied around. Anything that does not fit is dropped as a whole (it only costs precision).
import type { StackCapturesInput, StackFrameV1 } from './stacks.ts';

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** The captures, if `value` is a version-1 stacks.json whose ticks point into a profile of `sampleCount` samples. */
export function readStackCaptures(value: unknown, sampleCount: number): StackCapturesInput | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (v.version !== 1 || v.sampleCount !== sampleCount) return undefined;
  const { frames, captures, ticks } = v;
  if (!Array.isArray(frames) || !Array.isArray(captures) || !Array.isArray(ticks)) return undefined;
  if (!frames.every(isFrame)) return undefined;
  const frameCount = frames.length;
  if (!captures.every((c) => Array.isArray(c) && c.every((f) => isInt(f) && f >= 0 && f < frameCount)))
    return undefined;
  const captureCount = captures.length;
  const okTick = (t: unknown): boolean =>
    Array.isArray(t) &&
    t.length === 2 &&
    isInt(t[0]) &&
    t[0] >= 0 &&
    t[0] < sampleCount &&
    isInt(t[1]) &&
    t[1] >= 0 &&
    t[1] < captureCount;
  if (!ticks.every(okTick)) return undefined;
  return {
    frames: frames as StackFrameV1[],
    captures: captures as number[][],
    ticks: ticks as Array<[number, number]>,
  };
}

function isFrame(f: unknown): f is StackFrameV1 {
  if (typeof f !== 'object' || f === null) return false;
  const o = f as Record<string, unknown>;
  return typeof o.url === 'string' && typeof o.functionName === 'string' && isInt(o.line) && isInt(o.column);
}
