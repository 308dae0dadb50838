// What the editor says about a cost: CodeLens titles, decoration after-texts and hover markdown.
// Pure: every figure comes from the report (percentages are of non-idle time, docs/architecture.md
// "How time is counted"); no I/O, no LSP types.
import * as path from 'node:path';
import { formatBytes, formatMs, formatPct } from '../format.ts';
import {
  type CallLink,
  DATA_STORE_APIS,
  type FunctionCost,
  type HeapLine,
  type Hint,
  isBelow,
  type LineCost,
  type LineStalls,
  type RouteFigures,
  type ThreadpoolWait,
} from '../core/index.ts';
import { functionLabel } from '../names.ts';
import { corePct, costText, formatCorePct, formatCostMs, perRequestMs, type CapacityBasis } from '../capacity.ts';

/** A line gets a lens when its own time is at least this share of non-idle time. */
export const LENS_MIN_OWN_PCT = 1;
/** A function of your code gets a lens when its total time is at least this share. */
export const LENS_MIN_FUNCTION_TOTAL_PCT = 1;
/** A line gets a heat decoration from this share of own time (a gradient below the lenses). */
export const DECORATION_MIN_OWN_PCT = 0.5;
/** A call-site line (little own time, its calls cost) gets a hover from this share of total time. */
export const HOVER_MIN_TOTAL_PCT = 1;

export const isLensLine = (l: LineCost): boolean => l.ownPct >= LENS_MIN_OWN_PCT;
export const isDecoratedLine = (l: LineCost): boolean => l.ownPct >= DECORATION_MIN_OWN_PCT;
export const isHoverLine = (l: LineCost): boolean => l.ownPct >= LENS_MIN_OWN_PCT || l.totalPct >= HOVER_MIN_TOTAL_PCT;
/** Functions that can carry a lens: your code, with a known source range, costly enough. */
export { formatBytes, formatMs, formatPct };

export const isLensFunction = (f: FunctionCost): boolean =>
  f.category === 'user' && f.line >= 1 && f.endLine !== undefined && f.totalPct >= LENS_MIN_FUNCTION_TOTAL_PCT;

/** A function of your code gets an allocations lens from this share of the sampled bytes. */
export const HEAP_LENS_MIN_PCT = 1;
export const isHeapLensLine = (l: HeapLine): boolean => l.ownPct >= HEAP_LENS_MIN_PCT && l.line >= 1;

/** What a run says about its allocations, for the allocations lens. */
export interface HeapContext {
  totalBytes: number;
  bytesPerSecond?: number;
  bytesPerRequest?: number;
}

/**
 * `allocates 12 MB/s · 3.1 KB/request` under load, else `allocates 12 MB (41% of allocations)`.
 * The line is the function's first line: V8's sampling heap profile names functions, not lines.
 */
export function heapLensText(l: Pick<HeapLine, 'ownBytes' | 'ownPct'>, heap: HeapContext): string {
  const share = heap.totalBytes > 0 ? l.ownBytes / heap.totalBytes : 0;
  const parts: string[] = [];
  if (heap.bytesPerSecond !== undefined) parts.push(`${formatBytes(share * heap.bytesPerSecond)}/s`);
  if (heap.bytesPerRequest !== undefined) parts.push(`${formatBytes(share * heap.bytesPerRequest)}/request`);
  if (parts.length === 0) return `allocates ${formatBytes(l.ownBytes)} (${formatPct(l.ownPct)} of allocations)`;
  return `allocates ${parts.join(' · ')}`;
}

/** What the lens and hover need to know about the run besides the one cost. */
export interface TextContext {
  /** Non-idle time of the run: the 100% of every percentage. */
  nonIdleMs: number;
  /** Non-idle time of the worker threads: the 100% of the costs tagged `thread: 'worker'`. */
  workersNonIdleMs?: number;
  /** Non-idle time of the app's child processes: the 100% of the costs tagged `thread: 'process'`. */
  processesNonIdleMs?: number;
  /** The run measured a load test (a bare .cpuprofile did not). */
  underLoad: boolean;
  /** Paths under this folder are shown relative to it (the app's folder). */
  root: string;
  /** What the main thread's costs are of the app's capacity (capacity.ts). */
  capacity: CapacityBasis;
}

/** Time per request under load, else the time in the profile. */
const amount = (ms: number, b: CapacityBasis): string => {
  const per = perRequestMs(ms, b);
  return per !== undefined ? `${formatCostMs(per)}/request` : formatCostMs(ms);
};

