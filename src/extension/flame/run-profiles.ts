// The profiles of a run folder for the flame graph's picker: the main thread first, then each
// worker thread, each child process and the allocations, as report.json lists them. No vscode
// import (unit-tested).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isReportV1, PROFILE_FILE } from '../../core/index.ts';

export interface RunProfile {
  label: string;
  description: string;
  /** Absolute path of the profile file. */
  file: string;
}

export function runProfiles(reportFile: string): RunProfile[] {
  const dir = path.dirname(reportFile);
  const main = { label: 'Main thread', description: PROFILE_FILE, file: path.join(dir, PROFILE_FILE) };
  let report: unknown;
  try {
    report = JSON.parse(fs.readFileSync(reportFile, 'utf8'));
  } catch {
    return [main]; // the flame panel itself says what is wrong with the profile
  }
  if (!isReportV1(report)) return [main];
  const items = [main];
  // Only names inside the run folder: a report edited by hand must not point the viewer elsewhere.
  const inside = (name: string): string | undefined =>
    path.basename(name) === name ? path.join(dir, name) : undefined;
  for (const t of report.threads ?? []) {
    const file = inside(t.file);
    if (t.id === 0 || !file) continue;
    const hottest = t.topLine ? ` · hottest: ${path.basename(t.topLine.file)}:${t.topLine.line}` : '';
    items.push({ label: t.title, description: `worker thread · ${t.file}${hottest}`, file });
  }
  for (const p of report.processes ?? []) {
    const file = inside(p.file);
    if (p.role === 'primary' || !file) continue;
    const hottest = p.topLine ? ` · hottest: ${path.basename(p.topLine.file)}:${p.topLine.line}` : '';
    items.push({ label: `Process ${p.pid}`, description: `${p.kind ?? 'child'} process · ${p.file}${hottest}`, file });
  }
  const heap = report.heap && inside(report.heap.file);
  if (heap) items.push({ label: 'Allocations', description: `heap sampling · ${report.heap!.file}`, file: heap });
  return items;
}
