// The event-loop probe inside the app: one delay histogram per kind of window, the app's CPU and
// loop use marked at each sub-window's edge, and the delay read back at the end. Its code runs in
// the app (in-app/scripts/loop-probe.ts) through the inspector session's `evaluate`.
import { inAppCall, type TakenMark } from '../in-app/index.ts';

/** Runs an expression in the app and returns its value (InspectorSession's evaluate). */
export type Evaluate = (expression: string) => Promise<unknown>;

/** Measured windows (profiler off) or profiled ones. */
export type WindowKind = 'measured' | 'profiled';

export interface LoopDelay {
  /** How late the event loop ran a 10 ms timer: p50/p99/max/mean, ms. */
  delayMs: { mean: number; p50: number; p99: number; max: number };
  /** The probe's timer never fired: the delays are the windows' length, a lower bound. */
  blockedThroughout?: boolean;
}

export interface LoopReading extends LoopDelay {
  /** Share of the window the event loop was busy (0–1). */
  utilization: number;
  /** CPU seconds the app used (all its threads) per wall second of the window. */
  cpu: number;
}

/** What `InspectorSession.edge` reads inside the app; two marks give a window's CPU and loop use. */
export interface AppMark {
  /** process.cpuUsage(), user + system, µs (all threads). */
  cpuUs: number;
  /** performance.eventLoopUtilization() so far, ms. */
  idleMs: number;
  activeMs: number;
  /** A monotonic clock, µs. */
  wallUs: number;
  /** process.cpuUsage() of each child process (pid → µs), for an app of several processes. */
  children?: Record<number, number>;
  /**
   * At a closing edge: the p99 of the 10 ms loop timer's interval over the sub-window it closed,
   * ms (its delay plus the 10 ms); absent when the timer never fired or nothing was closed.
   */
  closedLoopIntervalP99Ms?: number;
  /** At a closing edge: the loop timer never fired in the sub-window it closed. */
  closedLoopBlocked?: true;
}

/** CPU per wall second and loop utilisation between two marks. */
export function between(
  a: AppMark,
  b: AppMark,
): { wallS: number; cpuS: number; cpu: number; utilization: number; loopIntervalP99Ms?: number } {
  const wallS = (b.wallUs - a.wallUs) / 1e6;
  // Children count only between two marks of their own: one born or gone in between is left out.
  let childrenUs = 0;
  for (const [pid, us] of Object.entries(b.children ?? {})) {
    const before = a.children?.[Number(pid)];
    if (before !== undefined) childrenUs += Math.max(0, us - before);
  }
  const cpuS = (b.cpuUs - a.cpuUs + childrenUs) / 1e6;
  const active = b.activeMs - a.activeMs;
  const total = active + (b.idleMs - a.idleMs);
  return {
    wallS,
    cpuS,
    cpu: wallS > 0 ? cpuS / wallS : 0,
    utilization: total > 0 ? active / total : 0,
    ...(b.closedLoopIntervalP99Ms !== undefined
      ? { loopIntervalP99Ms: b.closedLoopIntervalP99Ms }
      : b.closedLoopBlocked
        ? { loopIntervalP99Ms: round(wallS * 1000) }
        : {}),
  };
}

const LOOP_RESOLUTION_MS = 10;

/**
 * Installs the event-loop probe: one delay histogram per kind of window, to which each
 * sub-window's own is copied at its end (`edge`).
 */
export async function startLoopProbe(evaluate: Evaluate): Promise<void> {
  await evaluate(inAppCall('loop-probe', 'start'));
}

/**
 * A sub-window's edge: stops the delay histogram of the window that ends (`close`), starts the
 * one of the window that begins (`open`), and marks the app's CPU and loop use — one evaluate.
 */
export async function edge(evaluate: Evaluate, o: { open?: WindowKind; close?: WindowKind }): Promise<AppMark> {
  const json = await evaluate(inAppCall('loop-probe', 'edge', o.close ?? null, o.open ?? null, LOOP_RESOLUTION_MS));
  const { closedP99Ns, ...mark } = JSON.parse(String(json)) as TakenMark;
  // The timer's own period stays in: a figure that is never 0 has a ratio (verdicts/verdict.ts).
  if (typeof closedP99Ns !== 'number' || !Number.isFinite(closedP99Ns)) return mark;
  // -1: the timer never fired in the closed sub-window, blocked throughout (between() then
  // takes the sub-window's length, a lower bound, as readLoopDelay does for a window).
  return closedP99Ns < 0
    ? { ...mark, closedLoopBlocked: true }
    : { ...mark, closedLoopIntervalP99Ms: round(closedP99Ns / 1e6) };
}

/**
 * The loop delay over every window of one kind; `wallS` is their length (the delay when no
 * timer fired at all: the loop was blocked throughout, a lower bound). The histogram values
 * include the timer's own 10 ms, which we take off.
 */
export async function readLoopDelay(evaluate: Evaluate, kind: WindowKind, wallS: number): Promise<LoopDelay> {
  const json = await evaluate(inAppCall('loop-probe', 'read', kind));
  const r = JSON.parse(String(json)) as Record<string, number>;
  if (!(r.count > 0)) {
    const blocked = round(wallS * 1000);
    return { delayMs: { mean: blocked, p50: blocked, p99: blocked, max: blocked }, blockedThroughout: true };
  }
  const delay = (ns: number): number => (Number.isFinite(ns) ? round(Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS)) : 0);
  return { delayMs: { mean: delay(r.mean), p50: delay(r.p50), p99: delay(r.p99), max: delay(r.max) } };
}

export async function stopLoopProbe(evaluate: Evaluate): Promise<void> {
  await evaluate(inAppCall('loop-probe', 'stop'));
}

const round = (v: number, digits = 2): number => {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};
