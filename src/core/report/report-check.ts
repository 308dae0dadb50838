// report.json's check, field by field as its types in schema.ts say: what the store reads and
// the report page draws must have every field they use, so a damaged file is refused whole.
import { CATEGORIES } from '../analysis/model.ts';
import { arr, bool, count as line, isObject, num, oneOf, record, shape, str, type Check } from './shape-checks.ts';
import type { ReportV1 } from './schema.ts';

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
    profiled: shape(
      { durationS: num, requests: shape({ perSecond: num }, { total: num }), latencyMs: latency },
      { errors: num, non2xx: num },
    ),
  },
  { completedLatencyMs: latency, loadCpu: num, external: externalLoad },
);

const stallSummary = shape({ thresholdMs: num, count: line, maxMs: num, totalMs: num });
const stall = shape({
  startMs: num,
  durationMs: num,
  lines: arr(shape({ file: str, line, function: str, ownMs: num })),
});

const threadpoolWait = shape(
  {
    file: str,
    line,
    function: str,
    api: str,
    count: line,
    perRequest: num,
    waitMs: shape({ p50: num, p99: num, total: num }),
    queuedMs: shape({ p50: num, p99: num }),
  },
  { target: str, poolSize: num },
);

const requestTime = shape({
  url: str,
  latencyMs: num,
  measuredLatencyMs: num,
  requestsProfiled: num,
  parts: arr(
    shape({
      key: oneOf('user', 'dependencies', 'runtime', 'threadpool', 'http', 'datastore', 'rest'),
      label: str,
      ms: num,
      how: oneOf('derived', 'measured', 'inferred'),
    }),
  ),
  overMs: num,
});

const eventLoop = shape(
  { delayMs: delays, utilization: num },
  {
    cpu: num,
    blockedThroughout: bool,
    profiled: shape({ delayMs: delays, utilization: num }, { cpu: num }),
    stalls: stallSummary,
  },
);

const categories: Check = (v) => isObject(v) && CATEGORIES.every((k) => num(v[k]));
export const isCategory: Check = oneOf(...CATEGORIES);
const category = isCategory;

const thread = oneOf('worker', 'process');
const fn = shape(
  { name: str, file: str, line, column: num, category, selfMs: num, totalMs: num, selfPct: num, totalPct: num },
  { callers: arr(callLink), callees: arr(callLink), endLine: num, thread },
);
const lineCost = shape(
  {
    file: str,
    line,
    function: str,
    ownMs: num,
    ownPct: num,
    selfMs: num,
    totalMs: num,
    selfPct: num,
    totalPct: num,
    callees: arr(callLink),
  },
  { thread, processes: arr(shape({ pid: num, ownMs: num })) },
);
const hint = shape(
  { rule: str, file: str, line, api: str, totalPct: num, message: str, fix: str },
  { function: str, totalMs: num },
);

const threadSummary = shape(
  { id: num, title: str, file: str, durationMs: num, samples: num, nonIdleMs: num },
  {
    script: str,
    topLine: shape({ file: str, line, function: str, ownMs: num, ownPct: num }),
    joinedLate: bool,
    exitedEarly: bool,
    startedAtBoot: bool,
  },
);
const workers = shape({ nonIdleMs: num, durationMs: num, samples: num, categories, hints: arr(hint) });
const processSummary = shape(
  {
    pid: num,
    role: oneOf('primary', 'worker'),
    file: str,
    durationMs: num,
    samples: num,
    nonIdleMs: num,
    sharePct: num,
  },
  {
    kind: oneOf('cluster', 'fork', 'spawn'),
    script: str,
    topLine: shape({ file: str, line, function: str, ownMs: num, ownPct: num }),
    joinedLate: bool,
    exitedEarly: bool,
  },
);
const childProcesses = shape({
  count: num,
  nonIdleMs: num,
  durationMs: num,
  samples: num,
  categories,
  hints: arr(hint),
  allNonIdleMs: num,
});
const heapLine = shape({ file: str, line, function: str, ownBytes: num, ownPct: num });
const heapFunction = shape({
  name: str,
  file: str,
  line,
  category,
  selfBytes: num,
  totalBytes: num,
  selfPct: num,
  totalPct: num,
});
const heap = shape(
  {
    samplingIntervalBytes: num,
    totalBytes: num,
    outsideUserBytes: num,
    lines: arr(heapLine),
    functions: arr(heapFunction),
  },
  { file: str, bytesPerSecond: num, bytesPerRequest: num },
);

const report = shape(
  {
    version: oneOf(1),
    id: str,
    startedAt: str,
    app: shape({ command: arr(str), cwd: str, url: str }, { pid: num, node: str }),
    settings: shape(
      { url: str, method: str, connections: num, durationS: num },
      { warmupS: num, timeoutS: num, samplingIntervalUs: num, attach: str },
    ),
    profile: shape({ durationMs: num, samples: num, intervalUs: num }, { file: str }),
    categories,
    nonIdleMs: num,
    functions: arr(fn),
    lines: arr(lineCost),
    hints: arr(hint),
    notes: arr(str),
  },
  {
    load,
    eventLoop,
    partial: shape({ reason: str }),
    threads: arr(threadSummary),
    workers,
    heap,
    processes: arr(processSummary),
    childProcesses,
    stalls: arr(stall),
    waits: arr(threadpoolWait),
    threadpool: shape({ size: num, cores: num }),
    requestTime,
  },
);

/** report.json of version 1 with every field the CLI, the editor and the report page read. */
export function isReportV1(v: unknown): v is ReportV1 {
  return report(v);
}
