// The analysis of the app's child processes (cluster workers, forks; capture/extras/child-profiles.ts
// saved their profiles): `processes` (the primary and each child), `childProcesses` (the children
// together), and the children's lines and user functions merged into `lines`/`functions`, tagged
// `thread: 'process'`, each line with its split by process. Each child's stack captures give its
// calling lines, in its own analysis and in the children's together. For the latter the captures
// are merged as the profiles are (stacks-merge.ts: a tick keeps pointing at its own sample), not
// analysed apart and added up: every child ticks at the same rate, so its ticks on a call are in
// proportion to its time there and the pooled counts weigh each child by its time; a child whose
// captures stopped early has its part of shared code split by the others' (the same code); and the
// functions, hints and categories of the children come from one analysis, as for one process.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Analysis, mergeStackCaptures, type StackCapturesInput } from '../analysis/index.ts';
import { type CpuProfile, mergeProfiles, parseCpuProfileBytes } from '../profile/index.ts';
import { type ChildProcessRecord, type ExtrasRecord, PROFILE_FILE } from '../store/index.ts';
import { analyzeBeside } from './analyze-extras.ts';
import { isUnusable, readStacksFile } from './read-stacks-file.ts';
import type { ProcessSummary, ReportV1 } from '../report/index.ts';

/** Children analyzed one by one for their summary and their split of each line. */
const MAX_ANALYSED_APART = 32;

export function analyzeProcesses(
  runDir: string,
  root: string,
  record: { extras?: ExtrasRecord },
  report: ReportV1,
  sources: Map<string, string>,
): ReportV1 {
  const list = record.extras?.processes;
  if (!list || list.length === 0) return report;
  const notes: string[] = [];
  const children: Array<{ entry: ChildProcessRecord; profile: CpuProfile; stacks?: StackCapturesInput }> = [];
  for (const entry of list) {
    let profile: CpuProfile;
    try {
      profile = parseCpuProfileBytes(fs.readFileSync(path.join(runDir, entry.file)));
    } catch (err) {
      notes.push(
        `The profile of child process ${entry.pid} (${entry.file}) could not be read: ${(err as Error).message}`,
      );
      continue;
    }
    children.push({ entry, profile, stacks: stacksOf(runDir, entry, profile, notes) });
  }
  if (children.length === 0) return { ...report, notes: [...report.notes, ...notes] };
  const analyze = (profile: CpuProfile, stacks: StackCapturesInput | undefined): Analysis =>
    analyzeBeside(profile, root, sources, stacks);
  const combined =
    children.length === 1
      ? analyze(children[0].profile, children[0].stacks)
      : analyze(
          mergeProfiles(children.map((c) => c.profile)),
          mergeStackCaptures(children.map((c) => ({ stacks: c.stacks, sampleCount: c.profile.samples?.length ?? 0 }))),
        );
  const apart = children.map((c, i) =>
    children.length === 1 ? combined : i < MAX_ANALYSED_APART ? analyze(c.profile, c.stacks) : undefined,
  );
  const allNonIdleMs = report.nonIdleMs + combined.nonIdleMs;
  const share = (ms: number): number => (allNonIdleMs > 0 ? Math.round((ms / allNonIdleMs) * 1000) / 10 : 0);

  const primaryTop = report.lines.find((l) => l.thread === undefined);
  const processes: ProcessSummary[] = [
    {
      pid: report.app.pid,
      role: 'primary',
      file: report.profile.file || PROFILE_FILE,
      durationMs: report.profile.durationMs,
      samples: report.profile.samples,
      nonIdleMs: report.nonIdleMs,
      sharePct: share(report.nonIdleMs),
      ...(primaryTop && primaryTop.ownMs > 0 ? { topLine: topLineOf(primaryTop) } : {}),
    },
    ...children.map(({ entry, profile }, i) => childSummary(entry, profile, apart[i], share)),
  ];

  // Which process ran each line, from the children analyzed apart.
  const byLine = new Map<string, Array<{ pid: number; ownMs: number }>>();
  apart.forEach((a, i) => {
    if (!a || children.length === 1) return;
    for (const l of a.lines) {
      if (l.ownMs <= 0) continue;
      const key = `${l.file}\u0000${l.line}`;
      byLine.set(key, [...(byLine.get(key) ?? []), { pid: children[i].entry.pid, ownMs: l.ownMs }]);
    }
  });
  const lines = combined.lines.map((l) => {
    const split =
      children.length === 1
        ? [{ pid: children[0].entry.pid, ownMs: l.ownMs }]
        : (byLine.get(`${l.file}\u0000${l.line}`) ?? []).sort((a, b) => b.ownMs - a.ownMs);
    return { ...l, thread: 'process' as const, ...(split.length > 0 ? { processes: split } : {}) };
  });

  notes.push(
    `The app ran ${children.length} child process${children.length === 1 ? '' : 'es'} beside the one Hotline started, profiled in the same windows: their lines are tagged thread "process", with percentages of the child processes' CPU (${Math.round(combined.nonIdleMs)} ms) and each process's part. The load figures are the app's as a whole; its CPU per request adds the children's.`,
    ...combined.notes.map((n) => `Child processes: ${n}`),
  );
  return {
    ...report,
    processes,
    childProcesses: {
      count: children.length,
      nonIdleMs: combined.nonIdleMs,
      durationMs: combined.durationMs,
      samples: combined.samples,
      categories: combined.categories,
      hints: combined.hints,
      allNonIdleMs,
    },
    lines: [...report.lines, ...lines],
    functions: [
      ...report.functions,
      ...combined.functions.filter((f) => f.category === 'user').map((f) => ({ ...f, thread: 'process' as const })),
    ],
    notes: [...report.notes, ...notes],
  };
}

/** A child's stack captures (run.json names them beside its profile); one that does not fit only costs precision. */
function stacksOf(
  runDir: string,
  entry: ChildProcessRecord,
  profile: CpuProfile,
  notes: string[],
): StackCapturesInput | undefined {
  if (!entry.stacks) return undefined;
  const read = readStacksFile(path.join(runDir, entry.stacks), profile.samples?.length ?? 0);
  if (!isUnusable(read)) return read;
  notes.push(
    `The stack captures of child process ${entry.pid} (${entry.stacks}) were not used (${read.unusable}): its calling lines are read from the source.`,
  );
  return undefined;
}

function topLineOf(l: ReportV1['lines'][number]): NonNullable<ProcessSummary['topLine']> {
  return { file: l.file, line: l.line, function: l.function, ownMs: l.ownMs, ownPct: l.ownPct };
}

function childSummary(
  entry: ChildProcessRecord,
  profile: CpuProfile,
  a: Analysis | undefined,
  share: (ms: number) => number,
): ProcessSummary {
  const top = a?.lines[0];
  const nonIdleMs = a?.nonIdleMs ?? 0;
  return {
    pid: entry.pid,
    role: 'worker',
    kind: entry.kind,
    file: entry.file,
    ...(entry.argv[0] ? { script: path.resolve(entry.argv[0]) } : {}),
    durationMs: a?.durationMs ?? Math.round((profile.endTime - profile.startTime) / 10) / 100,
    samples: a?.samples ?? profile.samples?.length ?? 0,
    nonIdleMs,
    sharePct: share(nonIdleMs),
    ...(top && top.ownMs > 0 ? { topLine: topLineOf(top) } : {}),
    ...(entry.joinedLate ? { joinedLate: true } : {}),
    ...(entry.exitedEarly ? { exitedEarly: true } : {}),
  };
}
