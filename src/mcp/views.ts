// A run's figures cut to what a model needs: top N rows, each with `file:line`, its code and
// its share and ms per request. Pure: a run in, plain objects out.
import { type Hint, type ReportV1, routeRows } from '../core/index.ts';
import type { FunctionRow, HintView, HotLine, LineDetail, RouteRow, RunSummary, StallRow, WaitRow } from './shapes.ts';
import { codeAt, type Run, type Workspace } from './workspace.ts';
import { functionLabel } from '../names.ts';

/** Requests served while the profile ran: the denominator of "ms per request" (none: no load). */
export function requestsProfiled(r: ReportV1): number | undefined {
  const p = r.load?.profiled;
  if (!p) return undefined;
  const total = p.requests.total ?? p.requests.perSecond * p.durationS;
  return total > 0 ? total : undefined;
}

const round = (v: number, digits = 3): number => Math.round(v * 10 ** digits) / 10 ** digits;

function perRequest(r: ReportV1, ms: number): number | undefined {
  const n = requestsProfiled(r);
  return n !== undefined ? round(ms / n) : undefined;
}

export function hintView(ws: Workspace, h: Hint): HintView {
  return { at: ws.at(h.file, h.line), api: h.api, message: h.message, fix: h.fix, sharePct: round(h.totalPct, 1) };
}

const hintsAt = (r: ReportV1, file: string, line: number): Hint[] =>
  r.hints.filter((h) => h.file === file && (h.line === line || h.oneOf?.includes(line)));

export function hotLines(ws: Workspace, run: Run, top: number): HotLine[] {
  const r = run.report;
  return r.lines.slice(0, top).map((l) => ({
    at: ws.at(l.file, l.line),
    function: l.function,
    code: codeAt(run, l.file, l.line, l.code) ?? null,
    sharePct: round(l.ownPct, 1),
    msPerRequest: perRequest(r, l.ownMs) ?? null,
    ...(l.oneOf ? { oneOfLines: l.oneOf } : {}),
    ...(l.thread ? { thread: l.thread } : {}),
    hints: hintsAt(r, l.file, l.line).map((h) => `${h.message}. Fix: ${h.fix}`),
  }));
}

export function functions(ws: Workspace, run: Run, top: number): FunctionRow[] {
  const r = run.report;
  return r.functions.slice(0, top).map((f) => ({
    name: f.name,
    at: ws.at(f.file, f.line),
    category: f.category,
    code: codeAt(run, f.file, f.line) ?? null,
    selfPct: round(f.selfPct, 1),
    totalPct: round(f.totalPct, 1),
    selfMsPerRequest: perRequest(r, f.selfMs) ?? null,
    totalMsPerRequest: perRequest(r, f.totalMs) ?? null,
  }));
}

export function waits(ws: Workspace, run: Run, top: number): WaitRow[] {
  return (run.report.waits ?? []).slice(0, top).map((w) => ({
    at: ws.at(w.file, w.line),
    function: w.function,
    code: codeAt(run, w.file, w.line) ?? null,
    api: w.api,
    ...(w.target ? { target: w.target } : {}),
    calls: w.count,
    perRequest: round(w.perRequest, 2),
    waitMs: { p50: round(w.waitMs.p50, 2), p99: round(w.waitMs.p99, 2) },
    queuedMs: { p50: round(w.queuedMs.p50, 2), p99: round(w.queuedMs.p99, 2) },
  }));
}

