// Terminal rendering of a report and of a comparison: the figures a person reads first, a table
// of the hot lines with bars, and the hints.
import * as path from 'node:path';
import {
  type Analysis,
  type HeapAnalysis,
  profilerCostOf,
  type ReportV1,
  signedPct,
  timeoutHint,
  windowsCpuApart,
  windowsCpuApartText,
} from '../core/index.ts';
import { fmt, formatBytes as bytes, formatMs as ms, formatPct } from '../format.ts';
import { capacityOf, costText } from '../capacity.ts';
import { bar, CATEGORY_LABELS, column, pmText, rel, type RenderOptions, sourceLine } from './render-parts.ts';
import { changeText } from './render-comparison.ts';
import { renderProcesses } from './render-processes.ts';
import { renderRoutes } from './render-routes.ts';
import { renderStalls } from './render-stalls.ts';
import { renderWaits } from './render-waits.ts';
import { requestTimeLine } from './render-request-time.ts';

export function renderReport(r: ReportV1, o: RenderOptions): string {
  const out: string[] = [];
  const bold = (s: string): string => (o.color ? `\x1b[1m${s}\x1b[22m` : s);
  const loadDescription = r.load?.external
    ? `load by the command below, ${r.load.durationS.toFixed(1)} s measured + ${r.load.profiled.durationS.toFixed(1)} s profiled`
    : `${r.settings.connections} connections, ${r.settings.durationS} s measured + ${r.settings.durationS} s profiled`;
  out.push(
    bold(`Hotline run ${r.id}`) +
      `  ${r.settings.requests ? `a mix of ${r.settings.requests.length} requests on ${r.app.url.replace(/^(https?:\/\/[^/]+).*$/, '$1')}` : `${r.load?.external ? '' : `${r.settings.method} `}${r.app.url}`}  ${loadDescription}${r.settings.attach ? `  (${attachedTo(r.settings.attach, r.app.pid)})` : ''}`,
  );
  if (r.partial) out.push(`  PARTIAL: ${r.partial.reason}`);
  if (r.load) {
    const l = r.load;
    const lat = l.latencyMs;
    out.push('');
    const ext = l.external;
    out.push(
      bold('Load') + ` (profiler off, ${l.durationS.toFixed(1)} s${ext ? `, by ${ext.command.join(' ')}` : ''})`,
    );
    if (ext && !ext.parsed) {
      out.push(
        `  load figures: not parsed (${ext.tool ? `${ext.tool} output without the expected figures` : 'unknown output format'}); the command's output is in the run's ${ext.log}`,
      );
    } else {
      // An external tool's output may lack a statistic: a dash, not a made-up 0.
      const stat = (k: 'p50' | 'p90' | 'p99' | 'max'): string =>
        ext?.missing.includes(`latency ${k}`) ? '–' : ms(lat[k]);
      out.push(
        `  ${fmt(l.requests.perSecond)} req/s   ${l.requests.total} requests   latency p50 ${stat('p50')}  p90 ${stat('p90')}  p99 ${stat('p99')}  max ${stat('max')}`,
      );
      out.push(`  errors ${l.errors}   timeouts ${l.timeouts}   non-2xx ${l.non2xx}${statusList(l.statusCodes)}`);
      if (l.timeouts > 0) {
        out.push(
          ext
            ? `  (${l.timeouts} requests timed out and ${ext.tool ?? 'the tool'} leaves them out of its percentiles: they are lower bounds)`
            : `  (${l.timeouts} timed-out requests are counted at the ${r.settings.timeoutS} s timeout: the percentiles are lower bounds)`,
        );
      }
      if (l.non2xx > 0)
        out.push(
          `  ! ${l.non2xx} of ${l.requests.total} responses were not 2xx: the profile shows that path; check the URL, method, headers and body.`,
        );
      if (l.timeouts > 0) out.push(`  ! ${timeoutHint(r, ext ? 'the load' : `${l.connections} connections`)}`);
      const socketErrors = l.errors - l.timeouts;
      if (socketErrors > 0) out.push(`  ! ${socketErrors} connection errors: the app closed or refused connections.`);
      if (l.requests.total === 0)
        out.push(
          '  ! No response in this window: the app did not answer at all (its event loop is blocked, or the URL never responds).',
        );
      if (l.loadLimited)
        out.push(
          `  ! The load generator was the limit (it used ${Math.round((l.loadCpu ?? 0) * 100)}% of a core): the app could serve more.`,
        );
      out.push(
        `  profiled window: ${fmt(l.profiled.requests.perSecond)} req/s, p99 ${ext?.missing.includes('latency p99') ? '–' : ms(l.profiled.latencyMs.p99)}${profilerCostText(r)}`,
      );
      if (r.requestTime) out.push(requestTimeLine(r.requestTime));
      if (l.subWindows && l.subWindows.measured.length > 1)
        out.push(
          `  (${l.subWindows.measured.length} measured and ${l.subWindows.profiled.length} profiled sub-windows of ${fmt(l.subWindows.measured[0].durationS)} s, alternating: ${spreadText(l.subWindows.measured.map((w) => w.perSecond))} req/s across the measured ones)`,
        );
    }
  }
  out.push(...renderRoutes(r, o));
  if (r.eventLoop) {
    const e = r.eventLoop;
    if (e.blockedAt && e.blockedAt.length > 0) {
      const [top, ...callers] = e.blockedAt;
      out.push(
        `  ! The event loop never yielded. It is stuck in ${top.function} (${rel(top.file, o.cwd)}:${top.line})${
          callers.length > 0
            ? `, called from ${callers
                .slice(0, 3)
                .map((f) => `${f.function} (${rel(f.file, o.cwd)}:${f.line})`)
                .join(' ← ')}`
            : ''
        }.`,
      );
    }
    out.push(
      e.blockedThroughout
        ? `${bold('Event loop')}  blocked for the whole window: no 10 ms timer ran in ${ms(e.delayMs.max)}   busy ${Math.round(e.utilization * 100)}%`
        : `${bold('Event loop')}  delay p50 ${ms(e.delayMs.p50)}  p99 ${ms(e.delayMs.p99)}  max ${ms(e.delayMs.max)}   busy ${Math.round(e.utilization * 100)}%`,
    );
    out.push(...renderStalls(r, o));
  }
  // The main thread's figures; the workers' lines (tagged) have their own section below.
  const main = {
    lines: r.lines.filter((l) => l.thread === undefined),
    functions: r.functions.filter((f) => f.thread === undefined),
  };
  out.push(
    ...renderAnalysis(
      { ...r, ...main, durationMs: r.profile.durationMs, samples: r.profile.samples, intervalUs: r.profile.intervalUs },
      { ...o, capacity: capacityOf(r) },
    ),
  );
  out.push(...renderWaits(r, o), ...renderThreads(r, o), ...renderProcesses(r, o), ...renderHeap(r, o));
  return out.join('\n');
}

