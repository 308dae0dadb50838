// The threadpool requests and outgoing HTTP calls a run's wait probe noted, on the lines that
// made them: `waits`,
// `threadpool` and, where a line's requests mostly queued for a thread, a hint naming
// UV_THREADPOOL_SIZE.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { poolLimitHint, threadpoolWaits, type WaitTraceInput } from '../analysis/index.ts';
import type { ExtrasRecord } from '../store/index.ts';
import type { ReportV1 } from '../report/index.ts';

export function analyzeWaits(report: ReportV1, runDir: string, measured: ExtrasRecord['waits']): ReportV1 {
  if (!measured) return report;
  let trace: WaitTraceInput;
  try {
    trace = JSON.parse(fs.readFileSync(path.join(runDir, measured.file), 'utf8')) as WaitTraceInput;
  } catch (err) {
    return {
      ...report,
      notes: [...report.notes, `The threadpool waits (${measured.file}) could not be read: ${(err as Error).message}`],
    };
  }
  // The probe is on a little longer than the load's profiled phases (it starts before and ends
  // after them): the requests served in its time are the phases' rate over its own length.
  const p = report.load?.profiled;
  const served =
    p && trace.activeUs
      ? (p.requests.perSecond * trace.activeUs) / 1e6
      : p
        ? (p.requests.total ?? p.requests.perSecond * p.durationS)
        : undefined;
  const waits = threadpoolWaits(trace, served);
  const pool = { size: trace.poolSize, cores: trace.cores };
  const hints = waits
    .map((w) => poolLimitHint(w, pool, report.eventLoop?.profiled?.cpu, report.nonIdleMs))
    .filter((h) => h !== undefined);
  const notes: string[] = [];
  if (waits.some((w) => !w.target))
    notes.push(
      `Threadpool waits: the time from each call to its callback is measured; the part queued for one of the ${pool.size} threads is inferred from the order of the calls and of their callbacks (libuv's queue is first in, first out), and is an upper bound when the event loop was busy (a callback runs late then).`,
    );
  if (waits.some((w) => w.target))
    notes.push(
      'Outgoing HTTP calls: the wait is measured from the call (http through an Agent, or fetch) to the response (its head for http, its whole body for fetch), on the first line of your code on the stack; nothing of it is queued for the threadpool.',
    );
  if (measured.dropped > 0)
    notes.push(`${measured.dropped} threadpool requests were not noted (the probe's buffer was full).`);
  return { ...report, waits, threadpool: pool, hints: [...report.hints, ...hints], notes: [...report.notes, ...notes] };
}
