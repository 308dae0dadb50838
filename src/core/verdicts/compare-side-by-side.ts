// Two versions of an app measured side by side (capture/side-by-side.ts): in each round both
// served the same load in turn, seconds apart. Their load figures compare round by round
// (verdict.ts pairedChangeOf), so a drift of the machine between rounds cancels out. Pure and
// browser-safe: figures in, the load part of a comparison out, which the gate reads as it reads
// a comparison of two runs.
import { type Comparison, type Delta, SATURATED } from './compare.ts';
import type { SubWindowFigures } from '../report/index.ts';
import { pairedChangeOf, type Direction } from './verdict.ts';
import { routeChanges } from './route-compare.ts';

/** One version's windows, one per round in round order, with nothing of Hotline's attached. */
export interface SideFigures {
  /** How the version is named in verdicts: its folder. */
  id: string;
  windows: SubWindowFigures[];
  /** Per window (SubWindowFigures keeps p50 and p99 only). */
  latencyP90Ms: number[];
  latencyMaxMs: number[];
  non2xx: number;
  /**
   * Per window: the CPU ms per request of the app's whole process tree, read from /proc at the
   * window's edges (capture/tree-cpu.ts); absent off Linux. Preferred to the windows' own
   * cpuMsPerRequest (read through the inspector) when both sides have it.
   */
  treeCpuMsPerRequest?: number[];
}

export interface SideBySideFigures {
  version: 1;
  rounds: number;
  /** Seconds of each window. */
  windowS: number;
  /** Both versions were started afresh for each round (absent: one start for all rounds). */
  freshEachRound?: boolean;
  /** The intervals' level when the gate was sequential (sequentialConfidence); 0.95 when absent. */
  confidence?: number;
  base: SideFigures;
  current: SideFigures;
}

/** The level of each look of a sequential gate of `rounds` rounds a look, at most `maxRounds`. */
export function sequentialConfidence(rounds: number, maxRounds: number): number {
  const looks = 1 + Math.max(0, Math.ceil((maxRounds - rounds) / rounds));
  return 1 - 0.05 / looks;
}

export type LoadComparison = Pick<Comparison, 'baseId' | 'currentId' | 'load' | 'routes'>;

/**
 * `confidence`: the intervals' level; a sequential gate that looks L times uses 1 − 0.05/L at each
 * look (Bonferroni), so its error rates stay within 5% over all its looks.
 */
export function compareSideBySide(f: SideBySideFigures, confidence = 0.95): LoadComparison {
  const bw = f.base.windows;
  const cw = f.current.windows;
  const paired = (pick: (w: SubWindowFigures) => number | undefined, direction: Direction): Delta =>
    pairedDelta(values(bw, pick), values(cw, pick), direction, confidence);
  const busy = (ws: SubWindowFigures[]): number => mean(ws.map((w) => w.utilization ?? 0));
  const cores = (ws: SubWindowFigures[]): number =>
    mean(ws.map((w) => ((w.cpuMsPerRequest ?? 0) * w.requests) / 1000 / Math.max(w.durationS, 1e-9)));
  const sum = (ws: SubWindowFigures[], pick: (w: SubWindowFigures) => number): number =>
    ws.reduce((t, w) => t + pick(w), 0);
  const plain = (base: number, current: number): Delta => ({
    base,
    current,
    change: round(current - base, 2),
    ...(base !== 0 ? { changePct: round(((current - base) / Math.abs(base)) * 100, 1) } : {}),
  });
  const withCpu = bw.every((w) => w.cpuMsPerRequest !== undefined) && cw.every((w) => w.cpuMsPerRequest !== undefined);
  const tree = cpuFromTree(f);
  // A request mix: each route's rounds, paired as the whole's (route-compare.ts).
  const routes = routeChanges({ load: bw, cpu: bw }, { load: cw, cpu: cw }, { paired: true, confidence });
  return {
    ...(routes ? { routes } : {}),
    baseId: f.base.id,
    currentId: f.current.id,
    load: {
      requestsPerSecond: paired((w) => w.perSecond, 'higher-is-better'),
      latencyMs: {
        p50: paired((w) => w.latencyMs.p50, 'lower-is-better'),
        p90: pairedDelta(f.base.latencyP90Ms, f.current.latencyP90Ms, 'lower-is-better', confidence),
        p99: paired((w) => w.latencyMs.p99, 'lower-is-better'),
        max: plain(Math.max(0, ...f.base.latencyMaxMs), Math.max(0, ...f.current.latencyMaxMs)),
      },
      errors: plain(
        sum(bw, (w) => w.errors),
        sum(cw, (w) => w.errors),
      ),
      timeouts: plain(
        sum(bw, (w) => w.timeouts),
        sum(cw, (w) => w.timeouts),
      ),
      non2xx: plain(f.base.non2xx, f.current.non2xx),
      ...(tree
        ? { cpuPerRequestMs: pairedDelta(tree.base, tree.current, 'lower-is-better', confidence) }
        : withCpu && bw.length > 0
          ? { cpuPerRequestMs: paired((w) => w.cpuMsPerRequest, 'lower-is-better') }
          : {}),
      saturated: busy(bw) >= SATURATED && busy(cw) >= SATURATED,
      appCpu: { base: round(cores(bw), 3), current: round(cores(cw), 3) },
    },
  };
}

/** The /proc CPU per request of both sides, when each has one for every window. */
export function cpuFromTree(f: SideBySideFigures): { base: number[]; current: number[] } | undefined {
  const b = f.base.treeCpuMsPerRequest;
  const c = f.current.treeCpuMsPerRequest;
  const whole = (xs: number[] | undefined, n: number): xs is number[] =>
    xs !== undefined && xs.length === n && xs.every((x) => Number.isFinite(x) && x > 0);
  return f.base.windows.length > 0 && whole(b, f.base.windows.length) && whole(c, f.current.windows.length)
    ? { base: b, current: c }
    : undefined;
}

/** Geometric means of the rounds, and their change with its paired interval. */
function pairedDelta(base: number[], current: number[], direction: Direction, confidence: number): Delta {
  const b = geo(base);
  const c = geo(current);
  const noise = pairedChangeOf(base, current, direction, confidence);
  return {
    base: round(b, 4),
    current: round(c, 4),
    change: round(c - b, 4),
    ...(noise ? { changePct: noise.changePct, noise } : {}),
  };
}

const values = (ws: SubWindowFigures[], pick: (w: SubWindowFigures) => number | undefined): number[] =>
  ws.map((w) => pick(w) ?? NaN);

const mean = (xs: number[]): number => (xs.length > 0 ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

function geo(xs: number[]): number {
  const ok = xs.filter((x) => Number.isFinite(x) && x > 0);
  return ok.length > 0 ? Math.exp(mean(ok.map(Math.log))) : 0;
}

const round = (v: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};
