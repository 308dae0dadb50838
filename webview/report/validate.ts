// Messages from the extension are checked before anything is drawn: a message that is not a
// ToReportView (protocol.ts) with a report of the shape the page reads is dropped. The checks
// cover every field the page uses, so a damaged report.json cannot throw half-way through a render.
import type { ToReportView } from '../../src/protocol.ts';
import type { ReportV1 } from '../../src/core/report/index.ts';
import type { TimelineV1 } from '../../src/core/analysis/timeline.ts';

type Check = (v: unknown) => boolean;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num: Check = (v) => typeof v === 'number' && Number.isFinite(v);
const str: Check = (v) => typeof v === 'string';
const bool: Check = (v) => typeof v === 'boolean';
const line: Check = (v) => Number.isInteger(v) && (v as number) >= 0;
const arr = (c: Check): Check => (v) => Array.isArray(v) && v.every(c);
const record = (c: Check): Check => (v) => isObject(v) && Object.values(v).every(c);

/** Required fields, then optional ones (absent or undefined is fine). */
function shape(required: Record<string, Check>, optional: Record<string, Check> = {}): Check {
  return (v) =>
    isObject(v) &&
    Object.entries(required).every(([k, c]) => Object.hasOwn(v, k) && c(v[k])) &&
    Object.entries(optional).every(([k, c]) => v[k] === undefined || c(v[k]));
}

const latency = shape({ mean: num, p50: num, p90: num, p99: num, max: num });
const delays = shape({ mean: num, p50: num, p99: num, max: num });
const callLink = shape({ name: str, file: str, line, totalMs: num }, { inferred: bool });

const externalLoad = shape({ command: arr(str), parsed: bool, missing: arr(str), log: str }, { tool: str });

const load = shape(
  {
    durationS: num,
    connections: num,
    requests: shape({ total: num, perSecond: num }),
    latencyMs: latency,
    errors: num,
    timeouts: num,
    non2xx: num,
    statusCodes: record(num),
    loadLimited: bool,
    profiled: shape({ durationS: num, requests: shape({ perSecond: num }, { total: num }), latencyMs: latency }, { errors: num, non2xx: num }),
  },
  { completedLatencyMs: latency, loadCpu: num, external: externalLoad },
);

const eventLoop = shape(
  { delayMs: delays, utilization: num },
  { cpu: num, blockedThroughout: bool, profiled: shape({ delayMs: delays, utilization: num }, { cpu: num }) },
);

const CATEGORY_KEYS = ['user', 'dependencies', 'nodeInternals', 'native', 'gc', 'idle', 'program'];
const categories: Check = (v) => isObject(v) && CATEGORY_KEYS.every((k) => num(v[k]));
const category: Check = (v) => typeof v === 'string' && CATEGORY_KEYS.includes(v);

const thread: Check = (v) => v === 'worker';
const fn = shape({ name: str, file: str, line, column: num, category, selfMs: num, totalMs: num, selfPct: num, totalPct: num }, { callers: arr(callLink), callees: arr(callLink), endLine: num, thread });
const lineCost = shape({ file: str, line, function: str, ownMs: num, ownPct: num, selfMs: num, totalMs: num, selfPct: num, totalPct: num, callees: arr(callLink) }, { thread });
const hint = shape({ rule: str, file: str, line, api: str, totalPct: num, message: str, fix: str }, { function: str, totalMs: num });

const threadSummary = shape(
  { id: num, title: str, file: str, durationMs: num, samples: num, nonIdleMs: num },
  { script: str, topLine: shape({ file: str, line, function: str, ownMs: num, ownPct: num }), joinedLate: bool, exitedEarly: bool },
);
const workers = shape({ nonIdleMs: num, durationMs: num, samples: num, categories, hints: arr(hint) });
const heapLine = shape({ file: str, line, function: str, ownBytes: num, ownPct: num });
const heapFunction = shape({ name: str, file: str, line, category, selfBytes: num, totalBytes: num, selfPct: num, totalPct: num });
const heap = shape(
  { samplingIntervalBytes: num, totalBytes: num, outsideUserBytes: num, lines: arr(heapLine), functions: arr(heapFunction) },
  { file: str, bytesPerSecond: num, bytesPerRequest: num },
);

const report = shape(
  {
    version: (v) => v === 1,
    id: str,
    startedAt: str,
    app: shape({ command: arr(str), cwd: str, url: str }, { pid: num }),
    settings: shape({ url: str, method: str, connections: num, durationS: num }, { warmupS: num, timeoutS: num, samplingIntervalUs: num, attach: str }),
    profile: shape({ durationMs: num, samples: num, intervalUs: num }, { file: str }),
    categories,
    nonIdleMs: num,
    functions: arr(fn),
    lines: arr(lineCost),
    hints: arr(hint),
    notes: arr(str),
  },
  { load, eventLoop, partial: shape({ reason: str }), threads: arr(threadSummary), workers, heap },
);

const focus = shape({ file: str, line: (v) => Number.isInteger(v) && (v as number) >= 1 }, { functionName: str });

export function isReport(v: unknown): v is ReportV1 {
  return report(v);
}

const timelineHead = shape({
  version: (v) => v === 1, firstUs: num, endUs: num, intervalUs: num,
  lines: arr(shape({ file: str, line, function: str })),
  kinds: arr(shape({ category, owners: arr((o) => Array.isArray(o) && o.length === 2 && Number.isInteger(o[0]) && num(o[1])) })),
  sampleUs: Array.isArray, sampleKind: Array.isArray,
});

/** timeline.json as the heat map reads it: every index in range, every duration a number ≥ 0. Loops, not closures: 60 000+ samples. */
export function isTimeline(v: unknown): v is TimelineV1 {
  if (!timelineHead(v)) return false;
  const t = v as unknown as TimelineV1;
  if (t.sampleUs.length !== t.sampleKind.length) return false;
  for (const k of t.kinds) for (const [l] of k.owners) if (l < 0 || l >= t.lines.length) return false;
  for (let s = 0; s < t.sampleUs.length; s++) {
    const us = t.sampleUs[s];
    const kind = t.sampleKind[s];
    if (typeof us !== 'number' || !(us >= 0) || us === Infinity || !Number.isInteger(kind) || kind < 0 || kind >= t.kinds.length) return false;
  }
  return true;
}

/** The message as the page may use it, or undefined (dropped). */
export function parseToReportView(v: unknown): ToReportView | undefined {
  if (!isObject(v)) return undefined;
  switch (v.type) {
    case 'report': {
      if (!isReport(v.report)) return undefined;
      if (v.baseline !== undefined && !isReport(v.baseline)) return undefined;
      if (v.focus !== undefined && !focus(v.focus)) return undefined;
      const f = v.focus as { file: string; line: number; functionName?: string } | undefined;
      // A damaged timeline costs the heat map only, not the report.
      const timeline = v.timeline !== undefined && isTimeline(v.timeline) ? { timeline: v.timeline } : {};
      return {
        type: 'report',
        report: v.report,
        ...timeline,
        ...(v.baseline !== undefined ? { baseline: v.baseline as ReportV1 } : {}),
        ...(f ? { focus: { file: f.file, line: f.line, ...(f.functionName !== undefined ? { functionName: f.functionName } : {}) } } : {}),
      };
    }
    case 'focus':
      return focus(v) ? { type: 'focus', file: v.file as string, line: v.line as number, ...(typeof v.functionName === 'string' ? { functionName: v.functionName } : {}) } : undefined;
    default:
      return undefined;
  }
}
