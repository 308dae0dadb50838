// Latency figures as the load generator keeps them: an HDR histogram per phase (and per route),
// summarized into mean, percentiles and max. Shared by the runner and its per-route counters.
import * as hdr from 'hdr-histogram-js';
import type { Histogram } from 'hdr-histogram-js';
import type { LatencySummary } from './runner-protocol.ts';

/**
 * Latencies in µs in an HDR histogram, as autocannon keeps them: 3 significant digits (a
 * percentile is within 0.1% of the exact one), constant memory however long the window runs.
 */
export function latencyHistogram(): Histogram {
  return hdr.build({ lowestDiscernibleValue: 1, numberOfSignificantValueDigits: 3 });
}

export const US_PER_MS = 1000;
export const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * Mean, percentiles and max of the latencies in `histogram` (µs) plus `extra` requests at
 * `extraValueMs` (the timed-out ones); `sumMs` is the exact sum of the recorded latencies.
 */
export function summarize(histogram: Histogram, sumMs: number, extra = 0, extraValueMs = 0): LatencySummary {
  const n = histogram.totalCount + extra;
  if (n === 0) return { mean: 0, p50: 0, p90: 0, p99: 0, max: 0 };
  let all = histogram;
  if (extra > 0) {
    all = latencyHistogram();
    all.add(histogram);
    all.recordValueWithCount(Math.round(extraValueMs * US_PER_MS), extra);
  }
  const ms = (us: number): number => round3(us / US_PER_MS);
  // A percentile is the top of its bucket: never above the largest value recorded.
  const at = (p: number): number => ms(Math.min(all.getValueAtPercentile(p), all.maxValue));
  return {
    mean: round3((sumMs + extra * extraValueMs) / n),
    p50: at(50),
    p90: at(90),
    p99: at(99),
    max: ms(all.maxValue),
  };
}