/** "attached to pid 22867", not "attached to pid:22867, pid 22867". */
function attachedTo(target: string, pid: number): string {
  return target === `pid:${pid}` || target === String(pid)
    ? `attached to pid ${pid}`
    : `attached to ${target}, pid ${pid}`;
}

/** The profiler's cost, same run: profiled sub-windows against the measured ones between them. */
function profilerCostText(r: ReportV1): string {
  const cost = profilerCostOf(r.load?.subWindows);
  const apart = windowsCpuApart(r);
  if (cost?.cpuPerRequest || cost?.requestsPerSecond) {
    const parts = [
      cost.cpuPerRequest ? `CPU/request ${changeText(cost.cpuPerRequest)}` : '',
      apart ? windowsCpuApartText(apart) : cost.requestsPerSecond ? `req/s ${changeText(cost.requestsPerSecond)}` : '',
    ].filter(Boolean);
    return ` (against profiler off: ${parts.join(', ')})`;
  }
  const l = r.load!;
  if (!(l.requests.perSecond > 0)) return '';
  if (apart) return ` (against profiler off: ${windowsCpuApartText(apart)})`;
  // A run from before sub-windows: one pair of windows, no spread.
  const change = ((l.profiled.requests.perSecond - l.requests.perSecond) / l.requests.perSecond) * 100;
  return ` (against profiler off: req/s ${signedPct(change)}, one window each: no spread)`;
}

