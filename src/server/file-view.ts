// One report seen through one document: which costs a file has (ReportIndex, built once per
// shown run) and where they land in the document as it is now (through a LineMapping). Pure: the
// server turns these items into LSP lenses, hovers, diagnostics and decoration messages.
import * as path from 'node:path';
import {
  type FunctionCost,
  type HeapLine,
  type Hint,
  type LineCost,
  type LineStalls,
  type ReportV1,
  stallsByLine,
  type ThreadpoolWait,
} from '../core/index.ts';
import type { LineHeat, OpenReportAtArgs } from '../protocol.ts';
import {
  decorationLabel,
  extrasHoverMarkdown,
  functionHoverMarkdown,
  hasExtras,
  type LineExtras,
  functionLensText,
  type HeapContext,
  heapLensText,
  isBlockingHint,
  isDecoratedLine,
  isHeapLensLine,
  isHoverLine,
  isLensFunction,
  isLensLine,
  isWaitLensLine,
  lineHoverMarkdown,
  lineLensText,
  routeSharesOf,
  routesLensText,
  stallLensText,
  type TextContext,
  waitLensText,
} from './lens-text.ts';
import type { LineMapping } from './staleness.ts';
import { capacityOf, corePct, perRequestMs } from '../capacity.ts';

/**
 * The key files are matched by: report paths and document paths meet here. VS Code spells a
 * Windows drive in lower case (c:\app), Node in upper case (C:\app).
 */
export function fileKey(file: string): string {
  const normal = path.normalize(file);
  return process.platform === 'win32' ? normal.replace(/^[A-Z]:/, (drive) => drive.toLowerCase()) : normal;
}

export interface FileCosts {
  /** As the report spells it. */
  file: string;
  lines: LineCost[];
  /** Every function of the report in this file (callers of a hot line's function come from here). */
  functions: FunctionCost[];
  /** Blocking hints on a line of this file. */
  hints: Hint[];
  /** Hints about waiting on a line of this file (not blocking: they go to the hover, with the waits). */
  waitHints: Hint[];
  /** Bytes allocated per function of this file (report.heap), at each function's first line. */
  heap: HeapLine[];
  /** Lines of this file that took part in event-loop stalls (report.stalls). */
  stalls: LineStalls[];
  /** Threadpool requests made on lines of this file (report.waits). */
  waits: ThreadpoolWait[];
}

export class ReportIndex {
  readonly files = new Map<string, FileCosts>();
  readonly context: TextContext;
  readonly heap: HeapContext | undefined;

  constructor(
    readonly report: ReportV1,
    readonly reportFile: string,
  ) {
    this.context = {
      nonIdleMs: report.nonIdleMs,
      ...(report.workers ? { workersNonIdleMs: report.workers.nonIdleMs } : {}),
      ...(report.childProcesses ? { processesNonIdleMs: report.childProcesses.nonIdleMs } : {}),
      underLoad: report.load !== undefined,
      root: report.app.cwd,
      capacity: capacityOf(report),
    };
    this.heap = report.heap
      ? {
          totalBytes: report.heap.totalBytes,
          bytesPerSecond: report.heap.bytesPerSecond,
          bytesPerRequest: report.heap.bytesPerRequest,
        }
      : undefined;
    const of = (file: string): FileCosts => {
      const key = fileKey(file);
      let fc = this.files.get(key);
      if (!fc)
        this.files.set(
          key,
          (fc = { file, lines: [], functions: [], hints: [], waitHints: [], heap: [], stalls: [], waits: [] }),
        );
      return fc;
    };
    const onDisk = (file: string): boolean => path.isAbsolute(file);
    // "One of lines …" records belong to no single line: the report shows them, the editor does not guess.
    for (const l of report.lines) if (onDisk(l.file) && !l.oneOf) of(l.file).lines.push(l);
    for (const f of report.functions) if (f.category === 'user' && onDisk(f.file)) of(f.file).functions.push(f);
    for (const h of report.hints) {
      if (!onDisk(h.file) || h.oneOf || h.line < 1) continue;
      if (isBlockingHint(h)) of(h.file).hints.push(h);
      else if (h.rule !== 'gc-pressure') of(h.file).waitHints.push(h);
    }
    for (const l of report.heap?.lines ?? []) if (onDisk(l.file)) of(l.file).heap.push(l);
    for (const s of stallsByLine(report.stalls ?? [])) if (onDisk(s.file)) of(s.file).stalls.push(s);
    for (const w of report.waits ?? []) if (onDisk(w.file) && isWaitLensLine(w)) of(w.file).waits.push(w);
    // Files whose costs are all below every threshold show nothing: leave them out.
    for (const [key, fc] of this.files) if (linesOfInterest(fc).length === 0) this.files.delete(key);
  }

