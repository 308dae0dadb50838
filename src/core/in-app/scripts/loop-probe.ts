// The event-loop probe, inside the app (host side: inspector/loop-probe.ts): one delay histogram
// per kind of window, to which each sub-window's own (a fresh monitor: a re-enabled one would
// count the gap as one long delay) is copied at its end; the app's CPU and loop use marked at each
// sub-window's edge. A libuv timer every 10 ms: no visible cost was measured
// (bench/lab-attach-costs.ts).
import type { IntervalHistogram, RecordableHistogram } from 'node:perf_hooks';
import { builtin } from './shared/builtins.ts';
import { nowUs } from './shared/clock.ts';
import { clearSlot, readSlot, writeSlot } from './shared/state.ts';

export type WindowKind = 'measured' | 'profiled';

interface Probe {
  measured: RecordableHistogram;
  profiled: RecordableHistogram;
  current: IntervalHistogram | undefined;
}

/** A mark (as JSON): the host's AppMark, with the closed sub-window's p99 in ns (-1: the timer never fired). */
export interface TakenMark {
  cpuUs: number;
  idleMs: number;
  activeMs: number;
  wallUs: number;
  closedP99Ns?: number;
}

const SLOT = 'hotline.probe';

export function start(): void {
  const { createHistogram } = builtin('perf_hooks');
  const old = readSlot<Probe>(SLOT);
  if (old && old.current) old.current.disable();
  writeSlot<Probe>(SLOT, { measured: createHistogram(), profiled: createHistogram(), current: undefined });
}

/** Adds a loop-delay monitor's distribution to a plain histogram (one cannot be added to the other). */
export function addTo(total: RecordableHistogram, h: IntervalHistogram): void {
  let below = 0;
  for (const [pct, value] of h.percentiles) {
    const upTo = Math.round((pct / 100) * h.count);
    for (let i = below; i < upTo; i++) total.record(Math.max(1, Math.round(value)));
    below = Math.max(below, upTo);
  }
}

/**
 * A sub-window's edge: stops the delay monitor of the window that ends (`close`), starts one for
 * the window that begins (`open`, a timer of `resolutionMs`), and marks the app's CPU and loop use.
 */
export function edge(close: WindowKind | null, open: WindowKind | null, resolutionMs: number): string {
  const p = readSlot<Probe>(SLOT);
  const { performance, monitorEventLoopDelay } = builtin('perf_hooks');
  let closedP99Ns: number | undefined;
  if (close && p && p.current) {
    p.current.disable();
    closedP99Ns = p.current.count > 0 ? p.current.percentile(99) : -1;
    addTo(p[close], p.current);
    p.current = undefined;
  }
  if (open && p) {
    p.current = monitorEventLoopDelay({ resolution: resolutionMs });
    p.current.enable();
  }
  const c = process.cpuUsage();
  const e = performance.eventLoopUtilization();
  const mark: TakenMark = {
    cpuUs: c.user + c.system,
    idleMs: e.idle,
    activeMs: e.active,
    wallUs: nowUs(),
    closedP99Ns,
  };
  return JSON.stringify(mark);
}

/** One kind's histogram (as JSON): count, and mean, p50, p99, max in ns. */
export function read(kind: WindowKind): string {
  const h = readSlot<Probe>(SLOT)![kind];
  return JSON.stringify({ count: h.count, mean: h.mean, p50: h.percentile(50), p99: h.percentile(99), max: h.max });
}

/** The process's CPU so far, user + system, µs (all its threads): a child process's mark. */
export function cpuUs(): number {
  const c = process.cpuUsage();
  return c.user + c.system;
}

export function stop(): void {
  const p = readSlot<Probe>(SLOT);
  if (!p) return;
  if (p.current) p.current.disable();
  clearSlot(SLOT);
}
