// Terminal rendering of a comparison of two runs (`hotline compare`, `--baseline`).
import { type Change, type Comparison, type Delta, intervalPct, signedPct, withSign } from '../core/index.ts';
import { num } from '../format.ts';
import { CATEGORY_LABELS, rel, type RenderOptions } from './render-parts.ts';

/** "+3.1% [+1.0%, +5.2%]" or "+0.8% within noise [−1.2%, +2.9%]". */
export function changeText(c: Change): string {
  const interval = c.lowPct !== undefined && c.highPct !== undefined ? intervalPct(c.lowPct, c.highPct) : '';
  if (c.verdict === 'within noise') return `${signedPct(c.changePct)} within noise${interval ? ` ${interval}` : ''}`;
  return `${signedPct(c.changePct)}${interval ? ` ${interval}` : ''}`;
}

export function renderComparison(c: Comparison, o: RenderOptions): string {
  const out: string[] = [];
  out.push(`Hotline compare  base ${c.baseId}  →  ${c.currentId}`);
  if (c.load) {
    out.push('');
    out.push(`  req/s            ${d(c.load.requestsPerSecond, true)}`);
    out.push(`  latency p50      ${d(c.load.latencyMs.p50, false, ' ms')}`);
    out.push(`  latency p99      ${d(c.load.latencyMs.p99, false, ' ms')}`);
    if (c.load.cpuPerRequestMs) out.push(`  CPU/request      ${d(c.load.cpuPerRequestMs, false, ' ms')}`);
    out.push(
      `  errors/timeouts  ${c.load.errors.base}/${c.load.timeouts.base} → ${c.load.errors.current}/${c.load.timeouts.current}`,
    );
    if (c.load.saturated)
      out.push(
        `  (the app's event loop was saturated in both runs: req/s and latency follow the CPU the machine gave it${c.load.appCpu ? `, ${c.load.appCpu.base.toFixed(2)} → ${c.load.appCpu.current.toFixed(2)} cores` : ''}; CPU/request is the code's cost)`,
      );
    if (!c.load.requestsPerSecond.noise)
      out.push('  (no spread: a run without sub-windows; differences are not weighed against noise)');
  }
  if (c.eventLoop) {
    out.push(`  loop delay p50   ${d(c.eventLoop.p50, false, ' ms')}`);
    out.push(`  loop delay p99   ${d(c.eventLoop.p99, false, ' ms')}`);
  }
  const section = (title: string, list: Comparison['functions']): void => {
    if (list.length === 0) return;
    out.push('');
    out.push(`${title} (${c.unit}, base → now; 95% interval inferred from samples and the runs' spread)`);
    for (const f of list.slice(0, 12)) {
      const word = f.verdict === 'within noise' ? '~noise  ' : f.change < 0 ? 'cheaper ' : 'costlier';
      const interval =
        f.lowPct !== undefined && f.highPct !== undefined ? ` ${intervalPct(f.lowPct, f.highPct, 0)}` : '';
      out.push(
        `  ${word} ${num(f.base)} → ${num(f.current)}  (${withSign(f.change, num(Math.abs(f.change)))}${interval})  ${f.name}  ${f.file ? rel(f.file, o.cwd) : '(native)'}${f.line ? `:${f.line}` : ''}`,
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
  return out.join('\n');
}

function d(x: Delta, higherIsBetter: boolean, unit = ''): string {
  if (x.noise) {
    const word = x.noise.verdict;
    return `${num(x.base)}${unit} → ${num(x.current)}${unit} (${changeText(x.noise)})${word === 'within noise' ? '' : `  ${word}`}`;
  }
  const better = higherIsBetter ? x.change > 0 : x.change < 0;
  const word = x.change === 0 ? 'same' : better ? 'better' : 'worse';
  const pct = x.changePct !== undefined ? ` (${signedPct(x.changePct)})` : '';
  return `${num(x.base)}${unit} → ${num(x.current)}${unit}${pct}  ${word}`;
}