  costsOf(file: string): FileCosts | undefined {
    return this.files.get(fileKey(file));
  }
}

/** The report lines (1-based) that show something: their share dropped by an edit makes the file stale. */
export function linesOfInterest(fc: FileCosts): number[] {
  const lines = new Set<number>();
  for (const l of fc.lines) if (isLensLine(l) || isDecoratedLine(l)) lines.add(l.line);
  for (const f of fc.functions) if (isLensFunction(f)) lines.add(f.line);
  for (const h of fc.hints) lines.add(h.line);
  for (const l of fc.heap) if (isHeapLensLine(l)) lines.add(l.line);
  for (const s of fc.stalls) lines.add(s.line);
  for (const w of fc.waits) lines.add(w.line);
  return [...lines].sort((a, b) => a - b);
}

export interface LensItem {
  /** 0-based line in the current document. */
  line0: number;
  title: string;
  args: OpenReportAtArgs;
}

/**
 * Where a lens stands among its line's lenses (VS Code shows them in one row, cut at the editor's
 * edge): the function's, the line's cost, its routes, allocations, stalls, then its waits — a wait
 * first when it costs the request more than the line's own CPU (a line that awaits a pool for
 * 400 ms and runs 0.04 ms: the wait is what the user came for).
 */
const RANK = { function: 0, heavierWait: 0.5, line: 1, routes: 1.1, heap: 2, stall: 3, wait: 4 } as const;

export function lensesOf(index: ReportIndex, fc: FileCosts, mapping: LineMapping): LensItem[] {
  if (mapping.changedBeyondMapping) return [];
  const items: Array<LensItem & { rank: number }> = [];
  /** A line's own CPU per request (ms), where the run knows its requests. */
  const ownMsOf = new Map<number, number>();
  for (const f of fc.functions) {
    if (!isLensFunction(f)) continue;
    const line0 = mapping.toCurrent(f.line);
    if (line0 === undefined) continue;
    items.push({
      line0,
      rank: RANK.function,
      title: functionLensText(f, index.context),
      args: { reportFile: index.reportFile, file: fc.file, line: f.line, functionName: f.name },
    });
  }
  // A line run by the main thread and by workers (shared code): the main thread's cost shows.
  const byLine = new Map(
    [...fc.lines.filter((l) => l.thread === 'worker'), ...fc.lines.filter((l) => l.thread !== 'worker')].map((l) => [
      l.line,
      l,
    ]),
  );
  const lensLines = new Set([...fc.lines.filter(isLensLine).map((l) => l.line), ...fc.hints.map((h) => h.line)]);
  for (const line of [...lensLines].sort((a, b) => a - b)) {
    const line0 = mapping.toCurrent(line);
    if (line0 === undefined) continue;
    const l = byLine.get(line);
    const hint = fc.hints.find((h) => h.line === line);
    const cost = l ?? (hint ? { ownMs: hint.totalMs, ownPct: hint.totalPct } : undefined);
    if (!cost) continue;
    const functionName = l?.function ?? hint?.function;
    const perRequest = perRequestMs(cost.ownMs, index.context.capacity);
    if (perRequest !== undefined) ownMsOf.set(line, perRequest);
    items.push({
      line0,
      rank: RANK.line,
      title: lineLensText(cost, hint, index.context),
      args: { reportFile: index.reportFile, file: fc.file, line, functionName },
    });
    const routes = routeSharesOf(index.report.routes, fc.file, line);
    if (routes.length > 0)
      items.push({
        line0,
        rank: RANK.routes,
        title: routesLensText(routes),
        args: { reportFile: index.reportFile, file: fc.file, line, functionName },
      });
  }
  for (const l of fc.heap) {
    if (!isHeapLensLine(l) || !index.heap) continue;
    const line0 = mapping.toCurrent(l.line);
    if (line0 === undefined) continue;
    items.push({
      line0,
      rank: RANK.heap,
      title: heapLensText(l, index.heap),
      args: {
        reportFile: index.reportFile,
        file: fc.file,
        line: l.line,
        functionName: l.function,
        kind: 'allocations',
      },
    });
  }
  for (const s of fc.stalls) {
    const line0 = mapping.toCurrent(s.line);
    if (line0 === undefined) continue;
    items.push({
      line0,
      rank: RANK.stall,
      title: stallLensText(s),
      args: { reportFile: index.reportFile, file: fc.file, line: s.line, functionName: s.function },
    });
  }
  for (const w of fc.waits) {
    const line0 = mapping.toCurrent(w.line);
    if (line0 === undefined) continue;
    const waitPerRequestMs = w.waitMs.p50 * Math.max(w.perRequest, 1);
    items.push({
      line0,
      rank: waitPerRequestMs > (ownMsOf.get(w.line) ?? Infinity) ? RANK.heavierWait : RANK.wait,
      title: waitLensText(w, index.report.threadpool),
      args: { reportFile: index.reportFile, file: fc.file, line: w.line, functionName: w.function },
    });
  }
  return items.sort((a, b) => a.line0 - b.line0 || a.rank - b.rank).map(({ rank: _rank, ...item }) => item);
}

