// When the profiled and measured windows got very different CPU (the app's CPU seconds per wall
// second), their req/s differ for that reason: on a busy 2-core machine the profiled sub-windows
// ran at 0.97 cores and the measured ones at 0.49, which read as "req/s +77%" — as if profiling
// sped the app up. Such a pair is named, not compared. Pure and browser-safe.
import type { ReportV1 } from '../report/index.ts';

/** The larger of the two windows' CPU over the smaller past which their req/s do not compare. */
export const WINDOW_CPU_APART = 1.5;

/** Both windows' CPU (cores) when they are that far apart; undefined otherwise or unknown. */
export function windowsCpuApart(r: Pick<ReportV1, 'eventLoop'>): { measured: number; profiled: number } | undefined {
  const measured = r.eventLoop?.cpu;
  const profiled = r.eventLoop?.profiled?.cpu;
  if (measured === undefined || profiled === undefined || !(measured > 0) || !(profiled > 0)) return undefined;
  return Math.max(measured, profiled) / Math.min(measured, profiled) >= WINDOW_CPU_APART
    ? { measured, profiled }
    : undefined;
}

/** "req/s not compared: the app got 0.49 cores measured, 0.97 profiled (not the profiler: the machine)". */
export function windowsCpuApartText(apart: { measured: number; profiled: number }): string {
  return `req/s not compared: the app got ${apart.measured.toFixed(2)} cores in the measured window and ${apart.profiled.toFixed(2)} in the profiled one (the machine's other work, not the profiler)`;
}