/** "812–1034" — the range of a figure across sub-windows. */
function spreadText(xs: number[]): string {
  return `${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))}`;
}

/**
 * Worker threads: one line per kind of worker (same name and script), so an app that starts a
 * worker per request reads as "one-off ×23", not 23 lines; then the hot lines of all workers.
 */
function renderThreads(r: ReportV1, o: RenderOptions): string[] {
  const workers = (r.threads ?? []).filter((t) => t.id !== 0);
  if (workers.length === 0 || !r.workers) return [];
  const bold = (s: string): string => (o.color ? `\x1b[1m${s}\x1b[22m` : s);
  const out = ['', bold('Worker threads') + ` (${workers.length}; ${fmt(r.workers.nonIdleMs)} ms non-idle together)`];
  for (const group of groupWorkers(workers)) {
    const [t] = group;
    const late = group.filter((w) => w.joinedLate).length;
    const early = group.filter((w) => w.exitedEarly).length;
    const boot = group.filter((w) => w.startedAtBoot).length;
    const top = group.filter((w) => w.topLine).sort((a, b) => b.topLine!.ownMs - a.topLine!.ownMs)[0]?.topLine;
    const hottest = top ? `  hottest ${rel(top.file, o.cwd)}:${top.line}` : '';
    if (group.length === 1) {
      const flags = [
        boot ? "started at the app's boot" : '',
        late ? 'started in the window' : '',
        early ? 'exited in the window' : '',
      ]
        .filter(Boolean)
        .join(', ');
      out.push(
        `  ${t.title}${unnamed(t) && t.script ? ` ${scriptName(t.script, o.cwd)}` : ''}  ${fmt(t.nonIdleMs)} ms busy of ${fmt(t.durationMs)} ms${hottest}${top ? ` ${top.ownPct.toFixed(1)}%` : ''}  (${t.file}${flags ? `; ${flags}` : ''})`,
      );
      continue;
    }
    const busy = group.reduce((sum, w) => sum + w.nonIdleMs, 0);
    const flags = [
      boot ? `${boot === group.length ? 'all' : boot} started at the app's boot` : '',
      late ? `${late} started in the window` : '',
      early ? `${early} exited in it` : '',
    ]
      .filter(Boolean)
      .join(', ');
    const ids = group.map((w) => w.id).sort((a, b) => a - b);
    out.push(
      `  ${workerName(t)} ×${group.length}${t.script ? ` (${path.basename(t.script)})` : ''}  ${fmt(busy)} ms busy together${hottest}${flags ? `  (${flags})` : ''}  worker-{${ids[0]}…${ids[ids.length - 1]}}.cpuprofile`,
    );
  }
  // Their hot lines, when any line of your code ran in them: never a heading with nothing under it.
  const lines = r.lines.filter((x) => x.thread === 'worker' && x.ownMs > 0).slice(0, o.topLines ?? 10);
  if (lines.length === 0) return out;
  out.push(bold('Hot lines in worker threads') + " (own time, % of the workers' non-idle time)");
  const sources = new Map<string, string[]>();
  const anyPm = lines.some((l) => l.ownPctPm !== undefined);
  for (const l of lines) {
    out.push(
      `  ${l.ownPct.toFixed(1).padStart(5)}%${pmText(l.ownPctPm, anyPm)} ${bar(l.ownPct)} ${rel(l.file, o.cwd)}:${l.line}  ${column(l.function, 28)} ${sourceLine(sources, l.file, l.line)}`,
    );
  }
  return out;
}