export function heatOf(index: ReportIndex, fc: FileCosts, mapping: LineMapping): LineHeat[] {
  if (mapping.changedBeyondMapping) return [];
  const heat: LineHeat[] = [];
  for (const l of fc.lines) {
    if (!isDecoratedLine(l)) continue;
    const line0 = mapping.toCurrent(l.line);
    if (line0 === undefined) continue;
    // Worker lines: a share of the workers' time (several workers can each fill a core).
    const core = l.thread !== undefined ? l.ownPct : corePct(l.ownMs, index.context.capacity);
    heat.push({
      line: line0,
      ownMs: l.ownMs,
      ownPct: l.ownPct,
      corePct: core,
      label: decorationLabel(l, index.context.capacity),
    });
  }
  return heat.sort((a, b) => a.line - b.line);
}

export interface HintItem {
  line0: number;
  hint: Hint;
}

export function hintsOf(fc: FileCosts, mapping: LineMapping): HintItem[] {
  if (mapping.changedBeyondMapping) return [];
  const items: HintItem[] = [];
  for (const hint of fc.hints) {
    const line0 = mapping.toCurrent(hint.line);
    if (line0 !== undefined) items.push({ line0, hint });
  }
  return items;
}

/** Hover markdown for a current 0-based line, when the line it came from is hot (or opens a hot function). */
export function hoverOf(index: ReportIndex, fc: FileCosts, mapping: LineMapping, line0: number): string | undefined {
  if (mapping.changedBeyondMapping) return undefined;
  const line = mapping.toSnapshot(line0);
  if (line === undefined) return undefined;
  const hints = fc.hints.filter((h) => h.line === line);
  const extras = extrasOf(index, fc, line);
  const l = fc.lines.find((x) => x.line === line && x.thread !== 'worker') ?? fc.lines.find((x) => x.line === line);
  if (l && (isHoverLine(l) || hints.length > 0 || hasExtras(extras))) {
    const fn = fc.functions.find((f) => f.name === l.function && f.line <= line && (f.endLine ?? f.line) >= line);
    return lineHoverMarkdown({ line: l, fn, hints, extras }, index.context);
  }
  if (extras.functionHere) return functionHoverMarkdown(extras.functionHere, index.context, extras);
  if (!hasExtras(extras)) return undefined;
  const fnName = extras.waits[0]?.function ?? extras.heap?.line.function;
  return extrasHoverMarkdown(line, fnName, extras, index.context);
}

/** What the line's other lenses show (lensesOf), for its hover. */
function extrasOf(index: ReportIndex, fc: FileCosts, line: number): LineExtras {
  const heap = fc.heap.find((h) => h.line === line && isHeapLensLine(h));
  const stalls = fc.stalls.find((s) => s.line === line);
  return {
    functionHere: fc.functions.find((x) => x.line === line && isLensFunction(x)),
    ...(stalls ? { stalls, stallThresholdMs: index.report.eventLoop?.stalls?.thresholdMs } : {}),
    waits: fc.waits.filter((w) => w.line === line),
    waitHints: fc.waitHints.filter((h) => h.line === line),
    pool: index.report.threadpool,
    ...(heap && index.heap ? { heap: { line: heap, run: index.heap } } : {}),
    routes: routeSharesOf(index.report.routes, fc.file, line),
  };
}
