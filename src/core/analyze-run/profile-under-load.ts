// A whole run in one process (the CLI): capture under load, then analyze the run folder and
// write report.json. The editor captures only and leaves the analysis to its language server.
import { captureUnderLoad, type RunOptions } from '../capture/index.ts';
import { RunError } from '../common/index.ts';
import type { ReportV1 } from '../report/index.ts';
import { analyzeRunDir } from './analyze-run.ts';

export interface ProfiledRun {
  runDir: string;
  report: ReportV1;
}

export async function profileUnderLoad(opts: RunOptions): Promise<ProfiledRun> {
  const { runDir } = await captureUnderLoad(opts);
  opts.onProgress?.({ phase: 'analyzing', message: 'analyzing the profile' });
  let report: ReportV1;
  try {
    report = analyzeRunDir(runDir, opts.target.cwd);
  } catch (err) {
    throw new RunError(
      'analysis-failed',
      `The analysis failed (${(err as Error).message}); the run's data is saved in ${runDir}.`,
    );
  }
  opts.onProgress?.({ phase: 'done', message: `saved ${runDir}` });
  return { runDir, report };
}
