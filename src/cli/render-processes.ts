// Terminal rendering of an app of several processes (node:cluster, child_process.fork): each
// process's busy time and share, then the hot lines of the child processes with their split.
import * as path from 'node:path';
import type { ReportV1 } from '../core/index.ts';
import { fmt } from '../format.ts';
import { bar, column, pmText, rel, type RenderOptions, sourceLine } from './render-parts.ts';

export function renderProcesses(r: ReportV1, o: RenderOptions): string[] {
  const c = r.childProcesses;
  if (!c || !r.processes) return [];
  const bold = (s: string): string => (o.color ? `\x1b[1m${s}\x1b[22m` : s);
  const out = ['', bold('Processes') + ` (${r.processes.length}; ${fmt(c.allNonIdleMs)} ms non-idle together)`];
  for (const p of r.processes) {
    const what =
      p.role === 'primary' ? 'primary' : `${p.kind ?? 'child'}${p.script ? ` ${path.basename(p.script)}` : ''}`;
    const top = p.topLine
      ? `  hottest ${rel(p.topLine.file, o.cwd)}:${p.topLine.line} ${p.topLine.ownPct.toFixed(1)}%`
      : '';
    const flags = [p.joinedLate ? 'started in the window' : '', p.exitedEarly ? 'exited in the window' : '']
      .filter(Boolean)
      .join(', ');
    out.push(
      `  ${String(p.pid).padStart(7)} ${column(what, 22)} ${fmt(p.nonIdleMs)} ms busy (${p.sharePct.toFixed(1)}%)${top}  (${p.file}${flags ? `; ${flags}` : ''})`,
    );
  }
  out.push(bold('Hot lines in child processes') + " (own time, % of the child processes' non-idle time)");
  const sources = new Map<string, string[]>();
  const rows = r.lines.filter((x) => x.thread === 'process' && x.ownMs > 0).slice(0, o.topLines ?? 10);
  const anyPm = rows.some((l) => l.ownPctPm !== undefined);
  for (const l of rows) {
    const split =
      l.processes && l.processes.length > 1
        ? `  [${l.processes.map((p) => `${p.pid}: ${fmt(p.ownMs)} ms`).join(', ')}]`
        : '';
    out.push(
      `  ${l.ownPct.toFixed(1).padStart(5)}%${pmText(l.ownPctPm, anyPm)} ${bar(l.ownPct)} ${rel(l.file, o.cwd)}:${l.line}  ${column(l.function, 28)} ${sourceLine(sources, l.file, l.line)}${split}`,
    );
  }
  return out;
}
