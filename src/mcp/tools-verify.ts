// verify: a run against the baseline (report/compare.ts, the same comparison `hotline compare`
// and the editor's toast use), stated as the claim contract (claims.ts) with its interval and
// whether the edit touched the measured line (edit-note.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { compareReports, IncomparableError, readRunSources } from '../core/index.ts';
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
};

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
        };
        return ok(out, `${v.mayClaim} ${out.edit.note}`);
      }),
  );
}