/** `total 48 ms/request (93% of a core) · self 0.10 ms/request` */
export function functionLensText(f: FunctionCost, ctx: Pick<TextContext, 'capacity'>): string {
  if (f.thread !== undefined)
    return `total ${formatMs(f.totalMs)} (${formatPct(f.totalPct)} of ${OFF_MAIN[f.thread]}) · self ${formatMs(f.selfMs)}`;
  return `total ${amount(f.totalMs, ctx.capacity)} (${formatCorePct(corePct(f.totalMs, ctx.capacity))} of a core) · self ${amount(f.selfMs, ctx.capacity)}`;
}

/**
 * `48 ms/request · 93% of a core · blocks the event loop` with a blocking-API hint, else
 * `own 0.42 ms/request · 3.1% of a core`: what the line costs of the app's capacity, so the
 * next line up after a fix does not look as hot as the bug did.
 */
export function lineLensText(
  l: Pick<LineCost, 'ownMs' | 'ownPct' | 'thread'>,
  hint: Hint | undefined,
  ctx: Pick<TextContext, 'capacity'>,
): string {
  // Worker lines: a share of the workers' CPU, and no worker blocks the main event loop.
  if (l.thread !== undefined) return `own ${formatMs(l.ownMs)} (${formatPct(l.ownPct)} of ${OFF_MAIN[l.thread]})`;
  if (hint) return `${costText(l.ownMs, ctx.capacity)} · blocks the event loop`;
  return `own ${costText(l.ownMs, ctx.capacity)}`;
}

/** After-text of a heat decoration: `■ 0.42 ms/request` (or `■ 812 ms` for a bare profile). */
export function decorationLabel(l: LineCost, capacity: CapacityBasis): string {
  return `■ ${amount(l.ownMs, capacity)}`;
}

/** Hints that blame a line for blocking (the gc-pressure hint has no line and never gets here). */
/** `stalled the event loop 42× · max 210 ms`: the stalls a line took part in (report.stalls). */
export function stallLensText(s: Pick<LineStalls, 'count' | 'maxMs'>): string {
  return `stalled the event loop ${s.count}× · max ${formatMs(s.maxMs)}`;
}

/**
 * `waits 180 ms per request · 150 ms queued for the threadpool (4 threads)`: the p50 wait of a
 * line's threadpool requests (measured) and the part queued for a thread (inferred); for an
 * outgoing HTTP call, `waits 52 ms per request on GET 127.0.0.1:8080 (http.request)`.
 */
export function waitLensText(w: ThreadpoolWait, pool: { size: number } | undefined): string {
  const once = w.perRequest >= 0.95 && w.perRequest <= 1.05;
  const wait = once
    ? `waits ${formatMs(w.waitMs.p50)} per request`
    : `waits ${formatMs(w.waitMs.p50)} a call${w.perRequest > 0 ? `, ${w.perRequest.toFixed(1)}× per request` : ''}`;
  if (w.target) {
    // A data store's target is `host:port statement`: `on pg 127.0.0.1:5432 (SELECT …)`.
    const space = w.target.indexOf(' ');
    if (DATA_STORE_APIS.has(w.api)) {
      const on =
        space > 0
          ? `${wait} on ${w.api} ${w.target.slice(0, space)} (${w.target.slice(space + 1)})`
          : `${wait} on ${w.api} ${w.target}`;
      return w.poolSize && w.queuedMs.p50 >= 1
        ? `${on} · ${formatMs(w.queuedMs.p50)} queued for a connection (pool of ${w.poolSize})`
        : on;
    }
    return `${wait} on ${w.target} (${w.api})`;
  }
  if (w.queuedMs.p50 < 1) return `${wait} (${w.api})`;
  const threads = pool ? ` (${pool.size} thread${pool.size === 1 ? '' : 's'})` : '';
  return `${wait} · ${formatMs(w.queuedMs.p50)} queued for the threadpool${threads}`;
}

/** A route's part of a line's own time: `GET /orders/{n}` and its share (0–100). */
export interface RouteShare {
  route: string;
  pct: number;
}

/** A route gets named on a line from this share of the line's own time. */
export const ROUTE_MIN_PCT = 5;

