// Tools that make and pick runs: profile (a run under load, with progress and cancellation),
// list_runs and set_baseline.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { listRuns, profileUnderLoad } from '../core/index.ts';
import { CLAIM_RULES } from './claims.ts';
import { profileInput, runOptionsOf } from './profile-input.ts';
import { progressSender } from './progress.ts';
import { guarded, ok } from './results.ts';
import * as shapes from './shapes.ts';
import { hintView, hotLines, runSummary } from './views.ts';
import type { Workspace } from './workspace.ts';

const json = (v: unknown): string => JSON.stringify(v);

export function registerRunTools(server: McpServer, ws: Workspace, shutdown: AbortSignal): void {
  server.registerTool(
    'profile',
    {
      title: 'Profile under load',
      description:
        "Start the workspace's own app (its entry file or an npm script of its package.json, nothing else), load one URL (or a " +
        'request mix file of several routes: then see routes) on 127.0.0.1 over HTTP and profile it; returns the run id, its throughput and the hottest lines of your code with their hints. ' +
        'Takes twice duration (a measured and a profiled window) + warm-up + a few seconds. Measure before an edit (then set_baseline) and after it (then verify). ' +
        CLAIM_RULES,
      inputSchema: profileInput,
      outputSchema: {
        run: shapes.runSummary,
        hotLines: z.array(shapes.hotLine),
        hints: z.array(shapes.hint),
        next: z.string(),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    (args, extra) =>
      guarded(async () => {
        const options = runOptionsOf(ws.root, args);
        const run = await profileUnderLoad({
          ...options,
          signal: AbortSignal.any([extra.signal, shutdown]),
          onProgress: progressSender(extra),
        });
        const r = { dir: run.runDir, report: run.report };
        const out = {
          run: runSummary(ws, r),
          hotLines: hotLines(ws, r, 5),
          hints: run.report.hints.slice(0, 5).map((h) => hintView(ws, h)),
          next: 'set_baseline to compare later runs with this one; hot_lines, waits, line_detail for more; verify after an edit.',
        };
        return ok(out, json(out));
      }),
  );

  server.registerTool(
    'list_runs',
    {
      title: 'List runs',
      description:
        "The workspace's runs, newest first: id, request, req/s, p99, hottest line; which one is the baseline.",
      inputSchema: { limit: z.number().int().min(1).max(100).optional().describe('At most this many (default 10)') },
      outputSchema: {
        baseline: z.string().nullable(),
        runs: z.array(shapes.runSummary.extend({ isBaseline: z.boolean() })),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(() => {
        const baseline = ws.baselineId() ?? null;
        const runs = listRuns(ws.runsDir)
          .runs.slice(0, args.limit ?? 10)
          .map((r) => ({ ...runSummary(ws, r), isBaseline: r.report.id === baseline }));
        const out = { baseline, runs };
        return ok(out, json(out));
      }),
  );

  server.registerTool(
    'set_baseline',
    {
      title: 'Set the baseline',
      description: 'Make a run the baseline that verify compares later runs with (default: the latest run).',
      inputSchema: { run: z.string().optional().describe('Run id, or "latest" (default)') },
      outputSchema: { baseline: shapes.runSummary },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    },
    (args) =>
      guarded(() => {
        const run = ws.run(args.run);
        ws.setBaseline(run.report.id);
        const out = { baseline: runSummary(ws, run) };
        return ok(out, json(out));
      }),
  );
}
