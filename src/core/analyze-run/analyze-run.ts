// The second half of a run, which may happen in another process (the editor's language server):
// read a run folder (run.json, the profile, the warm-up's coverage), analyze it with the app's
// sources, and write report.json and a snapshot of the sources it points into.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Analysis, analyzeProfileWithTimeline, type CpuProfile, parseCpuProfileBytes, readCoverage, readCpuProfileBytes, TIMELINE_FILE, type TimelineV1 } from '../analysis/index.ts';
import { COVERAGE_FILE, loadSources, PROFILE_FILE, readRunRecord, SOURCES_FILE, writeFileAtomic, writeReport } from '../store/index.ts';
import { buildReport, type ReportV1 } from '../report/index.ts';
import { analyzeExtras } from './analyze-extras.ts';

export { TIMELINE_FILE };

/** Analyses a run folder and writes its report.json (and sources.json, timeline.json); returns the report. */
export function analyzeRunDir(runDir: string, root: string): ReportV1 {
  const record = readRunRecord(runDir);
  const { analysis, sources, timeline } = analyzeFile(path.join(runDir, PROFILE_FILE), root);
  const report = analyzeExtras(runDir, root, record, buildReport({ ...record, profileFile: PROFILE_FILE, analysis }), sources);
  writeSourceSnapshot(runDir, report, sources);
  writeTimeline(runDir, timeline);
  writeReport(runDir, report);
  return report;
}

/** Writes timeline.json (compact: one line of arrays), or removes a stale one when the profile has no sample order. */
export function writeTimeline(dir: string, timeline: TimelineV1 | undefined): void {
  const file = path.join(dir, TIMELINE_FILE);
  if (timeline) writeFileAtomic(file, JSON.stringify(timeline));
  else fs.rmSync(file, { force: true });
}

/**
 * Analyses a .cpuprofile file with the sources under `root`; a coverage.json beside it (a run
 * folder keeps the warm-up's block coverage there) sharpens the call-site lines.
 */
export function analyzeFile(profileFile: string, root: string): { analysis: Analysis; sources: Map<string, string>; timeline?: TimelineV1 } {
  const profile = readProfileFile(profileFile);
  const loaded = loadSources(profile, root);
  const coverage = readCoverageBeside(profileFile);
  const { analysis, timeline } = analyzeProfileWithTimeline({ profile, root, sources: loaded.sources, sourceMaps: loaded.sourceMaps, coverage });
  // Not unshift(...notes): one note per missing file can be more arguments than the stack holds.
  analysis.notes = loaded.notes.concat(analysis.notes);
  return { analysis, sources: loaded.sources, timeline };
}

/**
 * Read from the file's bytes (cpuprofile-reader.ts: the sample arrays become typed arrays, not
 * millions of JS numbers). A regular file may be read a second time, only if the fast reader
 * gives up, so its bytes need not be held meanwhile; a pipe or a device is read once.
 */
export function readProfileFile(profileFile: string): CpuProfile {
  let regular = false;
  try {
    regular = fs.statSync(profileFile).isFile();
  } catch {
    // readFileSync below reports a missing or unreadable file, with its usual message
  }
  if (!regular) return parseCpuProfileBytes(fs.readFileSync(profileFile));
  return readCpuProfileBytes(() => fs.readFileSync(profileFile), { consume: true });
}

/** The coverage.json beside a profile, if any; one that cannot be read (a folder, a broken link) only costs precision. */
function readCoverageBeside(profileFile: string): ReturnType<typeof readCoverage> | undefined {
  const coverageFile = path.join(path.dirname(profileFile), COVERAGE_FILE);
  if (!fs.existsSync(coverageFile)) return undefined;
  let text: string;
  try {
    text = fs.readFileSync(coverageFile, 'utf8');
  } catch {
    return undefined;
  }
  return readCoverage(safeJson(text));
}

/**
 * The text of every file the report puts a cost in, as it was when analyzed: the editor maps
 * the report's lines through later edits by diffing against it (design: a cost on the wrong
 * line is worse than none).
 */
export function writeSourceSnapshot(runDir: string, report: ReportV1, sources: Map<string, string>): void {
  const files = new Set([...report.lines.map((l) => l.file), ...report.functions.filter((f) => f.category === 'user').map((f) => f.file)]);
  const snapshot: Record<string, string> = {};
  for (const file of files) {
    const text = sources.get(file);
    if (text !== undefined) snapshot[file] = text;
  }
  writeFileAtomic(path.join(runDir, SOURCES_FILE), JSON.stringify(snapshot));
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // a damaged coverage file only costs precision
  }
}
