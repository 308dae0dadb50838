// The hints: a sync API on the hot path (a frame rule, on the line that calls it), a costly line
// of known shape (a line rule), garbage collection. Each names the fix. Used by analysis/analyze.ts.
import type { ProfileTree } from '../../profile/index.ts';
import { FRAME_RULES, GC_FIX, GC_HINT_MIN_PCT, HINT_MIN_PCT, LINE_RULES, gcHintMessage, hintMessage } from './hints.ts';
import type { CategoryTimes, Hint } from '../model.ts';
import { ms, pct, type FunctionInfo, type LineAcc } from '../attribution/costs.ts';
import type { CallSiteResolution } from '../attribution/call-lines.ts';

export interface HintContext {
  readonly tree: ProfileTree;
  readonly lines: ReadonlyMap<string, LineAcc>;
  readonly sources: ReadonlyMap<string, string>;
  fnOfNode(node: number): FunctionInfo;
  isWorkspaceNode(node: number): boolean;
  callSite(child: number): CallSiteResolution;
}

export function findHints(ctx: HintContext, nonIdleUs: number, categories: CategoryTimes): Hint[] {
  const t = ctx.tree;
  const n = t.parent.length;
  // Per node: the nearest workspace ancestor's call edge (as in ownTime) and the rule already
  // matched above it, so nested matches (execSync → spawnSync) count once, at the outermost.
  const edge = new Int32Array(n).fill(-1);
  const ruleAbove: (number | undefined)[] = new Array(n);
  const acc = new Map<string, { rule: number; api: string; key: string; fn: string; us: number }>();
  for (let k = 0; k < n; k++) {
    const i = t.preorder[k];
    const p = t.parent[i];
    if (p >= 0) {
      edge[i] = ctx.isWorkspaceNode(i) ? -1 : ctx.isWorkspaceNode(p) ? i : edge[p];
      ruleAbove[i] = ruleAbove[p];
    }
    if (ruleAbove[i] !== undefined || edge[i] < 0) continue;
    const frame = t.frames[t.nodeFrame[i]];
    const fnInfo = ctx.fnOfNode(i);
    for (let r = 0; r < FRAME_RULES.length; r++) {
      const api = FRAME_RULES[r].match(frame, fnInfo.file);
      if (api === undefined) continue;
      ruleAbove[i] = r;
      const site = ctx.callSite(edge[i]);
      const caller = ctx.fnOfNode(t.parent[edge[i]]);
      for (const s of site.shares) {
        // A shared wrapper (zlib's) names no API: the call as written at the line does.
        const label = api === 'zlib' ? (s.callee ?? 'zlib') : api;
        const id = `${r}\u0000${label}\u0000${s.key}`;
        const entry = acc.get(id) ?? { rule: r, api: label, key: s.key, fn: caller.name, us: 0 };
        entry.us += t.subtreeUs[i] * s.frac;
        acc.set(id, entry);
      }
      break;
    }
  }
  const hints: Hint[] = [];
  for (const e of acc.values()) {
    const share = pct(e.us, nonIdleUs);
    if (share < HINT_MIN_PCT) continue;
    const line = ctx.lines.get(e.key)!;
    const rule = FRAME_RULES[e.rule];
    hints.push({
      rule: rule.id,
      file: line.file,
      line: line.line,
      api: e.api,
      function: e.fn,
      totalMs: ms(e.us),
      totalPct: share,
      message: hintMessage(e.api, e.fn, share),
      fix: rule.fix(e.api),
      ...(line.oneOf ? { oneOf: line.oneOf } : {}),
    });
  }
  for (const line of ctx.lines.values()) {
    const share = pct(line.selfUs, nonIdleUs);
    if (share < HINT_MIN_PCT) continue;
    const text = ctx.sources.get(line.file)?.split('\n', line.line)[line.line - 1] ?? '';
    for (const rule of LINE_RULES) {
      const api = rule.match(text);
      if (api === undefined) continue;
      hints.push({
        rule: rule.id,
        file: line.file,
        line: line.line,
        api,
        function: line.fn,
        totalMs: ms(line.selfUs),
        totalPct: share,
        message: hintMessage(api, line.fn, share),
        fix: rule.fix(api),
      });
    }
  }
  const gcShare = pct(categories.gc, nonIdleUs);
  if (gcShare >= GC_HINT_MIN_PCT) {
    hints.push({
      rule: 'gc-pressure',
      file: '',
      line: 0,
      api: '(garbage collector)',
      function: '(garbage collector)',
      totalMs: ms(categories.gc),
      totalPct: gcShare,
      message: gcHintMessage(gcShare),
      fix: GC_FIX,
    });
  }
  return hints.sort((a, b) => b.totalMs - a.totalMs);
}
