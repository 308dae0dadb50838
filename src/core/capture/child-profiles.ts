// Writes the child processes' profiles (cluster workers, forks) into the run folder and says in
// run.json which processes they are and what of them was kept.
import * as path from 'node:path';
import type { ProcessCapture } from '../inspector/index.ts';
import { mergeProfiles } from '../analysis/index.ts';
import { type ExtrasRecord, processProfileFile, writeFileAtomic } from '../store/index.ts';

export function saveProcesses(runDir: string, captures: ProcessCapture[], record: ExtrasRecord): void {
  const list: NonNullable<ExtrasRecord['processes']> = [];
  for (const c of captures) {
    const name = `Child process ${c.info.pid} (${c.info.kind}${c.info.argv[0] ? ` ${path.basename(c.info.argv[0])}` : ''})`;
    if (c.segments.length === 0) {
      record.notes.push(`${name} gave no profile${c.lost ? ` (${c.lost})` : ''}.`);
      continue;
    }
    const file = processProfileFile(c.info.pid);
    writeFileAtomic(path.join(runDir, file), JSON.stringify(mergeProfiles(c.segments)));
    list.push({
      pid: c.info.pid,
      ppid: c.info.ppid,
      kind: c.info.kind,
      argv: c.info.argv,
      file,
      joinedLate: c.joinedLate,
      exitedEarly: c.exitedEarly,
    });
    if (c.exitedEarly) record.notes.push(`${name} exited during the profiled window: its profile ends there.`);
    if (c.joinedLate) record.notes.push(`${name} started during the profiled window: its profile starts there.`);
    if (c.lost) record.notes.push(`Part of ${name}'s profile was lost: ${c.lost}.`);
  }
  if (list.length > 0) record.processes = list;
}
