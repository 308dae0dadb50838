// The claim contract: what an assistant may say after an edit, from the comparison of a run with
// the baseline (verdicts/compare.ts) and nothing else. The figures that decide are the gate's
// (verdicts/gate.ts): req/s and latency p99, what users feel — or CPU per request when the app's
// event loop was saturated in both runs (then req/s and latency follow the CPU the machine gave
// it). When the edit freed a saturated loop (or saturated a free one), the loop's delay p99 — how
// long every request waits for the loop — decides too: a hash moved to the threadpool frees the
// loop, not the CPU, and on a busy machine req/s need not move (compare.ts, holdBackUncarried).
// Each figure carries its 95% interval from the runs' sub-windows (verdicts/verdict.ts).
import { type Comparison, type Delta, tooShortText } from '../core/index.ts';

export type Claim = 'faster' | 'slower' | 'within noise' | 'too short to tell' | 'mixed';
export const CLAIMS: readonly Claim[] = ['faster', 'slower', 'within noise', 'too short to tell', 'mixed'];

export type FigureName = 'req/s' | 'latency p99' | 'cpu/request' | 'loop delay p99';

/** A loop busy this share of the window is saturated (compare.ts SATURATED). */
const SATURATED = 0.9;

export interface FigureVerdict {
  figure: FigureName;
  /** The whole measured windows' figures. */
  base: number;
  current: number;
  /**
   * The change the interval is about, %: estimated from the sub-windows (their geometric means),
   * so it can differ from base → current. A negative req/s change is slower.
   */
  changePct: number;
  /** The 95% interval of changePct; null without one (too few sub-windows). */
  interval: { lowPct: number; highPct: number } | null;
  /** `better` / `worse` for this figure, or why it says neither. */
  verdict: 'better' | 'worse' | 'within noise' | 'too short to tell';
}

export interface Verdict {
  claim: Claim;
  /** The figure the claim stands on (the first that moved its way; else the first deciding one). */
  decidedBy: FigureVerdict;
  figures: FigureVerdict[];
  /** What the assistant may tell the user, in one sentence. */
  mayClaim: string;
}

/** The tool description's rules, one per claim: the model reads them before it calls verify. */
export const CLAIM_RULES =
  'Claim rules: say "faster" only when claim is "faster", naming the figure that got faster and its 95% interval ' +
  '("loop delay p99" faster means requests wait less for the event loop, not that the request needs less CPU). ' +
  '"slower": the edit made it slower; say so. "within noise": no measurable change — never call it faster or an ' +
  'improvement. "too short to tell": no conclusion; profile again with a longer duration (8 s or more, or subWindows ≥ 4). ' +
  '"mixed": one figure better, another worse; report both, claim neither.';

/** The verdict of a comparison, or a reason why there is none (no load figures). */
export function verdictOf(c: Comparison): Verdict | { none: string } {
  const l = c.load;
  if (!l) return { none: 'one of the runs has no load figures: nothing to claim about requests' };
  const cpu = l.cpuPerRequestMs && l.cpuPerRequestMs.base > 0 ? l.cpuPerRequestMs : undefined;
  const figures =
    l.saturated === true && cpu
      ? [figureOf('cpu/request', cpu)]
      : [figureOf('req/s', l.requestsPerSecond), figureOf('latency p99', l.latencyMs.p99)];
  const loop = c.eventLoop;
  if (loop && loop.utilization.base >= SATURATED !== loop.utilization.current >= SATURATED)
    figures.push(figureOf('loop delay p99', loop.p99));
  const better = figures.filter((f) => f.verdict === 'better');
  const worse = figures.filter((f) => f.verdict === 'worse');
  const claim: Claim =
    better.length > 0 && worse.length > 0
      ? 'mixed'
      : better.length > 0
        ? 'faster'
        : worse.length > 0
          ? 'slower'
          : figures.every((f) => f.verdict === 'too short to tell')
            ? 'too short to tell'
            : 'within noise';
  const decidedBy = (claim === 'slower' ? worse[0] : better[0]) ?? figures[0];
  return { claim, decidedBy, figures, mayClaim: sentenceOf(claim, decidedBy, figures, l.requestsPerSecond) };
}

function figureOf(figure: FigureName, d: Delta): FigureVerdict {
  const n = d.noise;
  const changePct =
    n?.changePct ?? (d.base !== 0 ? Math.round(((d.current - d.base) / Math.abs(d.base)) * 1000) / 10 : 0);
  const interval = n?.lowPct !== undefined && n.highPct !== undefined ? { lowPct: n.lowPct, highPct: n.highPct } : null;
  // Without sub-windows there is no spread: no verdict either way (never a claim from one number).
  const verdict = !n || n.verdict === 'too short' ? 'too short to tell' : n.verdict;
  return { figure, base: d.base, current: d.current, changePct, interval, verdict };
}

const pct = (v: number): string => `${v > 0 ? '+' : ''}${v}%`;
const describe = (f: FigureVerdict): string =>
  `${f.figure} ${pct(f.changePct)}${f.interval ? ` (95% interval ${pct(f.interval.lowPct)} to ${pct(f.interval.highPct)})` : ''}`;
const withVerdicts = (fs: FigureVerdict[]): string => fs.map((f) => `${describe(f)} ${f.verdict}`).join('; ');

function sentenceOf(claim: Claim, by: FigureVerdict, all: FigureVerdict[], rps: Delta): string {
  const others = all.filter((f) => f !== by);
  const rest = others.length > 0 ? ` (${withVerdicts(others)})` : '';
  switch (claim) {
    case 'faster':
      return `Faster: ${describe(by)}, beyond the runs' noise${rest}. You may say it is faster: name this figure and its interval.`;
    case 'slower':
      return `Slower: ${describe(by)}, beyond the runs' noise${rest}. Say the edit made it slower.`;
    case 'mixed':
      return `Mixed: ${withVerdicts(all)}. Report both; do not call it faster.`;
    case 'within noise':
      return `Within noise: ${withVerdicts(all)}: every interval holds no change. Do not say it is faster: say no measurable change.`;
    case 'too short to tell':
      return `Too short to tell: ${rps.noise ? tooShortText(rps.noise) : 'the runs have no sub-windows'}. Do not claim any change; profile again with a longer duration.`;
  }
}
