// The Stalls section of the terminal report: every event-loop stall the profiled window had, when
// it began, how long it lasted and the line of your code that ran most in it.
import type { ReportV1 } from '../core/index.ts';
import { fmt, formatMs as ms } from '../format.ts';
import { column, rel, type RenderOptions } from './render-parts.ts';

/** Stalls listed one by one; the rest are counted. */
const LISTED = 10;

export function renderStalls(r: ReportV1, o: RenderOptions): string[] {
  const summary = r.eventLoop?.stalls;
  if (!summary || !r.stalls) return [];
  const bold = (s: string): string => (o.color ? `\x1b[1m${s}\x1b[22m` : s);
  if (summary.count === 0)
    return [`${bold('Stalls')}  none of ${summary.thresholdMs} ms or more in the profiled window`];
  const out = [
    `${bold('Stalls')}  ${summary.count} of ${summary.thresholdMs} ms or more in the profiled window, longest ${ms(summary.maxMs)}, ${ms(summary.totalMs)} in all`,
    `  ${'at'.padStart(8)}  ${'length'.padStart(8)}  line of your code that ran most in it`,
  ];
  // The longest first: they are what a request felt.
  const longest = [...r.stalls].sort((a, b) => b.durationMs - a.durationMs).slice(0, LISTED);
  for (const s of longest.sort((a, b) => a.startMs - b.startMs)) {
    const top = s.lines[0];
    const where = top
      ? `${rel(top.file, o.cwd)}:${top.line}  ${column(top.function, 24)}(${ms(top.ownMs)} of it)`
      : 'no line of your code ran in it';
    out.push(`  ${`${fmt(s.startMs / 1000)} s`.padStart(8)}  ${ms(s.durationMs).padStart(8)}  ${where}`);
  }
  if (r.stalls.length > LISTED) out.push(`  … and ${r.stalls.length - LISTED} shorter ones (all in report.json)`);
  return out;
}