/**
 * Which routes a line's own time served (report.routes, measured in the app by the route probe),
 * most first, each of at least ROUTE_MIN_PCT; none when the run had fewer than two routes.
 */
export function routeSharesOf(routes: readonly RouteFigures[] | undefined, file: string, line: number): RouteShare[] {
  if (!routes || routes.filter((r) => r.requests > 0).length < 2) return [];
  const parts = routes.flatMap((r) => {
    const ms = r.lines?.find((l) => l.line === line && l.file === file)?.ownMs ?? 0;
    return ms > 0 ? [{ route: r.method ? `${r.method} ${r.route}` : r.route, ms }] : [];
  });
  const total = parts.reduce((t, p) => t + p.ms, 0);
  return parts
    .map((p) => ({ route: p.route, pct: (p.ms / total) * 100 }))
    .filter((p) => p.pct >= ROUTE_MIN_PCT)
    .sort((a, b) => b.pct - a.pct);
}

/** `serves GET /heavy/{n} 71% · GET /light/{n} 29%`: the routes a hot line's time went to. */
export function routesLensText(shares: readonly RouteShare[]): string {
  return `serves ${shares
    .slice(0, 3)
    .map((s) => `${s.route} ${formatPct(s.pct)}`)
    .join(' · ')}${shares.length > 3 ? ` · +${shares.length - 3} more` : ''}`;
}

/** A line's threadpool waits get a lens when they recur and last: not a config file read once. */
export const isWaitLensLine = (w: ThreadpoolWait): boolean => w.count >= 5 && w.waitMs.p50 >= 1;

/** Hints about the event loop's own time; not threadpool-queue, repeated-query, db-pool-queue or serial-awaits, which are about waiting off it. */
export const isBlockingHint = (h: Hint): boolean =>
  h.rule !== 'gc-pressure' &&
  h.rule !== 'threadpool-queue' &&
  h.rule !== 'repeated-query' &&
  h.rule !== 'db-pool-queue' &&
  h.rule !== 'serial-awaits' &&
  h.line >= 1;

