// verify: a run against the baseline (verdicts/compare.ts, the same comparison `hotline compare`
// and the editor's toast use), stated as the claim contract (claims.ts) with its interval and
// whether the edit touched the measured line (edit-note.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { compareReports, IncomparableError, readRunSources, type RouteChange } from '../core/index.ts';
import { CLAIM_RULES, CLAIMS, verdictOf } from './claims.ts';
import { editNote } from './edit-note.ts';
import { guarded, ok, ToolError } from './results.ts';
import type { Workspace } from './workspace.ts';

const figure = z.object({
  figure: z.string(),
  base: z.number(),
  current: z.number(),
  changePct: z.number(),
  interval: z.object({ lowPct: z.number(), highPct: z.number() }).nullable(),
  verdict: z.string(),
});

export const verifyOutput = {
  baseline: z.string(),
  run: z.string(),
  claim: z.enum(CLAIMS),
  mayClaim: z.string(),
  decidedBy: figure,
  figures: z.array(figure),
  edit: z.object({
    measuredLine: z.string().nullable(),
    changedFiles: z.array(z.string()),
    measuredLineChanged: z.boolean(),
    note: z.string(),
  }),
  differences: z.array(z.string()),
  /** A request mix: each route's time per request (its median request's) against the noise (route-compare.ts). */
  routes: z
    .array(
      z.object({
        route: z.string(),
        presence: z.enum(['both', 'added', 'gone']),
        timePerRequest: figure.nullable(),
      }),
    )
    .optional(),
};

/** One route's time per request as a figure of the claim contract, or null without a value per sub-window. */
function routeFigure(r: RouteChange): {
  route: string;
  presence: RouteChange['presence'];
  timePerRequest: z.infer<typeof figure> | null;
} {
  const d = r.threadMs;
  const n = d?.noise;
  return {
    route: `${r.method} ${r.route}`,
    presence: r.presence,
    timePerRequest:
      d && n
        ? {
            figure: 'time/request (median request, main thread, ms)',
            base: d.base,
            current: d.current,
            changePct: n.changePct,
            interval:
              n.lowPct !== undefined && n.highPct !== undefined ? { lowPct: n.lowPct, highPct: n.highPct } : null,
            verdict: n.verdict,
          }
        : null,
  };
}

export function registerVerifyTool(server: McpServer, ws: Workspace): void {
  server.registerTool(
    'verify',
    {
      title: 'Verify against the baseline',
      description:
        'Compare a run (default: the latest) with the baseline and say what may be claimed: claim is "faster", "slower", ' +
        '"within noise", "too short to tell" or "mixed", with the 95% interval of the figure it stands on (req/s and ' +
        'latency p99, or CPU per request when the app was CPU-bound in both runs). Also says whether the edit changed the ' +
        'measured line. Never report a speed-up unless verify says "faster". ' +
        CLAIM_RULES,
      inputSchema: { run: z.string().optional().describe('Run id, or "latest" (default)') },
      outputSchema: verifyOutput,
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(() => {
        const base = ws.baseline();
        const current = ws.run(args.run);
        if (base.report.id === current.report.id)
          throw new ToolError(
            `run ${current.report.id} is the baseline itself: profile again after the edit, then verify.`,
          );
        const sources = readRunSources(base.dir, current.dir);
        const c = compareReports(base.report, current.report, undefined, sources);
        // Runs that loaded something else get no verdict: the same refusal `hotline compare` prints.
        if (c.refused) throw new IncomparableError(c.refused);
        const v = verdictOf(c);
        if ('none' in v) throw new ToolError(v.none);
        const out = {
          baseline: c.baseId,
          run: c.currentId,
          claim: v.claim,
          mayClaim: v.mayClaim,
          decidedBy: v.decidedBy,
          figures: v.figures,
          edit: editNote(ws, c, base.report, sources),
          differences: c.differences ?? [],
          ...(c.routes ? { routes: c.routes.map(routeFigure) } : {}),
        };
        return ok(out, `${v.mayClaim} ${out.edit.note}`);
      }),
  );
}
