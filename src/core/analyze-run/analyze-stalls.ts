// The stalls a run's stall probe measured, on the lines that ran in them: `stalls`,
// `eventLoop.stalls` and, when they recur at a steady period, a hint on their line; and the hint
// for a line of the user's own code that holds the loop (stalls on it, or a loop busy throughout).
import {
  blockedLoopHints,
  findStalls,
  periodicStall,
  periodicStallHint,
  summarizeStalls,
  type TimelineV1,
} from '../analysis/index.ts';
import type { StallsRecord } from '../store/index.ts';
import type { ReportV1 } from '../report/index.ts';

export function analyzeStalls(
  report: ReportV1,
  measured: StallsRecord | undefined,
  timeline: TimelineV1 | undefined,
): ReportV1 {
  if (!measured) return withBlockedLoop(report);
  const offCpu = { count: 0 };
  const timed = findStalls(measured.gaps, measured.thresholdMs, timeline, offCpu);
  const periodic = periodicStall(timed);
  const stalls = timed.map(({ appStartMs: _, ...stall }) => stall);
  const notes: string[] = [];
  const left = measured.unrecorded + (measured.clipped ?? 0);
  if (left > 0)
    notes.push(
      `${left} event-loop stall(s) were under way when a profiled sub-window began or ended, or when the profiler restarted (which pauses the app itself): only part of each was seen, so they are not listed.`,
    );
  if (offCpu.count > 0)
    notes.push(
      `${offCpu.count} gap(s) in which the event loop did not run were mostly time the app's thread was not running at all (the machine was busy elsewhere): not listed as stalls.`,
    );
  return withBlockedLoop({
    ...report,
    ...(report.eventLoop
      ? { eventLoop: { ...report.eventLoop, stalls: summarizeStalls(stalls, measured.thresholdMs) } }
      : {}),
    stalls,
    hints: periodic ? [...report.hints, periodicStallHint(periodic, stalls, report.nonIdleMs)] : report.hints,
    notes: [...report.notes, ...notes],
  });
}

function withBlockedLoop(report: ReportV1): ReportV1 {
  const p = report.load?.profiled;
  const requests = p ? (p.requests.total ?? p.requests.perSecond * p.durationS) : undefined;
  const found = blockedLoopHints({
    lines: report.lines,
    stalls: report.stalls ?? [],
    stallThresholdMs: report.eventLoop?.stalls?.thresholdMs,
    utilization: report.eventLoop?.utilization,
    requests: requests !== undefined && requests > 0 ? requests : undefined,
    hints: report.hints,
  });
  return found.length > 0 ? { ...report, hints: [...report.hints, ...found] } : report;
}
