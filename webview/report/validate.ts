// Messages from the extension are checked before anything is drawn: a message that is not a
// ToReportView (protocol.ts) with a report of the shape the page reads is dropped. The checks
// cover every field the page uses, so a damaged report.json cannot throw half-way through a render.
import type { ToReportView } from '../../src/protocol.ts';
import {
  arr,
  count,
  isCategory,
  isObject,
  isReportV1,
  num,
  shape,
  str,
  type ReportV1,
} from '../../src/core/report/index.ts';
import type { TimelineV1 } from '../../src/core/analysis/time/timeline.ts';

const line = count;

const focus = shape({ file: str, line: (v) => Number.isInteger(v) && (v as number) >= 1 }, { functionName: str });

const timelineHead = shape({
  version: (v) => v === 1,
  firstUs: num,
  endUs: num,
  intervalUs: num,
  lines: arr(shape({ file: str, line, function: str })),
  kinds: arr(
    shape({
      category: isCategory,
      owners: arr((o) => Array.isArray(o) && o.length === 2 && Number.isInteger(o[0]) && num(o[1])),
    }),
  ),
  sampleUs: Array.isArray,
  sampleKind: Array.isArray,
});

/** timeline.json as the heat map reads it: every index in range, every duration a number ≥ 0. Loops, not closures: 60 000+ samples. */
export function isTimeline(v: unknown): v is TimelineV1 {
  if (!timelineHead(v)) return false;
  const t = v as unknown as TimelineV1;
  if (t.sampleUs.length !== t.sampleKind.length) return false;
  for (const k of t.kinds) for (const [l] of k.owners) if (l < 0 || l >= t.lines.length) return false;
  for (let s = 0; s < t.sampleUs.length; s++) {
    const us = t.sampleUs[s];
    const kind = t.sampleKind[s];
    if (
      typeof us !== 'number' ||
      !(us >= 0) ||
      us === Infinity ||
      !Number.isInteger(kind) ||
      kind < 0 ||
      kind >= t.kinds.length
    )
      return false;
  }
  return true;
}

/** file → text. */
function isTexts(v: unknown): v is Record<string, string> {
  return isObject(v) && Object.values(v).every((t) => typeof t === 'string');
}

/** The message as the page may use it, or undefined (dropped). */
export function parseToReportView(v: unknown): ToReportView | undefined {
  if (!isObject(v)) return undefined;
  switch (v.type) {
    case 'report': {
      if (!isReportV1(v.report)) return undefined;
      if (v.baseline !== undefined && !isReportV1(v.baseline)) return undefined;
      if (v.focus !== undefined && !focus(v.focus)) return undefined;
      const f = v.focus as { file: string; line: number; functionName?: string } | undefined;
      // A damaged timeline costs the heat map only, not the report.
      const timeline = v.timeline !== undefined && isTimeline(v.timeline) ? { timeline: v.timeline } : {};
      // Damaged texts cost the diff only: lines are then matched by their code and place.
      const cs = v.changedSources;
      const changedSources =
        isObject(cs) &&
        isTexts(cs.base) &&
        isTexts(cs.current) &&
        Array.isArray(cs.same) &&
        cs.same.every((f) => typeof f === 'string')
          ? { changedSources: { base: cs.base, current: cs.current, same: cs.same as string[] } }
          : {};
      return {
        type: 'report',
        report: v.report,
        ...timeline,
        ...changedSources,
        ...(v.baseline !== undefined ? { baseline: v.baseline as ReportV1 } : {}),
        ...(f
          ? {
              focus: {
                file: f.file,
                line: f.line,
                ...(f.functionName !== undefined ? { functionName: f.functionName } : {}),
              },
            }
          : {}),
      };
    }
    case 'focus':
      return focus(v)
        ? {
            type: 'focus',
            file: v.file as string,
            line: v.line as number,
            ...(typeof v.functionName === 'string' ? { functionName: v.functionName } : {}),
          }
        : undefined;
    default:
      return undefined;
  }
}
