// The second half of a run, which may happen in another process (the editor's language server):
// read a run folder (run.json, the profile, the stack captures), analyze it with the app's
// sources, and write report.json and a snapshot of the sources it points into.
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  type Analysis,
  analyzeProfile,
  applyRuntimeScripts,
  analyzeProfileWithTimeline,
  mapProfilePaths,
  type PathMapping,
  placeFunctionHeads,
  type StackCapturesInput,
  TIMELINE_FILE,
  timelineJsonParts,
  type TimelineV1,
} from '../analysis/index.ts';
import { cpuProfileToPprof, looksLikePprof, type PprofContent, readPprof } from '../profile/index.ts';
import {
  type CpuProfile,
  parseCpuProfileBytes,
  ProfileFormatError,
  readCpuProfileStream,
  MAX_STRING_BYTES,
} from '../profile/index.ts';
import {
  loadSources,
  PROFILE_FILE,
  readRunRecord,
  readRuntimeScriptsBeside,
  readSourceSnapshot,
  SOURCES_FILE,
  STACKS_FILE,
  writeFileAtomic,
  writeFileAtomicParts,
  writeReport,
} from '../store/index.ts';
import { buildReport, type ReportV1, requestTimeOf } from '../report/index.ts';
import { routesFromLoad } from '../load/index.ts';
import { analyzeExtras } from './analyze-extras.ts';
import { analyzeProcesses } from './analyze-processes.ts';
import { analyzeStalls } from './analyze-stalls.ts';
import { analyzeWaits, readWaits } from './analyze-waits.ts';
import { analyzeRoutes } from './analyze-routes.ts';
import { isUnusable, readStacksFile } from './read-stacks-file.ts';
import { withoutMappedNonCode, withoutUnmappedLines } from './unmapped-lines.ts';

export { TIMELINE_FILE };

/** How the error for a heap pprof given as a CPU profile starts (the editor opens those as flame graphs only). */
export const HEAP_PPROF = 'a heap profile in pprof';

/** Analyzes a run folder and writes its report.json (and sources.json, timeline.json); returns the report. */
export function analyzeRunDir(runDir: string, root: string): ReportV1 {
  const record = readRunRecord(runDir);
  const { analysis, sources, timeline } = analyzeFile(path.join(runDir, PROFILE_FILE), root);
  const withExtras = analyzeProcesses(
    runDir,
    root,
    record,
    analyzeExtras(runDir, root, record, buildReport({ ...record, profileFile: PROFILE_FILE, analysis }), sources),
    sources,
  );
  const waits = record.extras?.waits ? readWaits(runDir, record.extras.waits) : undefined;
  const stalled = analyzeWaits(
    analyzeStalls(withExtras, record.extras?.stalls, timeline),
    waits,
    record.extras?.waits,
    sources,
  );
  // The load generator's figures per route (load/route-figures.ts), then the app's own CPU, lines
  // and stalls per route merged into them (analyze-routes.ts: mergeRoutes).
  const loadRoutes = routesFromLoad(stalled.load);
  const waited = analyzeRoutes(
    loadRoutes ? { ...stalled, routes: loadRoutes } : stalled,
    runDir,
    record.extras?.routes,
    timeline,
    waits && 'trace' in waits ? waits.trace : undefined,
  );
  const requestTime = requestTimeOf(waited);
  const report = requestTime ? { ...waited, requestTime } : waited;
  writeSourceSnapshot(runDir, report, sources);
  writeTimeline(runDir, timeline);
  writeReport(runDir, report);
  return report;
}

/** Writes timeline.json (compact: one line of arrays), or removes a stale one when the profile has no sample order. */
export function writeTimeline(dir: string, timeline: TimelineV1 | undefined): void {
  const file = path.join(dir, TIMELINE_FILE);
  if (timeline) writeTimelineFile(file, timeline);
  else fs.rmSync(file, { force: true });
}

/** A timeline's JSON written in parts (timeline.ts): never one string, whatever the profile's length. */
export function writeTimelineFile(file: string, timeline: TimelineV1): void {
  writeFileAtomicParts(file, timelineJsonParts(timeline));
}

/**
 * Analyzes a .cpuprofile (or pprof) file with the sources under `root`; the stack captures of a
 * run folder (stacks.json beside its profile.cpuprofile) give the measured calling lines.
 * `pathMap` maps the paths of the machine that wrote the profile onto this one (path-map.ts).
 */