/** A mixed run's routes in the page's order (core/report/route-order.ts). */
export function routes(ws: Workspace, run: Run, top: number): RouteRow[] {
  return routeRows(run.report.routes ?? [])
    .slice(0, top)
    .map((x) => ({
      route: x.method ? `${x.method} ${x.route}` : x.route,
      requests: x.requests,
      reqPerSec: x.reqPerSec,
      latencyMs: x.latencyMs ? { p50: round(x.latencyMs.p50, 2), p99: round(x.latencyMs.p99, 2) } : null,
      errors: x.errors,
      cpuMsPerRequest: x.cpuMsPerRequest !== undefined ? round(x.cpuMsPerRequest) : null,
      cpuSharePct: x.cpuPct !== undefined ? round(x.cpuPct, 1) : null,
      lines: (x.lines ?? []).slice(0, 3).map((l) => ({
        at: ws.at(l.file, l.line),
        code: codeAt(run, l.file, l.line) ?? null,
        sharePct: round(l.ownPct, 1),
      })),
      waits: (x.waits ?? [])
        .slice(0, 3)
        .map((w) => ({ at: ws.at(w.file, w.line), api: w.kind, msPerRequest: round(w.msPerRequest, 2) })),
    }));
}

export function stalls(ws: Workspace, run: Run, top: number): StallRow[] {
  const list = [...(run.report.stalls ?? [])].sort((a, b) => b.durationMs - a.durationMs).slice(0, top);
  return list.map((s) => ({
    startMs: round(s.startMs, 0),
    durationMs: round(s.durationMs, 1),
    lines: s.lines.slice(0, 3).map((l) => ({
      at: ws.at(l.file, l.line),
      code: codeAt(run, l.file, l.line) ?? null,
      ownMs: round(l.ownMs, 1),
    })),
  }));
}

/** One line: its cost, the calls made from it, the callers of its function, its hints and waits. */
export function lineDetail(ws: Workspace, run: Run, file: string, line: number): LineDetail | undefined {
  const r = run.report;
  const cost = r.lines.find((l) => l.file === file && (l.line === line || l.oneOf?.includes(line)));
  if (!cost) return undefined;
  const fn = r.functions.find(
    (f) => f.name === cost.function && f.file === file && (f.thread ?? '') === (cost.thread ?? ''),
  );
  const link = (c: { name: string; file: string; line: number; totalMs: number }) => ({
    name: functionLabel(c.name, c.file),
    at: c.file ? ws.at(c.file, c.line) : '(native)',
    msPerRequest: perRequest(r, c.totalMs) ?? null,
    sharePct: r.nonIdleMs > 0 ? round((c.totalMs / r.nonIdleMs) * 100, 1) : null,
  });
  return {
    at: ws.at(cost.file, cost.line),
    function: cost.function,
    code: codeAt(run, cost.file, cost.line, cost.code) ?? null,
    ownPct: round(cost.ownPct, 1),
    totalPct: round(cost.totalPct, 1),
    ownMsPerRequest: perRequest(r, cost.ownMs) ?? null,
    totalMsPerRequest: perRequest(r, cost.totalMs) ?? null,
    ...(cost.oneOf ? { oneOfLines: cost.oneOf } : {}),
    callees: cost.callees.slice(0, 8).map(link),
    callers: (fn?.callers ?? []).slice(0, 8).map(link),
    hints: hintsAt(r, cost.file, cost.line).map((h) => hintView(ws, h)),
    waits: (r.waits ?? [])
      .filter((w) => w.file === file && w.line === cost.line)
      .map((w) => ({ api: w.api, perRequest: round(w.perRequest, 2), waitMsP50: round(w.waitMs.p50, 2) })),
  };
}

/** The run in a few figures: what list_runs and profile show. */
export function runSummary(ws: Workspace, run: Run): RunSummary {
  const r = run.report;
  const top = r.lines[0];
  return {
    id: r.id,
    startedAt: r.startedAt,
    request: `${r.settings.method} ${r.settings.url}`,
    requestsPerSecond: r.load ? round(r.load.requests.perSecond, 1) : null,
    latencyP99Ms: r.load ? round(r.load.latencyMs.p99, 1) : null,
    topLine: top ? `${ws.at(top.file, top.line)} (${round(top.ownPct, 1)}%)` : null,
    ...(r.partial ? { partial: r.partial.reason } : {}),
  };
}
