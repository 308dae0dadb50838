// The threadpool requests, outgoing HTTP calls and data-store exchanges a run's wait probe noted,
// on the lines that made them: `waits`, `threadpool` and, where a line's requests mostly queued
// for a thread, a hint naming UV_THREADPOOL_SIZE; two independent waits of one request made one
// after another, the `serial-awaits` hint (their order measured, their independence read from the
// source: `sources`, the run's snapshot, or the file on disk).
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  awaitDependence,
  DATA_STORE_APIS,
  outgoingCallOfType,
  dbPoolQueueHint,
  poolLimitHint,
  repeatedQueryHint,
  serialAwaitsHints,
  threadpoolWaits,
  type ThreadpoolWait,
  type WaitTraceInput,
} from '../analysis/index.ts';
import type { ExtrasRecord } from '../store/index.ts';
import type { ReportV1 } from '../report/index.ts';

/** A run's waits.json, or the one line that says why it could not be read. */
export type WaitsRead = { trace: WaitTraceInput } | { problem: string };

export function readWaits(runDir: string, measured: NonNullable<ExtrasRecord['waits']>): WaitsRead {
  try {
    return { trace: JSON.parse(fs.readFileSync(path.join(runDir, measured.file), 'utf8')) as WaitTraceInput };
  } catch (err) {
    return { problem: `The threadpool waits (${measured.file}) could not be read: ${(err as Error).message}` };
  }
}

export function analyzeWaits(
  report: ReportV1,
  read: WaitsRead | undefined,
  measured: ExtrasRecord['waits'],
  sources?: ReadonlyMap<string, string>,
): ReportV1 {
  if (!measured || !read) return report;
  if ('problem' in read) return { ...report, notes: [...report.notes, read.problem] };
  const { trace } = read;
  // The probe is on a little longer than the load's profiled phases (it starts before and ends
  // after them): the calls per request are over the requests served in its own time.
  const p = report.load?.profiled;
  // Counted by the probe in the app where it could (every request its servers began while it
  // was on); otherwise the profiled phases' rate over the probe's time.
  const counted = trace.served;
  const served =
    counted !== undefined && counted > 0
      ? counted
      : p && trace.activeUs
        ? (p.requests.perSecond * trace.activeUs) / 1e6
        : p
          ? (p.requests.total ?? p.requests.perSecond * p.durationS)
          : undefined;
  const waits = threadpoolWaits(trace, served);
  const pool = { size: trace.poolSize, cores: trace.cores };
  const latencyMs = report.load?.profiled.latencyMs.p50;
  const hints = waits
    .flatMap((w) => [
      poolLimitHint(w, pool, report.eventLoop?.profiled?.cpu, report.nonIdleMs),
      repeatedQueryHint(w, latencyMs, report.nonIdleMs),
      dbPoolQueueHint(w, report.nonIdleMs),
    ])
    .filter((h) => h !== undefined);
  hints.push(...serialAwaitsHints(trace, waits, latencyMs, report.nonIdleMs, independentBySource(sources)));
  const notes: string[] = [];
  if (waits.some((w) => !w.target))
    notes.push(
      `Threadpool waits: the time from each call to its callback is measured; the part queued for one of the ${pool.size} threads is inferred from the order of the calls and of their callbacks (libuv's queue is first in, first out), and is an upper bound when the event loop was busy (a callback runs late then).`,
    );
  if (waits.some((w) => w.api === 'http.request' || w.api === 'fetch'))
    notes.push(
      'Outgoing HTTP calls: the wait is measured from the call (http through an Agent, or fetch) to the response (its head for http, its whole body for fetch), on the first line of your code on the stack; nothing of it is queued for the threadpool.',
    );
  notes.push(...dataStoreNotes(trace, waits));
  if (measured.dropped > 0)
    notes.push(`${measured.dropped} threadpool requests were not noted (the probe's buffer was full).`);
  return { ...report, waits, threadpool: pool, hints: [...report.hints, ...hints], notes: [...report.notes, ...notes] };
}

/**
 * Whether the second of two lines does not use the first's result, read from the source (the
 * run's snapshot, else the file as it is now): false when it cannot be told.
 */
function independentBySource(sources: ReadonlyMap<string, string> | undefined) {
  const texts = new Map<string, string | undefined>();
  const textOf = (file: string): string | undefined => {
    if (!texts.has(file)) {
      let text = sources?.get(file);
      if (text === undefined && path.isAbsolute(file)) {
        try {
          text = fs.readFileSync(file, 'utf8');
        } catch {
          // gone or unreadable: not told
        }
      }
      texts.set(file, text);
    }
    return texts.get(file);
  };
  return (a: ThreadpoolWait, b: ThreadpoolWait): boolean => {
    const text = a.file === b.file ? textOf(a.file) : undefined;
    return text !== undefined && awaitDependence(text, a.line, b.line).kind === 'independent';
  };
}

/** What the data-store waits measure, and what the probe could not put on a line. */
function dataStoreNotes(trace: WaitTraceInput, waits: ReportV1['waits']): string[] {
  const notes: string[] = [];
  if (waits?.some((w) => DATA_STORE_APIS.has(w.api)))
    notes.push(
      'Data stores: the wait is measured from the write that sends a statement to the first data of its answer, on the first line of your code on the stack at that write; writes made on while an answer is awaited (a pipelining client) belong to that one wait.',
    );
  if (waits?.some((w) => w.poolSize))
    notes.push(
      "Pool queues: a statement made while every connection of its pool (pg's Pool, mysql2's pool) was busy is timed from the call, and the part until the pool handed it a connection is measured as queued, on the line that made the call.",
    );
  const stores = trace.types.map((t) => DATA_STORE_APIS.has(outgoingCallOfType(t)?.api ?? ''));
  const lineless = trace.requests.filter(([site, type]) => site < 0 && stores[type]).length;
  if (lineless > 0)
    notes.push(
      `${lineless} data-store exchanges had no line of your code on the stack (written later by a pool, a queue or a reconnect): they are not on any line.`,
    );
  if (trace.unpairedSockets)
    notes.push(
      `${trace.unpairedSockets} client sockets spoke a protocol Hotline does not recognise (not PostgreSQL, MySQL/MariaDB, Redis or MongoDB): their waits are not measured.`,
    );
  return notes;
}
