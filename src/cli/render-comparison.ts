// Terminal rendering of a comparison of two runs (`hotline compare`, `--baseline`). Every row
// prints its change from the values beside it, then the noise test's word: better / worse,
// within noise (with its interval), too short to tell, or "no spread" where the figure has no
// value per sub-window and so no test.
import {
  type Change,
  type Comparison,
  type CostChange,
  type Delta,
  intervalPct,
  isRemovedLine,
  signedPct,
  tooShortText,
  withSign,
} from '../core/index.ts';
import { num } from '../format.ts';
import { CATEGORY_LABELS, rel, type RenderOptions } from './render-parts.ts';
import { renderRouteChanges } from './render-route-changes.ts';

/** "+3.1% [+1.0%, +5.2%]", "+0.8% within noise [−1.2%, +2.9%]" or "too short to tell (…)". */
export function changeText(c: Change): string {
  if (c.verdict === 'too short') return `${signedPct(c.changePct)} ${tooShortText(c)}`;
  const interval = c.lowPct !== undefined && c.highPct !== undefined ? intervalPct(c.lowPct, c.highPct) : '';
  if (c.verdict === 'within noise') return `${signedPct(c.changePct)} within noise${interval ? ` ${interval}` : ''}`;
  return `${signedPct(c.changePct)}${interval ? ` ${interval}` : ''}`;
}

export function renderComparison(c: Comparison, o: RenderOptions): string {
  const out: string[] = [];
  out.push(`Hotline compare  base ${c.baseId}  →  ${c.currentId}`);
  // A forced comparison of runs that loaded something different: every verdict carries the mark.
  const mark = c.refused ? ' (forced)' : '';
  if (c.refused)
    out.push(`  FORCED: the runs are not comparable (${c.refused.join('; ')}); every verdict is marked (forced)`);
  if (c.differences) out.push(`  the runs differ in: ${c.differences.join('; ')}`);
  const row = (label: string, x: Delta, unit = '', count = false): void => {
    out.push(`  ${label.padEnd(16)} ${figure(x, unit, count)}${verdictText(x)}${x.noise ? mark : ''}`);
  };
  if (c.load) {
    out.push('');
    row('req/s', c.load.requestsPerSecond);
    row('latency p50', c.load.latencyMs.p50, ' ms');
    row('latency p99', c.load.latencyMs.p99, ' ms');
    if (c.load.cpuPerRequestMs) row('CPU/request', c.load.cpuPerRequestMs, ' ms');
    row('errors', c.load.errors, '', true);
    row('timeouts', c.load.timeouts, '', true);
    if (c.load.non2xx.base > 0 || c.load.non2xx.current > 0) row('non-2xx', c.load.non2xx, '', true);
    if (c.load.saturated)
      out.push(
        `  (the app's event loop was saturated in both runs: req/s and latency follow the CPU the machine gave it${c.load.appCpu ? `, ${c.load.appCpu.base.toFixed(2)} → ${c.load.appCpu.current.toFixed(2)} cores` : ''}; CPU/request is the code's cost)`,
      );
    if (!c.load.requestsPerSecond.noise)
      out.push('  (no spread: a run without sub-windows; differences are not weighed against noise)');
  }
  if (c.eventLoop) {
    row(
      'loop busy',
      {
        ...c.eventLoop.utilization,
        base: pct(c.eventLoop.utilization.base),
        current: pct(c.eventLoop.utilization.current),
      },
      '%',
    );
    row('loop delay p50', c.eventLoop.p50, ' ms');
    row('loop delay p99', c.eventLoop.p99, ' ms');
  }
  const section = (title: string, list: Comparison['functions']): void => {
    if (list.length === 0) return;
    out.push('');
    out.push(`${title} (${c.unit}, base → now; 95% interval inferred from samples and the runs' spread)`);
    for (const f of list.slice(0, 12)) {
      const word = f.moved
        ? 'moved   '
        : f.verdict === 'too short'
          ? 'too short'
          : f.verdict === 'within noise'
            ? '~noise  '
            : f.change < 0
              ? 'cheaper '
              : 'costlier';
      const interval =
        f.lowPct !== undefined && f.highPct !== undefined ? ` ${intervalPct(f.lowPct, f.highPct, 0)}` : '';
      const where = `${f.file ? rel(f.file, o.cwd) : '(native)'}${f.line ? `:${f.line}` : ''}`;
      const removed = isRemovedLine(f);
      const changed = f.codeChanged
        ? `  ${removed ? 'removed' : 'code changed'} (was :${f.codeChanged.baseLine}${f.codeChanged.before ? ` ${clip(f.codeChanged.before)}` : ''})`
        : '';
      const held = f.heldBack && !f.moved ? ' (the request did not move with it)' : '';
      out.push(
        `  ${word} ${num(f.base)} → ${num(f.current)}  (${withSign(f.change, num(Math.abs(f.change)))}${interval})${held}${f.verdict !== undefined ? mark : ''}  ${f.name}  ${where}${changed}${f.moved ? movedText(f.moved, o) : ''}`,
      );
    }
  };
  const cats = Object.entries(c.categories).filter(
    ([k, x]) => k !== 'idle' && x.change !== 0 && (Math.abs(x.base) >= 0.01 || Math.abs(x.current) >= 0.01),
  );
  if (cats.length > 0) {
    out.push('');
    out.push(`Where the CPU went (${c.unit}, base → now)`);
    for (const [k, x] of cats) out.push(`  ${(CATEGORY_LABELS[k] ?? k).padEnd(15)} ${num(x.base)} → ${num(x.current)}`);
  }
  section('Functions of your code (total time)', c.functions);
  section('Lines of your code (own time)', c.lines);
  out.push(...renderRouteChanges(c));
  if (c.keptHints) {
    out.push('');
    out.push('Hints kept: the line changed, the request did not get cheaper');
    for (const h of c.keptHints) out.push(`  ${rel(h.file, o.cwd)}:${h.line}  ${h.function}: ${h.message}; ${h.fix}`);
  }
  return out.join('\n');
}

