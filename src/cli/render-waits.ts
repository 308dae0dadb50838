// The Threadpool waits section of the terminal report: per line of your code that hands work to
// libuv's threadpool or calls out over HTTP, how long a call waits for its callback (or response)
// and how much of it is queueing for the pool.
import type { ReportV1 } from '../core/index.ts';
import { formatMs as ms } from '../format.ts';
import { column, rel, type RenderOptions } from './render-parts.ts';

/** Lines listed; the rest are in report.json. */
const LISTED = 8;

export function renderWaits(r: ReportV1, o: RenderOptions): string[] {
  if (!r.waits || r.waits.length === 0 || !r.threadpool) return [];
  const bold = (s: string): string => (o.color ? `\x1b[1m${s}\x1b[22m` : s);
  const pool = r.threadpool;
  const out = [
    '',
    r.waits.some((w) => w.target)
      ? `${bold('Waits')} (threadpool: UV_THREADPOOL_SIZE=${pool.size}, ${pool.cores} cores; call → callback or response measured, queued inferred)`
      : `${bold('Threadpool waits')} (UV_THREADPOOL_SIZE=${pool.size}, ${pool.cores} cores; call → callback measured, queued inferred)`,
    `  ${'wait p50'.padStart(9)} ${'queued'.padStart(8)} ${'p99'.padStart(8)} ${'calls'.padStart(7)}  api               line`,
  ];
  for (const w of r.waits.slice(0, LISTED)) {
    out.push(
      `  ${ms(w.waitMs.p50).padStart(9)} ${(w.target && !w.poolSize ? '-' : ms(w.queuedMs.p50)).padStart(8)} ${ms(w.waitMs.p99).padStart(8)} ${String(w.count).padStart(7)}  ${column(w.api, 17)} ${rel(w.file, o.cwd)}:${w.line}  ${w.function}${w.target ? `  → ${w.target}` : ''}`,
    );
  }
  if (r.waits.length > LISTED) out.push(`  … and ${r.waits.length - LISTED} more lines (all in report.json)`);
  return out;
}