/** A worker given no `name`: its title says only its id, so its script says what it is ("[worker 2] esbuild/lib/main.js"). */
const unnamed = (t: { title: string }): boolean => /^\[worker \d+\]\s*$/.test(t.title);

/** A worker's script, short: a dependency's from its package on ("esbuild/lib/main.js"), else relative. */
const scriptName = (script: string, cwd: string): string =>
  /[\\/]node_modules[\\/]/.test(script) ? script.replace(/^.*[\\/]node_modules[\\/]/, '') : rel(script, cwd);

/** "[worker 12] one-off" → "one-off". */
const workerName = (t: { title: string }): string => t.title.replace(/^\[worker \d+\]\s*/, '') || 'worker';

function groupWorkers<T extends { title: string; script?: string }>(workers: T[]): T[][] {
  const groups = new Map<string, T[]>();
  for (const w of workers) {
    const key = `${workerName(w)}\u0000${w.script ?? ''}`;
    groups.set(key, [...(groups.get(key) ?? []), w]);
  }
  return [...groups.values()];
}

/** Allocations (--heap): totals, then the functions of your code that allocate most. */
function renderHeap(r: ReportV1, o: RenderOptions): string[] {
  const h = r.heap;
  if (!h) return [];
  const bold = (s: string): string => (o.color ? `\x1b[1m${s}\x1b[22m` : s);
  const rate = [
    h.bytesPerSecond !== undefined ? `${bytes(h.bytesPerSecond)}/s` : '',
    h.bytesPerRequest !== undefined ? `${bytes(h.bytesPerRequest)}/request` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const out = [
    '',
    bold('Allocations') +
      ` (main thread, sampled every ${bytes(h.samplingIntervalBytes)}: ${bytes(h.totalBytes)}${rate ? `, ${rate}` : ''}; ${bytes(h.outsideUserBytes)} outside your code)`,
  ];
  return [...out, ...heapLines(h, o)];
}

/** `hotline analyze FILE.heapprofile`: the same table, for a heap profile saved anywhere. */
export function renderHeapAnalysis(h: HeapAnalysis, o: RenderOptions): string[] {
  const bold = (s: string): string => (o.color ? `\x1b[1m${s}\x1b[22m` : s);
  return [
    bold('Allocations') +
      ` (sampling heap profile: ${bytes(h.totalBytes)}; ${bytes(h.outsideUserBytes)} outside your code)`,
    ...heapLines(h, o),
  ];
}

function heapLines(h: Pick<HeapAnalysis, 'lines'>, o: RenderOptions): string[] {
  const out = [
    "  by function of your code (V8's sampling heap profile names functions, not lines: the line is where the function starts)",
  ];
  if (h.lines.length === 0) out.push('  (no allocations in your code: --root names the folder whose code is yours)');
  for (const l of h.lines.slice(0, o.topLines ?? 10)) {
    out.push(
      `  ${l.ownPct.toFixed(1).padStart(5)}% ${bar(l.ownPct)} ${rel(l.file, o.cwd)}:${l.line}  ${l.function}  ${bytes(l.ownBytes)}`,
    );
  }
  return out;
}

export function renderAnalysis(
  a: Pick<
    Analysis,
    'categories' | 'lines' | 'hints' | 'functions' | 'notes' | 'nonIdleMs' | 'durationMs' | 'samples' | 'intervalUs'
  >,
  o: RenderOptions,
): string[] {
  const out: string[] = [];
  const bold = (s: string): string => (o.color ? `\x1b[1m${s}\x1b[22m` : s);
  out.push(`${bold('Profile')}  ${(a.durationMs / 1000).toFixed(1)} s, ${a.samples} samples every ${a.intervalUs} µs`);
  const cats = Object.entries(a.categories)
    .filter(([k, v]) => k !== 'idle' && v > 0)
    .sort((x, y) => y[1] - x[1]);
  out.push(
    `${bold('Where the CPU went')} (of ${fmt(a.nonIdleMs)} ms non-idle)  ` +
      cats.map(([k, v]) => `${CATEGORY_LABELS[k] ?? k} ${pct(v, a.nonIdleMs)}`).join(' · ') +
      `  · idle ${fmt(a.categories.idle)} ms`,
  );
  out.push('');
  out.push(bold('Hot lines of your code') + ' (own time: each sample counted once, on the deepest line of your code)');
  const lines = a.lines.filter((l) => l.ownMs > 0).slice(0, o.topLines ?? 10);
  if (lines.length === 0) out.push('  (no samples in your code: see the functions below)');
  const sources = new Map<string, string[]>();
  const width = Math.max(...lines.map((l) => rel(l.file, o.cwd).length + String(l.line).length + 1), 10);
  const anyPm = lines.some((l) => l.ownPctPm !== undefined);
  for (const l of lines) {
    const where = `${rel(l.file, o.cwd)}:${l.line}`.padEnd(width);
    // Nothing measured which of several lines made the call: say so rather than pick one.
    const text = l.oneOf ? `(one of lines ${l.oneOf.join(', ')})` : sourceLine(sources, l.file, l.line);
    out.push(
      `  ${l.ownPct.toFixed(1).padStart(5)}%${pmText(l.ownPctPm, anyPm)} ${bar(l.ownPct)} ${where}  ${column(l.function, 28)} ${text}`,
    );
  }
  // The shares above are of the busy time: say what the top line costs of the app's capacity too,
  // or a mostly idle app's top line reads as hot as a real bottleneck.
  if (lines[0] && o.capacity)
    out.push(
      `  (% of the ${fmt(a.nonIdleMs)} ms of busy CPU; the top line costs ${costText(lines[0].ownMs, o.capacity)})`,
    );
  out.push('');
  out.push(bold('Hottest functions') + ' (self time)');
  const hottest = a.functions.filter((x) => x.selfMs > 0 && x.category !== 'idle').slice(0, 8);
  const anyFnPm = hottest.some((f) => f.selfPctPm !== undefined);
  for (const f of hottest) {
    const where = f.file ? `${rel(f.file, o.cwd)}${f.line ? `:${f.line}` : ''}` : '(native)';
    out.push(
      `  ${f.selfPct.toFixed(1).padStart(5)}%${pmText(f.selfPctPm, anyFnPm)} self ${f.totalPct.toFixed(1).padStart(5)}% total  ${f.name}  ${where}`,
    );
  }
  if (a.hints.length > 0) {
    out.push('');
    out.push(bold('Hints'));
    for (const h of a.hints) {
      out.push(`  * ${h.file ? `${rel(h.file, o.cwd)}:${h.line}  ` : ''}${h.message}`);
      out.push(`    fix: ${h.fix}`);
    }
  }
  const notes = groupNotes(a.notes);
  if (notes.length > 0) {
    out.push('');
    for (const n of notes.slice(0, 5)) out.push(`note: ${n}`);
    if (notes.length > 5) out.push(`note: … and ${notes.length - 5} more in report.json`);
  }
  return out;
}

/**
 * Notes that differ only in their numbers or their closing "(reason)" (one per worker thread,
 * say) as one line with a count: "Worker thread [worker 6] one-off gave no profile (…); 47 more like it".
 */
export function groupNotes(notes: string[]): string[] {
  const groups = new Map<string, { first: string; count: number }>();
  for (const n of notes) {
    const key = n.replace(/\s*\([^()]*\)\.?$/, '').replace(/\d+(\.\d+)?/g, '#');
    const g = groups.get(key);
    if (g) g.count++;
    else groups.set(key, { first: n, count: 1 });
  }
  return [...groups.values()].map((g) =>
    g.count > 1 ? `${g.first.replace(/\.$/, '')}; ${g.count - 1} more like it` : g.first,
  );
}

const pct = (part: number, whole: number): string => formatPct(whole > 0 ? (part / whole) * 100 : 0);

function statusList(codes: Record<string, number>): string {
  const entries = Object.entries(codes);
  return entries.length > 0 ? `   status ${entries.map(([k, v]) => `${k}×${v}`).join(' ')}` : '';
}
