// The one line of the terminal report that splits a typical request's latency (report.requestTime).
import type { RequestTime } from '../core/index.ts';
import { formatMs as ms } from '../format.ts';

const SHORT: Record<RequestTime['parts'][number]['key'], string> = {
  user: 'your code',
  dependencies: 'dependencies',
  runtime: 'Node/GC/native',
  threadpool: 'threadpool wait',
  http: 'HTTP wait',
  datastore: 'data-store wait',
  rest: 'rest',
};

/** `one request (profiled p50 100 ms): your code 3.0 ms · … · rest 25 ms (…)`; parts under 0.05 ms left out. */
export function requestTimeLine(t: RequestTime): string {
  const parts = t.parts.filter((p) => p.ms >= 0.05 || p.key === 'rest').map((p) => `${SHORT[p.key]} ${ms(p.ms)}`);
  const over = t.overMs > 0 ? `; the parts exceed it by ${ms(t.overMs)}` : '';
  return `  one request (profiled p50 ${ms(t.latencyMs)}): ${parts.join(' · ')} (CPU derived from the profile, waits measured, rest inferred${over})`;
}
