// The tools' outputs as zod shapes: declared to the client (outputSchema), checked by the SDK
// before a result leaves, and the types views.ts builds — one definition for all three.
import * as z from 'zod';

const at = z.string().describe('file:line, the file relative to the workspace');
const code = z.string().nullable().describe("The line's code as the run analyzed it");
const perRequest = z.number().nullable().describe('ms per request served while profiled (null: no load)');
const ms2 = z.object({ p50: z.number(), p99: z.number() });

export const hint = z.object({ at, api: z.string(), message: z.string(), fix: z.string(), sharePct: z.number() });

export const hotLine = z.object({
  at,
  function: z.string(),
  code,
  sharePct: z.number().describe('Share of the non-idle CPU, own time'),
  msPerRequest: perRequest,
  oneOfLines: z.array(z.number()).optional().describe('The time is on one of these lines, which one unknown'),
  thread: z.enum(['worker', 'process']).optional(),
  hints: z.array(z.string()),
});

export const functionRow = z.object({
  name: z.string(),
  at,
  category: z.string(),
  code,
  selfPct: z.number(),
  totalPct: z.number(),
  selfMsPerRequest: perRequest,
  totalMsPerRequest: perRequest,
});

export const waitRow = z.object({
  at,
  function: z.string(),
  code,
  api: z.string(),
  target: z.string().optional(),
  calls: z.number(),
  perRequest: z.number().describe('Calls per request served'),
  waitMs: ms2,
  queuedMs: ms2,
});

export const routeRow = z.object({
  route: z
    .string()
    .describe('Method and route (`GET /orders/:id`, ids folded as `{n}`), or "(no request)": CPU that served none'),
  requests: z.number().describe('Requests of this route in the measured window'),
  reqPerSec: z.number(),
  latencyMs: ms2.nullable(),
  errors: z.number().describe('Answers that were not 2xx'),
  cpuMsPerRequest: z.number().nullable().describe('Main-thread CPU per request of this route, measured in the app'),
  cpuSharePct: z.number().nullable().describe("This route's share of the main thread's CPU"),
  lines: z.array(z.object({ at, code, sharePct: z.number().describe("Share of this route's CPU") })),
  waits: z.array(
    z.object({
      at,
      api: z.string(),
      msPerRequest: z.number().describe('ms its requests waited on this line, per request of this route'),
    }),
  ),
});

export const stallRow = z.object({
  startMs: z.number(),
  durationMs: z.number(),
  lines: z.array(z.object({ at, code, ownMs: z.number() })),
});

const link = z.object({ name: z.string(), at: z.string(), msPerRequest: perRequest, sharePct: z.number().nullable() });

export const lineDetail = {
  at,
  function: z.string(),
  code,
  ownPct: z.number(),
  totalPct: z.number(),
  ownMsPerRequest: perRequest,
  totalMsPerRequest: perRequest,
  oneOfLines: z.array(z.number()).optional(),
  callees: z.array(link),
  callers: z.array(link),
  hints: z.array(hint),
  waits: z.array(z.object({ api: z.string(), perRequest: z.number(), waitMsP50: z.number() })),
};

export const runSummary = z.object({
  id: z.string(),
  startedAt: z.string(),
  request: z.string(),
  requestsPerSecond: z.number().nullable(),
  latencyP99Ms: z.number().nullable(),
  topLine: z.string().nullable(),
  partial: z.string().optional().describe('The run ended early: why'),
});

/** A table tool's answer: the run and its top rows. */
export const table = <T extends z.ZodType>(row: T) => ({ run: z.string(), unit: z.string(), rows: z.array(row) });

export type HotLine = z.infer<typeof hotLine>;
export type FunctionRow = z.infer<typeof functionRow>;
export type WaitRow = z.infer<typeof waitRow>;
export type StallRow = z.infer<typeof stallRow>;
export type RouteRow = z.infer<typeof routeRow>;
export type HintView = z.infer<typeof hint>;
export type LineDetail = z.infer<z.ZodObject<typeof lineDetail>>;
export type RunSummary = z.infer<typeof runSummary>;
