// The analysis of what a run captured besides the main thread: worker threads' CPU profiles and
// the allocation profile (capture/extras/extras.ts saved them). Adds `threads`, `workers` (with the
// workers' lines and user functions merged into `lines`/`functions`, tagged `thread: 'worker'`)
// and `heap` to a report built from the main thread's analysis.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Analysis, analyzeHeapProfile, analyzeProfile, type StackCapturesInput } from '../analysis/index.ts';
import { parseHeapProfileText } from '../profile/index.ts';
import { type CpuProfile, fileOfUrl, mergeProfiles, parseCpuProfileBytes } from '../profile/index.ts';
import { isNodeInternalThread } from '../common/index.ts';
import { type ExtrasRecord, loadSources, PROFILE_FILE } from '../store/index.ts';
import type { HeapFigures, ReportV1, ThreadSummary } from '../report/index.ts';

/** Threads analyzed one by one for their summary (a pool larger than this is summarised together). */
const MAX_THREADS_ANALYSED_APART = 32;

/**
 * Returns `report` with the extras added. `sources` (the main thread's) gains the worker files'
 * text, so the sources snapshot covers the worker lines too.
 */
export function analyzeExtras(
  runDir: string,
  root: string,
  record: { extras?: ExtrasRecord },
  report: ReportV1,
  sources: Map<string, string>,
): ReportV1 {
  const extras = record.extras;
  if (!extras) return report;
  const notes = [...extras.notes];
  const out: ReportV1 = { ...report, threads: [mainThread(report)] };

  const workers: Array<{ entry: ExtrasRecord['workers'][number]; profile: CpuProfile }> = [];
  // Node's own threads (its loader-hooks thread) are not the app's: a run recorded before Hotline
  // left them out at capture may still have one.
  for (const w of extras.workers.filter((x) => !isNodeInternalThread(x.url))) {
    try {
      workers.push({ entry: w, profile: parseCpuProfileBytes(fs.readFileSync(path.join(runDir, w.file))) });
    } catch (err) {
      notes.push(
        `The profile of worker thread ${w.title || w.threadId} (${w.file}) could not be read: ${(err as Error).message}`,
      );
    }
  }
  if (workers.length > 0) {
    const analyze = (profile: CpuProfile): Analysis => analyzeBeside(profile, root, sources);
    const combined = analyze(workers.length === 1 ? workers[0].profile : mergeProfiles(workers.map((w) => w.profile)));
    for (const [i, w] of workers.entries()) {
      const a = workers.length === 1 ? combined : i < MAX_THREADS_ANALYSED_APART ? analyze(w.profile) : undefined;
      out.threads!.push(workerThread(w.entry, w.profile, a));
    }
    out.workers = {
      nonIdleMs: combined.nonIdleMs,
      durationMs: combined.durationMs,
      samples: combined.samples,
      categories: combined.categories,
      hints: combined.hints,
    };
    out.lines = [...report.lines, ...combined.lines.map((l) => ({ ...l, thread: 'worker' as const }))];
    out.functions = [
      ...report.functions,
      ...combined.functions.filter((f) => f.category === 'user').map((f) => ({ ...f, thread: 'worker' as const })),
    ];
    notes.push(...combined.notes.map((n) => `Worker threads: ${n}`));
  }

  if (extras.heap) {
    try {
      out.heap = heapFigures(runDir, root, extras.heap, report);
      notes.push(
        "Allocations are counted per function, at the line where it starts: V8's sampling heap profile names no lines, and a function V8 inlined into its caller has its bytes counted on the caller.",
      );
    } catch (err) {
      notes.push(`The allocation profile (${extras.heap.file}) could not be read: ${(err as Error).message}`);
    }
  }
  out.notes = [...report.notes, ...notes];
  return out;
}

/**
 * Analyzes a profile other than the main thread's (a worker thread's, a child process's) with the
 * sources it names, and its stack captures when it has them; `sources` (the run's snapshot) gains
 * their text.
 */
export function analyzeBeside(
  profile: CpuProfile,
  root: string,
  sources: Map<string, string>,
  stacks?: StackCapturesInput,
): Analysis {
  const loaded = loadSources(profile, root);
  for (const [file, text] of loaded.sources) if (!sources.has(file)) sources.set(file, text);
  const a = analyzeProfile({ profile, root, sources: loaded.sources, sourceMaps: loaded.sourceMaps, stacks });
  a.notes = loaded.notes.concat(a.notes);
  return a;
}

function mainThread(r: ReportV1): ThreadSummary {
  const top = r.lines.find((l) => l.thread === undefined);
  return {
    id: 0,
    title: 'main',
    file: r.profile.file || PROFILE_FILE,
    durationMs: r.profile.durationMs,
    samples: r.profile.samples,
    nonIdleMs: r.nonIdleMs,
    ...(top
      ? { topLine: { file: top.file, line: top.line, function: top.function, ownMs: top.ownMs, ownPct: top.ownPct } }
      : {}),
  };
}

function workerThread(w: ExtrasRecord['workers'][number], profile: CpuProfile, a: Analysis | undefined): ThreadSummary {
  const top = a?.lines[0];
  const samples = profile.samples?.length ?? 0;
  return {
    id: w.threadId,
    title: w.title || `worker ${w.threadId}`,
    file: w.file,
    script: fileOfUrl(w.url),
    durationMs: a?.durationMs ?? Math.round((profile.endTime - profile.startTime) / 10) / 100,
    samples: a?.samples ?? samples,
    nonIdleMs: a?.nonIdleMs ?? 0,
    ...(top && top.ownMs > 0
      ? { topLine: { file: top.file, line: top.line, function: top.function, ownMs: top.ownMs, ownPct: top.ownPct } }
      : {}),
    ...(w.joinedLate ? { joinedLate: true } : {}),
    ...(w.exitedEarly ? { exitedEarly: true } : {}),
    ...(w.startedAtBoot && !w.joinedLate ? { startedAtBoot: true } : {}),
  };
}

function heapFigures(runDir: string, root: string, h: NonNullable<ExtrasRecord['heap']>, r: ReportV1): HeapFigures {
  const profile = parseHeapProfileText(fs.readFileSync(path.join(runDir, h.file), 'utf8'));
  const a = analyzeHeapProfile(profile, root);
  const p = r.load?.profiled;
  const requests = p ? (p.requests.total ?? p.requests.perSecond * p.durationS) : 0;
  return {
    file: h.file,
    samplingIntervalBytes: h.samplingIntervalBytes,
    totalBytes: Math.round(a.totalBytes),
    outsideUserBytes: Math.round(a.outsideUserBytes),
    ...(p && p.durationS > 0 ? { bytesPerSecond: Math.round(a.totalBytes / p.durationS) } : {}),
    ...(requests > 0 ? { bytesPerRequest: Math.round(a.totalBytes / requests) } : {}),
    lines: a.lines,
    functions: a.functions,
  };
}
