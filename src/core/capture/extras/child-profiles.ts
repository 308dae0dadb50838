// Writes the child processes' profiles (cluster workers, forks) and their stack captures into the
// run folder and says in run.json which processes they are and what of them was kept.
import * as path from 'node:path';
import type { ProcessCapture } from '../../inspector/index.ts';
import { mergeProfiles, withoutOwnFrames } from '../../profile/index.ts';
import { type ExtrasRecord, processProfileFile, processStacksFile, writeFileAtomic } from '../../store/index.ts';
import type { StackSampler } from '../stacks/stack-sampler.ts';

export function saveProcesses(runDir: string, captures: ProcessCapture<StackSampler>[], record: ExtrasRecord): void {
  const list: NonNullable<ExtrasRecord['processes']> = [];
  for (const c of captures) {
    const name = `Child process ${c.info.pid} (${c.info.kind}${c.info.argv[0] ? ` ${path.basename(c.info.argv[0])}` : ''})`;
    if (c.segments.length === 0) {
      record.notes.push(`${name} gave no profile${c.lost ? ` (${c.lost})` : ''}.`);
      continue;
    }
    const file = processProfileFile(c.info.pid);
    writeFileAtomic(path.join(runDir, file), JSON.stringify(withoutOwnFrames(mergeProfiles(c.segments))));
    const stacks = saveStacks(runDir, c, name, record.notes);
    list.push({
      pid: c.info.pid,
      ppid: c.info.ppid,
      kind: c.info.kind,
      argv: c.info.argv,
      file,
      ...(stacks ? { stacks } : {}),
      joinedLate: c.joinedLate,
      exitedEarly: c.exitedEarly,
    });
    if (c.exitedEarly) record.notes.push(`${name} exited during the profiled window: its profile ends there.`);
    if (c.joinedLate) record.notes.push(`${name} started during the profiled window: its profile starts there.`);
    if (c.lost) record.notes.push(`Part of ${name}'s profile was lost: ${c.lost}.`);
  }
  if (list.length > 0) record.processes = list;
}

/**
 * The child's stack captures, matched to its merged profile's samples as the main process's are
 * (StackSampler.result over the same segments), beside its profile; the file's name, if written.
 * Captures that failed cost only precision: a note says its calling lines are read from the source.
 */
function saveStacks(
  runDir: string,
  c: ProcessCapture<StackSampler>,
  name: string,
  notes: string[],
): string | undefined {
  if (c.companionFailed !== undefined)
    notes.push(
      `${name}: stack captures did not run (${c.companionFailed}): its calling lines are read from the source.`,
    );
  const sampler = c.companion;
  if (!sampler) return undefined;
  // A child that exited stops answering: that ends its captures where its profile ends, no loss.
  if (sampler.error !== undefined && !c.exitedEarly)
    notes.push(
      `${name}: stack captures stopped early (${sampler.error}): calling lines they did not see are read from the source.`,
    );
  const stacks = sampler.result(c.segments);
  if (stacks.ticks.length === 0) return undefined;
  const file = processStacksFile(c.info.pid);
  writeFileAtomic(path.join(runDir, file), JSON.stringify(stacks));
  return file;
}
