// The server's file work: analyze a run folder or a bare .cpuprofile (core/analyze-run/analyze-run.ts), and
// read a saved run with its source snapshot. Errors are RunLoadErrors with a sentence a person
// can act on; the server turns them into a ResponseError or a warning.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  analyzeFile,
  parsePathMapping,
  analyzeRunDir,
  buildReport,
  newRunId,
  PROFILE_FILE,
  readRun,
  REPORT_FILE,
  type ReportV1,
  type RunSettings,
  SOURCES_FILE,
  writeReport,
  writeSourceSnapshot,
  writeTimeline,
} from '../core/index.ts';
import { fileKey } from './file-view.ts';

export class RunLoadError extends Error {
  constructor(
    message: string,
    readonly file: string,
  ) {
    super(message);
    this.name = 'RunLoadError';
  }
}

export interface LoadedRun {
  reportFile: string;
  report: ReportV1;
  /** sources.json: file key → the text the run analyzed. */
  snapshot: Map<string, string>;
  /** What went wrong short of failing (a missing or damaged sources.json), for a warning. */
  warnings: string[];
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Reads report.json and the sources.json beside it. A bad report throws; a bad snapshot is a warning. */
export function loadRun(reportFile: string): LoadedRun {
  let run: { dir: string; report: ReportV1 };
  try {
    run = readRun(reportFile);
  } catch (err) {
    throw new RunLoadError(message(err), reportFile);
  }
  const file = reportFile.endsWith('.json') ? path.resolve(reportFile) : path.join(run.dir, REPORT_FILE);
  const { snapshot, warning } = readSnapshot(path.join(run.dir, SOURCES_FILE));
  return { reportFile: file, report: run.report, snapshot, warnings: warning ? [warning] : [] };
}

function readSnapshot(file: string): { snapshot: Map<string, string>; warning?: string } {
  const snapshot = new Map<string, string>();
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return {
      snapshot,
      warning: `${file} is missing (a run saved by an older Hotline?): costs are hidden, since the lines cannot be checked against the text the run analyzed.`,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return {
      snapshot,
      warning: `${file} is not valid JSON (${message(err)}): costs are hidden, since the lines cannot be checked against the text the run analyzed.`,
    };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { snapshot, warning: `${file} is not a Hotline source snapshot: costs are hidden.` };
  }
  for (const [name, content] of Object.entries(value))
    if (typeof content === 'string') snapshot.set(fileKey(name), content);
  return { snapshot };
}

/** AnalyzeRunRequest: analyze a captured run folder (writes report.json and sources.json). */
export function analyzeRun(runDir: string, root: string): LoadedRun {
  const dir = path.resolve(runDir);
  try {
    analyzeRunDir(dir, path.resolve(root));
  } catch (err) {
    throw new RunLoadError(`Could not analyze the run in ${dir}: ${message(err)}`, dir);
  }
  return loadRun(path.join(dir, REPORT_FILE));
}

/** Temporary folders made for profiles analyzed without an outDir; deleted when the server exits. */
const tempDirs: string[] = [];

export function removeTempDirs(): void {
  for (const dir of tempDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * AnalyzeProfileRequest: analyze a .cpuprofile with the sources under `root`, and write a report
 * without load figures, the source snapshot and a copy of the profile into `outDir` (or a
 * temporary folder), so the report and flame graph webviews can open it like a run.
 */
export async function analyzeProfile(
  profileFile: string,
  root: string,
  outDir?: string,
  pathMap: Record<string, string> = {},
): Promise<LoadedRun> {
  const source = path.resolve(profileFile);
  const appRoot = path.resolve(root);
  const dir = outDir ? path.resolve(outDir) : fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-profile-'));
  if (!outDir) tempDirs.push(dir);
  const copy = path.join(dir, PROFILE_FILE);
  // The profile's copy is made by libuv's thread pool while this thread analyzes it (a big file:
  // seconds of the other core, not of this one), under a name of its own until the analysis is
  // done, so a failed one leaves an earlier run in the folder as it was.
  const partial = `${copy}.partial-${process.pid}-${++copies}`;
  const copying = path.resolve(copy) === source ? Promise.resolve(undefined) : startCopy(source, dir, partial);
  let analyzed: ReturnType<typeof analyzeFile>;
  let startedAt: string;
  try {
    startedAt = fs.statSync(source).mtime.toISOString();
    // hotline.pathMap: FROM → TO, TO relative to the workspace folder.
    const maps = Object.entries(pathMap).map(([from, to]) => {
      const m = parsePathMapping(`${from}=${to}`);
      return { from: m.from, to: `${path.resolve(appRoot, m.to)}/` };
    });
    analyzed = analyzeFile(source, appRoot, { pathMap: maps });
  } catch (err) {
    await copying;
    fs.rmSync(outDir ? partial : dir, { recursive: true, force: true });
    throw new RunLoadError(`Could not analyze ${source}: ${message(err)}`, source);
  }
  try {
    const copyFailed = await copying;
    if (copyFailed) throw copyFailed;
    if (path.resolve(copy) !== source) fs.renameSync(partial, copy);
    const { analysis, sources, timeline } = analyzed;
    const settings: RunSettings = {
      url: '',
      method: '',
      headers: {},
      connections: 0,
      pipelining: 0,
      durationS: analysis.durationMs / 1000,
      warmupS: 0,
      samplingIntervalUs: analysis.intervalUs,
      timeoutS: 0,
    };
    const report = buildReport({
      id: newRunId(),
      startedAt,
      app: { command: [], cwd: appRoot, pid: 0, url: '' },
      settings,
      profileFile: PROFILE_FILE,
      analysis,
      notes: [`Analyzed from ${source}: a profile without a load test, so there are no load or event-loop figures.`],
    });
    writeSourceSnapshot(dir, report, sources);
    writeTimeline(dir, timeline);
    writeReport(dir, report);
  } catch (err) {
    fs.rmSync(partial, { force: true });
    throw new RunLoadError(`Could not write the analysis of ${source} into ${dir}: ${message(err)}`, dir);
  }
  return loadRun(path.join(dir, REPORT_FILE));
}

/** Copies begun: each its own partial file, so two analyses of one profile at once do not share one. */
let copies = 0;

/**
 * Starts copying `source` to `to` in `dir` (made first) and returns at once: the copy runs on
 * libuv's thread pool. Its failure, if any, is the promise's value, never a rejection.
 */
function startCopy(source: string, dir: string, to: string): Promise<Error | undefined> {
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch (err) {
    return Promise.resolve(err as Error);
  }
  // A clone where the file system can make one (btrfs, XFS, APFS: no bytes copied), else a copy.
  return fs.promises.copyFile(source, to, fs.constants.COPYFILE_FICLONE).then(
    () => undefined,
    (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
  );
}
