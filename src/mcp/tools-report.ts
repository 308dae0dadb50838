// Tools that read one run: hot_lines, functions, waits, routes, stalls, line_detail and explain.
// Each returns the top N only, so the answer fits a model's context.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { guarded, ok, ToolError } from './results.ts';
import * as shapes from './shapes.ts';
import { functions, hintView, hotLines, lineDetail, routes, stalls, waits } from './views.ts';
import type { Run, Workspace } from './workspace.ts';

const runArg = z.string().optional().describe('Run id (list_runs), or "latest" (default)');
const topArg = z.number().int().min(1).max(50).optional().describe('How many rows (default 10)');
const READ = { readOnlyHint: true } as const;

type Rows = (ws: Workspace, run: Run, top: number) => object[];

export function registerReportTools(server: McpServer, ws: Workspace): void {
  const table = (name: string, title: string, description: string, row: z.ZodType, rows: Rows): void => {
    server.registerTool(
      name,
      {
        title,
        description,
        inputSchema: { run: runArg, top: topArg },
        outputSchema: shapes.table(row),
        annotations: READ,
      },
      (args) =>
        guarded(() => {
          const run = ws.run(args.run);
          const out = {
            run: run.report.id,
            unit: 'ms per request served while profiled',
            rows: rows(ws, run, args.top ?? 10),
          };
          return ok(out, JSON.stringify(out));
        }),
    );
  };
  table(
    'hot_lines',
    'Hot lines',
    'The lines of your code with the most CPU (own time: each sample counted once, on the deepest line of your code), ' +
      'with file:line, the code, the share of CPU and ms per request, and the hint that names a fix. The first row is the bottleneck.',
    shapes.hotLine,
    hotLines,
  );
  table(
    'functions',
    'Functions',
    'Functions by self time (all code: yours, dependencies, Node), with file:line, self and total share and ms per request.',
    shapes.functionRow,
    functions,
  );
  table(
    'waits',
    'Threadpool and HTTP waits',
    'Calls your code handed to the threadpool (crypto, zlib, fs, dns) or made over HTTP, per calling line: calls per request, ' +
      'wait p50/p99 and how much of it was queueing for a free thread.',
    shapes.waitRow,
    waits,
  );
  table(
    'routes',
    'Routes of a request mix',
    'For a run of several routes (a request mix, or a load that was not Hotline’s): each route’s requests, latency, ' +
      'CPU per request and share, its hottest lines of your code and where its requests waited, most CPU first. ' +
      'Empty for a run of one URL.',
    shapes.routeRow,
    routes,
  );
  table(
    'stalls',
    'Event-loop stalls',
    'The longest event-loop stalls of the profiled window and the lines of your code that ran in each.',
    shapes.stallRow,
    stalls,
  );

  server.registerTool(
    'line_detail',
    {
      title: 'One line in detail',
      description:
        'One line of a run: its own and total CPU per request, the calls made from it (callees), the callers of its function, its hints and waits.',
      outputSchema: shapes.lineDetail,
      inputSchema: {
        file: z.string().min(1).describe('File relative to the workspace, e.g. "server.js"'),
        line: z.number().int().min(1).describe('1-based line'),
        run: runArg,
      },
      annotations: READ,
    },
    (args) =>
      guarded(() => {
        const run = ws.run(args.run);
        const detail = lineDetail(ws, run, ws.resolve(args.file), args.line);
        if (!detail)
          throw new ToolError(
            `${args.file}:${args.line} took no measured time in run ${run.report.id} (see hot_lines).`,
          );
        return ok(detail, JSON.stringify(detail));
      }),
  );

  server.registerTool(
    'explain',
    {
      title: 'Explain: hints and fixes',
      description:
        "The run's hints: each names a costly API call on a hot line (e.g. a sync crypto call), why it is slow and the fix. " +
        'A fix is a hypothesis until verify says faster.',
      inputSchema: { run: runArg },
      outputSchema: { run: z.string(), hints: z.array(shapes.hint), notes: z.array(z.string()) },
      annotations: READ,
    },
    (args) =>
      guarded(() => {
        const run = ws.run(args.run);
        const out = {
          run: run.report.id,
          hints: run.report.hints.map((h) => hintView(ws, h)),
          notes: run.report.notes.slice(0, 5),
        };
        return ok(out, JSON.stringify(out));
      }),
  );
}
