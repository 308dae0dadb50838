// Writes a run's data (profile, stack captures, app output, the scripts compiled in memory,
// run.json) into a new run folder, before anything reads it.
import * as path from 'node:path';
import { redactUrl } from '../common/index.ts';
import { fileOfUrl } from '../profile/index.ts';
import {
  createRunDir,
  LOG_FILE,
  newRunId,
  PROFILE_FILE,
  type RuntimeScript,
  runsDirOf,
  STACKS_FILE,
  writeFileAtomic,
  writeRunRecord,
  writeRuntimeScripts,
} from '../store/index.ts';
import { loadFigures, type Measured, recordedSettings } from './record.ts';
import { saveExtras } from './extras/extras.ts';
import type { RunControl } from './run-control.ts';

/** The run folder written; `notes` go to the report after the extras' own. */
export function saveRun(
  run: RunControl,
  startedAt: Date,
  url: string,
  m: Measured,
  notes: string[],
  app: { nodeVersion?: string; runtimeScripts: RuntimeScript[] },
): string {
  const { opts, s } = run;
  const target = opts.target;
  const runsDir = opts.runsDir ?? runsDirOf(target.cwd);
  const id = newRunId(startedAt);
  const runDir = createRunDir(runsDir, id);
  writeFileAtomic(path.join(runDir, PROFILE_FILE), JSON.stringify(m.profile));
  writeFileAtomic(path.join(runDir, LOG_FILE), run.app?.printed() ?? '');
  if (m.stacks) writeFileAtomic(path.join(runDir, STACKS_FILE), JSON.stringify(m.stacks));
  writeRuntimeScripts(runDir, app.runtimeScripts);
  const extras = m.extras ? saveExtras(runDir, m.extras) : undefined;
  if (extras) extras.notes.push(...notes);
  writeRunRecord(runDir, {
    version: 1,
    id,
    startedAt: startedAt.toISOString(),
    app: {
      command: run.app?.command ?? [],
      cwd: target.cwd,
      pid: run.app?.pid ?? -1,
      url: redactUrl(url),
      ...(app.nodeVersion ? { node: app.nodeVersion } : {}),
    },
    settings: recordedSettings(s, opts.target, opts.attach),
    load: loadFigures(s, m),
    eventLoop: {
      ...m.loop,
      profiled: m.profiledLoop,
      ...(m.blockedAt
        ? { blockedAt: m.blockedAt.map((f) => ({ function: f.functionName, file: fileOfUrl(f.url), line: f.line })) }
        : {}),
    },
    partial: m.partial,
    ...(extras ? { extras } : {}),
  });
  return runDir;
}