/** A code span that survives backticks in names (`a`b` → `` a`b ``). */
export function code(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** Where a file is, for people: relative to the app folder, `node:…` as is, "" is native code. */
export function where(file: string, line: number, root: string): string {
  if (file === '') return '(native)';
  let shown = file;
  if (root && isBelow(root, file)) shown = path.relative(root, file).split(path.sep).join('/');
  return line >= 1 ? `${shown}:${line}` : shown;
}

const ofCpu = (ms: number, ctx: TextContext): string =>
  `${formatMs(ms)} (${formatPct(ctx.nonIdleMs > 0 ? (ms / ctx.nonIdleMs) * 100 : 0)})`;

/** Markdown for the callee list of a line: name, where, time, and whether the call site was inferred. */
function calleeItems(callees: readonly CallLink[], ctx: TextContext): string[] {
  return callees.map(
    (c) =>
      `- ${code(functionLabel(c.name, c.file))} ${code(where(c.file, c.line, ctx.root))} — ${ofCpu(c.totalMs, ctx)}${c.inferred ? ' · *inferred call site*' : ''}`,
  );
}

export interface LineHoverInput {
  line: LineCost;
  /** The function the line belongs to, when the report has it (for its callers). */
  fn?: FunctionCost;
  hints: readonly Hint[];
  /** What the line's other lenses say (stalls, waits, allocations, its function's lens). */
  extras?: LineExtras;
}

/**
 * Everything on a line besides its CPU that has a lens of its own, so the hover says all the
 * lenses do and more: the stalls it took part in, its threadpool and HTTP waits, what its
 * function allocates, and the lens of the function that starts on it.
 */
export interface LineExtras {
  /** The function whose first line this is, when it carries a lens. */
  functionHere?: FunctionCost;
  stalls?: Pick<LineStalls, 'count' | 'maxMs'>;
  /** The stall probe's threshold, ms. */
  stallThresholdMs?: number;
  waits: readonly ThreadpoolWait[];
  /** The hints about those waits (a full pool, an N+1 loop, serial awaits): their fix in the hover. */
  waitHints?: readonly Hint[];
  pool?: { size: number };
  heap?: { line: HeapLine; run: HeapContext };
  /** The routes its own time served (a run of several routes). */
  routes?: readonly RouteShare[];
}

export const hasExtras = (x: LineExtras): boolean =>
  x.functionHere !== undefined ||
  x.stalls !== undefined ||
  x.waits.length > 0 ||
  x.heap !== undefined ||
  (x.routes?.length ?? 0) > 0;

/** The extras as hover paragraphs: each lens's own words first, then the figures behind them. */
export function extrasMarkdown(x: LineExtras, ctx: TextContext): string[] {
  const out: string[] = [];
  const f = x.functionHere;
  if (f) out.push(`**Function** ${code(f.name || '(anonymous)')}: ${functionLensText(f, ctx)}`, '');
  if (x.stalls) {
    const min = x.stallThresholdMs !== undefined ? ` of ${formatMs(x.stallThresholdMs)} or more` : '';
    out.push(
      `**Event loop:** ${stallLensText(x.stalls)} — stalls${min} in the profiled window in which this line ran for at least a fifth of the time. No other request was served while the loop was stalled.`,
      '',
    );
  }
  for (const w of x.waits) {
    out.push(`**Waits:** ${waitLensText(w, x.pool)}`, '');
    const queued =
      w.target === undefined && w.queuedMs.p50 >= 1
        ? ` · queued for a thread p50 ${formatMs(w.queuedMs.p50)}, p99 ${formatMs(w.queuedMs.p99)} (inferred; an upper bound when the event loop is busy)`
        : w.poolSize && w.queuedMs.p99 >= 1
          ? ` · of it queued for one of the pool's ${w.poolSize} connections p50 ${formatMs(w.queuedMs.p50)}, p99 ${formatMs(w.queuedMs.p99)} (measured)`
          : '';
    out.push(
      `${code(w.api)}${w.target ? ` to ${w.target}` : ''}: ${w.count} calls in the profiled window${w.perRequest > 0 ? ` (${w.perRequest.toFixed(1)} per request)` : ''} · wait p50 ${formatMs(w.waitMs.p50)}, p99 ${formatMs(w.waitMs.p99)} (measured, from the call to its callback)${queued}. The wait is not CPU of this line: the figures above leave it out.`,
      '',
    );
  }
  // Their message too: unlike a blocking hint's, it is not what the line's own figures say.
  for (const h of x.waitHints ?? []) out.push(h.message, '', ...hintMarkdown(h), '');
  if (x.heap) out.push(`**Allocations:** ${heapLensText(x.heap.line, x.heap.run)}`, '');
  if (x.routes && x.routes.length > 0)
    out.push(
      `**Routes:** ${routesLensText(x.routes)} — of this line's own time in the profiled window, by the request it served (measured in the app).`,
      '',
    );
  return out;
}

/** Hover for a hot line: its times, what it calls, who calls its function, where a map moved it, the hint. */
export function lineHoverMarkdown(input: LineHoverInput, mainCtx: TextContext): string {
  const { line: l, fn } = input;
  const ctx = offMainContext(l.thread, mainCtx);
  const out: string[] = [];
  out.push(
    `**Hotline** · line ${l.line} in ${code(l.function || '(anonymous)')}${l.thread !== undefined ? ` · ${OFF_MAIN[l.thread]}` : ''}`,
  );
  out.push('');
  out.push('| | time | of busy CPU |');
  out.push('|---|---:|---:|');
  out.push(
    `| own | ${formatMs(l.ownMs)} | ${formatPct(l.ownPct)}${l.ownPctPm !== undefined ? ` ±${l.ownPctPm.toFixed(1)} (95%)` : ''} |`,
  );
  out.push(`| self | ${formatMs(l.selfMs)} | ${formatPct(l.selfPct)} |`);
  out.push(`| total | ${formatMs(l.totalMs)} | ${formatPct(l.totalPct)} |`);
  out.push('');
  if (l.thread === undefined) {
    // The lens's own words ("… · blocks the event loop" with a hint): the hover says no less.
    out.push(`Of the app's capacity: ${lineLensText(l, input.hints[0], ctx)}.`);
    out.push('');
  }
  // Waits and stalls next: on a line that waits, they are the larger part of a request's time.
  if (input.extras) out.push(...extrasMarkdown(input.extras, ctx));
  if (l.processes && l.processes.length > 0) {
    out.push(`By process: ${l.processes.map((p) => `${p.pid} ${formatMs(p.ownMs)}`).join(' · ')}`);
    out.push('');
  }
  if (l.callees.length > 0) {
    out.push('Calls from this line:');
    out.push('');
    out.push(...calleeItems(l.callees, ctx));
    out.push('');
  }
  if (fn && fn.callers.length > 0) {
    out.push(`Callers of ${code(fn.name || '(anonymous)')}:`);
    out.push('');
    out.push(
      ...fn.callers.map(
        (c) =>
          `- ${code(functionLabel(c.name, c.file))} ${code(where(c.file, c.line, ctx.root))} — ${ofCpu(c.totalMs, ctx)}`,
      ),
    );
    out.push('');
  }
  if (l.generated) {
    out.push(
      `Generated code: ${code(where(l.generated.file, l.generated.line, ctx.root))} (the source map moved the cost to this line)`,
    );
    out.push('');
  }
  for (const h of input.hints) out.push(...hintMarkdown(h), '');
  out.push(
    footnote(
      ctx,
      l.callees.some((c) => c.inferred === true),
    ),
  );
  return out.join('\n');
}

/** Hover for the first line of a costly function without a hot line of its own there. */
export function functionHoverMarkdown(f: FunctionCost, mainCtx: TextContext, extras?: LineExtras): string {
  const ctx = offMainContext(f.thread, mainCtx);
  const out: string[] = [];
  out.push(`**Hotline** · function ${code(f.name || '(anonymous)')}`);
  out.push('');
  // The lens's words (per request, share of a core), then the shares of busy CPU.
  out.push(functionLensText(f, ctx));
  out.push('');
  out.push(`total ${ofCpu(f.totalMs, ctx)} · self ${ofCpu(f.selfMs, ctx)}`);
  out.push('');
  if (extras) out.push(...extrasMarkdown({ ...extras, functionHere: undefined }, ctx));
  if (f.callees.length > 0) {
    out.push('Calls:');
    out.push('');
    out.push(...calleeItems(f.callees, ctx));
    out.push('');
  }
  if (f.callers.length > 0) {
    out.push('Callers:');
    out.push('');
    out.push(
      ...f.callers.map(
        (c) =>
          `- ${code(functionLabel(c.name, c.file))} ${code(where(c.file, c.line, ctx.root))} — ${ofCpu(c.totalMs, ctx)}`,
      ),
    );
    out.push('');
  }
  out.push(footnote(ctx, false));
  return out.join('\n');
}

/** Hover for a line with no CPU worth a lens but another lens (a wait, a stall, allocations). */
export function extrasHoverMarkdown(
  line: number,
  fnName: string | undefined,
  extras: LineExtras,
  ctx: TextContext,
): string {
  const out = [`**Hotline** · line ${line}${fnName !== undefined ? ` in ${code(fnName || '(anonymous)')}` : ''}`, ''];
  out.push(...extrasMarkdown(extras, ctx));
  out.push(footnote(ctx, false));
  return out.join('\n');
}

/** The fix only: the hint's message is the line's diagnostic, which VS Code shows in the same hover. */
function hintMarkdown(h: Hint): string[] {
  return [`**Fix:** ${h.fix}`];
}

const OFF_MAIN = { worker: 'worker threads', process: 'child processes' } as const;

/** Costs measured in worker threads or child processes: their 100% is the non-idle time of those. */
function offMainContext(
  thread: 'worker' | 'process' | undefined,
  ctx: TextContext,
): TextContext & { offMain?: 'worker' | 'process' } {
  if (thread === undefined) return ctx;
  const nonIdleMs = thread === 'worker' ? ctx.workersNonIdleMs : ctx.processesNonIdleMs;
  return { ...ctx, nonIdleMs: nonIdleMs ?? ctx.nonIdleMs, offMain: thread };
}

function footnote(ctx: TextContext & { offMain?: 'worker' | 'process' }, inferred: boolean): string {
  const of =
    ctx.offMain === 'worker'
      ? 'non-idle CPU time of the worker threads, all workers together'
      : ctx.offMain === 'process'
        ? 'non-idle CPU time of the child processes, all processes together'
        : 'non-idle CPU time';
  const parts = [
    `Percentages are of ${of} (${formatMs(ctx.nonIdleMs)}${ctx.underLoad ? ' under load' : ''}).`,
    'Own: samples whose deepest line of your code is this one; self: executing the line itself; total: the line and the calls it makes.',
  ];
  if (inferred)
    parts.push(
      'Inferred call site: V8 names only the called function, so the line was found by matching the call in the source.',
    );
  return `*${parts.join(' ')}*`;
}