export function analyzeFile(
  profileFile: string,
  root: string,
  opts: { pathMap?: readonly PathMapping[] } = {},
): { analysis: Analysis; sources: Map<string, string>; timeline?: TimelineV1 } {
  const pprof = isPprofFile(profileFile) ? readPprofFile(profileFile) : undefined;
  if (pprof?.kind === 'heap')
    throw new ProfileFormatError(`${HEAP_PPROF} (${pprof.valueType}): it has allocations, not CPU time`);
  let profile = mapProfilePaths(pprof ? pprof.profile : readProfileFile(profileFile), opts.pathMap ?? []);
  // Scripts compiled in memory are read as the run saw them (analysis/attribution/apply-runtime-scripts.ts).
  const runtime = applyRuntimeScripts(
    profile,
    readStacksBeside(profileFile, profile.samples?.length ?? 0),
    path.basename(profileFile) === PROFILE_FILE ? readRuntimeScriptsBeside(profileFile) : [],
  );
  profile = runtime.profile;
  const loaded = loadSources(profile, root, runtime);
  // A run analyzed again (an older run opened later): its own saved sources are the text it ran,
  // whatever was edited since; the editor maps the lines through those edits.
  for (const [file, text] of savedSourcesBeside(profileFile)) loaded.sources.set(file, text);
  if (pprof) profile = placeFunctionHeads(profile, pprof.frameLines, loaded.sources);
  const stacks = runtime.stacks;
  const input = {
    profile,
    root,
    sources: loaded.sources,
    sourceMaps: loaded.sourceMaps,
    stacks,
    // The profile was read here for this analysis alone: its sample array may be used up.
    consumeSamples: true,
  };
  // pprof samples are laid out by stack, not in time: a heat map of them would be made up, so no
  // timeline is built. The report page reads timeline.json back as one string.
  const { analysis, timeline } = pprof
    ? { analysis: analyzeProfile(input), timeline: undefined }
    : analyzeProfileWithTimeline(input, MAX_STRING_BYTES);
  // Not unshift(...notes): one note per missing file can be more arguments than the stack holds.
  analysis.notes = loaded.notes.concat(analysis.notes);
  withoutUnmappedLines(analysis, runtime.unmapped);
  withoutMappedNonCode(analysis, loaded.sources, runtime.sourceMaps);
  if (pprof)
    analysis.notes.push(
      `Read from pprof (${pprof.valueType}): pprof keeps no order of samples in time, so there is no heat map.`,
    );
  return { analysis, sources: loaded.sources, timeline };
}

/**
 * Writes a CPU profile (a .cpuprofile, a run's profile) as gzipped pprof (pprof-out.ts), its
 * paths mapped first when `pathMap` says so (this machine's folder → the fleet's `/app/`).
 */
export function exportPprof(profileFile: string, out: string, opts: { pathMap?: readonly PathMapping[] } = {}): void {
  const profile = mapProfilePaths(readProfileFile(profileFile), opts.pathMap ?? []);
  writeFileAtomic(out, cpuProfileToPprof(profile));
}

/** Whether the file starts like a pprof file (gzip or a profile.proto message), not JSON. */
export function isPprofFile(file: string): boolean {
  const head = Buffer.alloc(4);
  let n = 0;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      n = fs.readSync(fd, head, 0, head.length, 0);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false; // the reader that follows reports a missing or unreadable file
  }
  return looksLikePprof(head.subarray(0, n));
}

/** A pprof file read into the engine's models (pprof.ts). */
export function readPprofFile(file: string): PprofContent {
  return readPprof(fs.readFileSync(file));
}

/**
 * Read from the file's bytes (cpuprofile-reader.ts: the sample arrays become typed arrays, not
 * millions of JS numbers). A regular file may be read a second time, only if the fast reader
 * gives up, so its bytes need not be held meanwhile; a pipe or a device is read once. A pprof
 * file is read as the CPU profile it holds.
 */
export function readProfileFile(profileFile: string): CpuProfile {
  let regular = false;
  try {
    regular = fs.statSync(profileFile).isFile();
  } catch {
    // readFileSync below reports a missing or unreadable file, with its usual message
  }
  if (!regular) return parseCpuProfileBytes(fs.readFileSync(profileFile));
  if (isPprofFile(profileFile)) {
    const pprof = readPprofFile(profileFile);
    if (pprof.kind !== 'cpu') throw new ProfileFormatError(`${HEAP_PPROF} (${pprof.valueType}), not a CPU profile`);
    return pprof.profile;
  }
  return readStreamed(profileFile);
}

/** A regular file read in chunks (cpuprofile-reader.ts: readCpuProfileStream), whatever its size. */
function readStreamed(profileFile: string): CpuProfile {
  const fd = fs.openSync(profileFile, 'r');
  try {
    return readCpuProfileStream(
      (into, position) => fs.readSync(fd, into, 0, into.length, position),
      fs.fstatSync(fd).size,
      () => fs.readFileSync(profileFile),
      { file: profileFile },
    );
  } finally {
    fs.closeSync(fd);
  }
}

/** The sources.json of a run folder's own profile.cpuprofile (file → text), or nothing. */
function savedSourcesBeside(profileFile: string): Map<string, string> {
  // None yet (a run analyzed for the first time) or unreadable: today's files are read.
  return path.basename(profileFile) === PROFILE_FILE ? readSourceSnapshot(path.dirname(profileFile)) : new Map();
}

/**
 * The stacks.json of a run folder's own profile.cpuprofile (its ticks name that profile's samples,
 * nothing else's); one that cannot be read or does not fit the profile only costs precision.
 */
function readStacksBeside(profileFile: string, sampleCount: number): StackCapturesInput | undefined {
  if (path.basename(profileFile) !== PROFILE_FILE) return undefined;
  const read = readStacksFile(path.join(path.dirname(profileFile), STACKS_FILE), sampleCount);
  return isUnusable(read) ? undefined : read;
}

/**
 * The text of every file the report puts a cost in, as it was when analyzed: the editor maps
 * the report's lines through later edits by diffing against it (design: a cost on the wrong
 * line is worse than none).
 */
export function writeSourceSnapshot(runDir: string, report: ReportV1, sources: Map<string, string>): void {
  const files = new Set([
    ...report.lines.map((l) => l.file),
    ...report.functions.filter((f) => f.category === 'user').map((f) => f.file),
    ...(report.waits ?? []).map((w) => w.file),
  ]);
  const snapshot: Record<string, string> = {};
  for (const file of files) {
    const text = sources.get(file);
    if (text !== undefined) snapshot[file] = text;
  }
  writeFileAtomic(path.join(runDir, SOURCES_FILE), JSON.stringify(snapshot));
}
