// What a cost is of the app's capacity, not only of its busy time: "0.8 ms/request · 3% of a
// core". A share of non-idle time is relative: once the hot spot is fixed and the app is 95%
// idle, the next line up is again "66%" and was tinted as red as the bug. Time per request and
// the share of one core's wall time say how much the line costs, so a cool app looks cool.
// Shared by the language server (lenses, tints) and the report page.
import type { ReportV1 } from './core/report/index.ts';

export interface CapacityBasis {
  /** Wall time the main thread was sampled: one core's capacity over the profile. */
  wallMs: number;
  /** Requests served in the profiled window, when the run had a load. */
  requests?: number;
}

export function capacityOf(r: Pick<ReportV1, 'profile' | 'load'>): CapacityBasis {
  const p = r.load?.profiled;
  const requests = p ? (p.requests.total ?? p.requests.perSecond * p.durationS) : 0;
  return { wallMs: r.profile.durationMs, ...(requests >= 1 ? { requests } : {}) };
}

/** Share of one core, 0–100 (a line's time can't exceed the thread's wall time). */
export function corePct(ms: number, b: CapacityBasis): number {
  return b.wallMs > 0 ? Math.min(100, (ms / b.wallMs) * 100) : 0;
}

export function perRequestMs(ms: number, b: CapacityBasis): number | undefined {
  return b.requests !== undefined ? ms / b.requests : undefined;
}

/** 0 ms, <0.01 ms, 0.42 ms, 4.2 ms, 812 ms, 1.9 s. Per-request costs are often well below 1 ms. */
export function formatCostMs(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return '0 ms';
  if (ms < 0.005) return '<0.01 ms';
  if (ms < 0.995) return `${ms.toFixed(2)} ms`;
  if (ms < 9.95) return `${ms.toFixed(1)} ms`;
  if (Math.round(ms) < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/** 0%, <0.1%, 2.1%, 93%. */
export function formatCorePct(pct: number): string {
  if (!Number.isFinite(pct) || pct <= 0) return '0%';
  if (pct < 0.05) return '<0.1%';
  if (pct < 9.95) return `${pct.toFixed(1)}%`;
  return `${Math.round(pct)}%`;
}

/** "0.42 ms/request · 3.1% of a core" under load, "336 ms · 3.1% of a core" for a bare profile. */
export function costText(ms: number, b: CapacityBasis): string {
  const per = perRequestMs(ms, b);
  return `${per !== undefined ? `${formatCostMs(per)}/request` : formatCostMs(ms)} · ${formatCorePct(corePct(ms, b))} of a core`;
}