/** "822 ms → 619 ms (−24.7%)": the percentage from the two values printed, nothing else. */
function figure(x: Delta, unit: string, count = false): string {
  const b = count ? String(x.base) : num(x.base);
  const c = count ? String(x.current) : num(x.current);
  const shown = printedChangePct(Number(b.replace('\u2212', '-')), Number(c.replace('\u2212', '-')));
  return `${b}${unit} → ${c}${unit}${shown !== undefined ? ` (${signedPct(shown)})` : ''}`;
}

/** The change between two printed values, % of the first; undefined from 0. */
export function printedChangePct(base: number, current: number): number | undefined {
  if (!Number.isFinite(base) || !Number.isFinite(current) || base === 0) return undefined;
  return Math.round(((current - base) / Math.abs(base)) * 1000) / 10;
}

/** The noise test's word: "  better [+3%, +9%]", "  within noise [−4%, +6%]", "  no spread". */
function verdictText(x: Delta): string {
  const n = x.noise;
  if (!n) return x.change === 0 ? '' : '  (no spread: not judged)';
  if (n.verdict === 'too short') return `  ${tooShortText(n)}`;
  const interval = n.lowPct !== undefined && n.highPct !== undefined ? ` ${intervalPct(n.lowPct, n.highPct)}` : '';
  if (x.base === 0 && x.current === 0) return '';
  return `  ${n.verdict}${interval}`;
}

type MovedWork = NonNullable<CostChange['moved']>;

/** "  its work moved to f server.js:115: 42 → 54 (+29% [+6%, +57%] worse)". */
function movedText(m: MovedWork, o: RenderOptions): string {
  const place = (p: NonNullable<MovedWork['to']>): string => `${p.name} ${rel(p.file, o.cwd)}:${p.line}`;
  const where = m.to
    ? `its work moved to ${place(m.to)}${m.via ? ` (with ${m.via.name})` : ''}`
    : m.from
      ? `work moved here from ${place(m.from)}`
      : '';
  const pctText = m.base > 0 ? signedPct(Math.round(((m.current - m.base) / m.base) * 1000) / 10) : '';
  const interval = m.lowPct !== undefined && m.highPct !== undefined ? ` ${intervalPct(m.lowPct, m.highPct, 0)}` : '';
  const word = m.verdict === undefined ? '' : ` ${m.verdict === 'too short' ? 'too short to tell' : m.verdict}`;
  return `  ${where}: ${num(m.base)} → ${num(m.current)} (${pctText}${interval}${word})`;
}

const pct = (share: number): number => Math.round(share * 1000) / 10;

const clip = (code: string): string => (code.length > 50 ? `${code.slice(0, 47)}…` : code);
