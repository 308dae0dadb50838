// Which line of the user's code each piece of time belongs to: the line a function was
// executing (V8's position ticks, or the stack captures where other functions were inlined into
// it) and the line of a caller that made a call (measured by the captures, else read from the
// source, "one of lines …" when several calls could be it). Used by analyze.ts.
import type { ProfileTree } from './profile.ts';
import { callNamesFor, fileIsModule, type CallSite } from './callsites.ts';
import type { FrameWeights, Identity, StackEvidence, StackFrameV1 } from './stacks.ts';
import type { FunctionInfo, LineAcc } from './costs.ts';

/** What the line book needs from the analysis: the tree, its functions, and the line records. */
export interface LineContext {
  readonly tree: ProfileTree;
  readonly evidence: StackEvidence | undefined;
  /** Per captured frame (stacks.json): the function it is in. */
  readonly capturedFn: readonly FunctionInfo[];
  readonly stackFrames: readonly StackFrameV1[];
  readonly lines: Map<string, LineAcc>;
  fnOfNode(node: number): FunctionInfo;
  isWorkspaceNode(node: number): boolean;
  /** The line record for a generated position of a workspace function (analyze.ts). */
  lineKey(fn: FunctionInfo, rawLine: number, generatedColumn?: number, fnName?: string): string;
}

/** A share of some time that goes to one line. */
export interface LineShare {
  key: string;
  frac: number;
  /** The call as written at that line (`zlib.gzipSync`), when the share is a call site. */
  callee?: string;
}

export interface CallSiteResolution {
  shares: LineShare[];
  /** Read from the source rather than measured (a name match, or the function's own line). */
  inferred: boolean;
}

/** Below this many ticks on one edge, the same caller→callee pair's ticks from every context are used if there are more. */
const MIN_EDGE_TICKS = 20;

export class CallLines {
  private readonly execCache = new Map<number, LineShare[]>();
  private readonly callSiteCache = new Map<number, CallSiteResolution>();

  constructor(private readonly ctx: LineContext) {}

  /**
   * Where a workspace node's own samples were, from V8's position ticks. Ticks on lines outside
   * the function come from code V8 inlined into it. A line inside another function of the same
   * file is taken as that function inlined (the usual case: a helper of the same module); other
   * lines cannot be placed (the number alone does not say which file), so their share goes to
   * the function's own lines in proportion.
   */
  execLines(node: number): LineShare[] {
    const cached = this.execCache.get(node);
    if (cached) return cached;
    const shares = this.measuredSelfLines(node) ?? this.tickedLines(node);
    this.execCache.set(node, shares);
    return shares;
  }

  /**
   * Self time of a function that had other functions of the user's code inlined into it: V8's
   * position ticks then carry line numbers of other files (which may look like lines of this
   * one), so the captured stacks, which name every inlined frame, place the time instead.
   */
  private measuredSelfLines(node: number): LineShare[] | undefined {
    const seen = this.ctx.evidence?.selfOwner.get(node);
    if (!seen || seen.inlined.size === 0 || sum(seen.own) + sum(seen.inlined) < 3) return undefined;
    const fn = this.ctx.fnOfNode(node);
    const weights = new Map<string, number>();
    for (const [frame, w] of seen.own) this.addWeight(weights, this.frameLineKey(fn, frame), w);
    for (const [frame, w] of seen.inlined)
      this.addWeight(weights, this.frameLineKey(this.ctx.capturedFn[frame], frame), w);
    return normalise(weights);
  }

  private tickedLines(node: number): LineShare[] {
    const fn = this.ctx.fnOfNode(node);
    const frame = this.ctx.tree.frames[this.ctx.tree.nodeFrame[node]];
    const ticks = this.ctx.tree.positionTicks[node] ?? [];
    const scope = fn.scope;
    const placed: Array<{ line: number; ticks: number; inlined?: string }> = [];
    for (const t of ticks) {
      if (t.ticks <= 0) continue;
      if (!scope || scope.isProgram || (t.line >= scope.startLine && t.line <= scope.endLine)) {
        placed.push(t);
        continue;
      }
      const inlined = fn.index?.functionAtLine(t.line);
      if (inlined) placed.push({ ...t, inlined: inlined.name ?? '(inlined)' });
    }
    const total = placed.reduce((s, t) => s + t.ticks, 0);
    return total > 0
      ? placed.map((t) => ({ key: this.ctx.lineKey(fn, t.line, undefined, t.inlined), frac: t.ticks / total }))
      : [{ key: this.ctx.lineKey(fn, frame.line0 + 1, Math.max(frame.col0, 0)), frac: 1 }];
  }

  /** The line record of a captured frame, in function `fn` (the caller's, or the frame's own). */
  private frameLineKey(fn: FunctionInfo, frame: number): string {
    const f = this.ctx.stackFrames[frame];
    return this.ctx.lineKey(fn, f.line, Math.max(f.column - 1, 0), this.ctx.capturedFn[frame].name);
  }

  private addWeight(weights: Map<string, number>, key: string, w: number): void {
    weights.set(key, (weights.get(key) ?? 0) + w);
  }

  /** Edge evidence, or the same caller→callee pair's from every context when that has clearly more. */
  private edgeWeights(
    byNode: ReadonlyMap<number, FrameWeights>,
    byPair: ReadonlyMap<string, FrameWeights>,
    caller: number,
    child: number,
  ): FrameWeights | undefined {
    const own = byNode.get(child);
    const ownTicks = own ? sum(own) : 0;
    if (ownTicks >= MIN_EDGE_TICKS) return own;
    const pair = byPair.get(`${identityOf(this.ctx.fnOfNode(caller)).key}>${identityOf(this.ctx.fnOfNode(child)).key}`);
    if (pair && sum(pair) > ownTicks) return pair;
    return own;
  }

  /** The line of `caller` that called `child`, as the captured stacks measured it. */
  private measuredCallSite(caller: number, callerFn: FunctionInfo, child: number): CallSiteResolution | undefined {
    if (!this.ctx.evidence) return undefined;
    const weights = this.edgeWeights(this.ctx.evidence.callLine, this.ctx.evidence.callLineByPair, caller, child);
    if (!weights || weights.size === 0) return undefined;
    const byKey = new Map<string, number>();
    for (const [frame, w] of weights) this.addWeight(byKey, this.frameLineKey(callerFn, frame), w);
    // The call as written on each measured line (`zlib.gzipSync`), for hints that name it.
    const names = new Set(
      this.calleeChain(child).flatMap((n) =>
        callNamesFor(this.ctx.tree.frames[this.ctx.tree.nodeFrame[n]].functionName),
      ),
    );
    const written = new Map<string, string>();
    for (const call of callerFn.scope?.calls ?? []) {
      const key = this.ctx.lineKey(callerFn, call.line, call.column);
      if (!written.has(key) || call.names.some((n) => names.has(n))) written.set(key, call.calleeText);
    }
    return { shares: normalise(byKey).map((sh) => ({ ...sh, callee: written.get(sh.key) })), inferred: false };
  }

  /**
   * Who owns the samples below workspace node `caller` through its child `child`: the deepest
   * frame of the user's code in the captured stacks (a helper inlined into the caller shows
   * there and nowhere in the profile), else the calling line.
   */
  ownerShares(child: number): LineShare[] {
    const caller = this.ctx.tree.parent[child];
    if (this.ctx.evidence) {
      const weights = this.edgeWeights(this.ctx.evidence.owner, this.ctx.evidence.ownerByPair, caller, child);
      if (weights && weights.size > 0) {
        const byKey = new Map<string, number>();
        const callerFn = this.ctx.fnOfNode(caller);
        for (const [frame, w] of weights) {
          const frameFn = this.ctx.capturedFn[frame];
          const fn = identityOf(frameFn).key === identityOf(callerFn).key ? callerFn : frameFn;
          this.addWeight(byKey, this.frameLineKey(fn, frame), w);
        }
        return normalise(byKey);
      }
    }
    return this.callSite(child).shares;
  }

  /**
   * The line in workspace function `caller` (a node) that made the call to its child node
   * `child`. Exact when the child is native code (its position ticks are the caller's lines);
   * otherwise inferred from the caller's source: the call receiving a callback defined there, or
   * the calls whose callee name matches the child's (or, through wrappers, a deeper frame's).
   */
  callSite(child: number): CallSiteResolution {
    const cached = this.callSiteCache.get(child);
    if (cached) return cached;
    const caller = this.ctx.tree.parent[child];
    const callerFn = this.ctx.fnOfNode(caller);
    const childFrame = this.ctx.tree.frames[this.ctx.tree.nodeFrame[child]];
    const resolution = this.resolveCallSite(caller, callerFn, child, childFrame.url);
    this.callSiteCache.set(child, resolution);
    return resolution;
  }

  private resolveCallSite(caller: number, callerFn: FunctionInfo, child: number, childUrl: string): CallSiteResolution {
    const ticks = this.ctx.tree.positionTicks[child];
    if (childUrl === '' && ticks && ticks.length > 0) {
      const total = ticks.reduce((s, t) => s + t.ticks, 0);
      if (total > 0)
        return {
          shares: ticks.map((t) => ({ key: this.ctx.lineKey(callerFn, t.line), frac: t.ticks / total })),
          inferred: false,
        };
    }
    const measured = this.measuredCallSite(caller, callerFn, child);
    if (measured) return measured;
    const index = callerFn.index;
    const scope = callerFn.scope;
    if (index && scope) {
      const childFn = this.ctx.fnOfNode(child);
      if (childFn.index === index && childFn.scope) {
        const receiver = index.receivingCallOf(scope, childFn.scope);
        if (receiver) return this.sharesOf(callerFn, [receiver]);
      }
      for (const candidate of this.calleeChain(child)) {
        const names = callNamesFor(this.ctx.tree.frames[this.ctx.tree.nodeFrame[candidate]].functionName);
        if (names.length === 0) continue;
        const matches = scope.calls.filter((c) => c.names.some((name) => names.includes(name)));
        if (matches.length > 0) return this.sharesOf(callerFn, matches);
      }
      // No name fits (`module.exports = function …` is called as `jwt.sign()`): the calls into
      // the module the callee's file belongs to.
      const childFile = this.ctx.fnOfNode(child).file;
      const fromModule = scope.calls.filter((c) => c.module !== undefined && fileIsModule(childFile, c.module));
      if (fromModule.length > 0) return this.sharesOf(callerFn, fromModule);
    }
    // Nothing in the source says which line: the function's own line, flagged as a guess.
    const frame = this.ctx.tree.frames[this.ctx.tree.nodeFrame[caller]];
    return {
      shares: [{ key: this.ctx.lineKey(callerFn, frame.line0 + 1, Math.max(frame.col0, 0)), frac: 1 }],
      inferred: true,
    };
  }

  /** The child, then down its heaviest path a few frames (wrappers such as zlib's). */
  private calleeChain(child: number): number[] {
    const chain = [child];
    let node = child;
    for (let depth = 0; depth < 6; depth++) {
      const { childFrom, childList, subtreeUs } = this.ctx.tree;
      const from = childFrom[node];
      const to = childFrom[node + 1];
      if (from === to) break;
      // The first of the heaviest children.
      node = childList[from];
      for (let c = from + 1; c < to; c++) if (subtreeUs[childList[c]] > subtreeUs[node]) node = childList[c];
      if (this.ctx.isWorkspaceNode(node)) break;
      chain.push(node);
    }
    return chain;
  }

  /**
   * The calls in the caller's source that match the callee. One line: that line. Several lines
   * and nothing measured to tell them apart: one record "one of lines …" holds the time (a
   * line that may never have run gets no share of its own).
   */
  private sharesOf(callerFn: FunctionInfo, calls: readonly CallSite[]): CallSiteResolution {
    const byKey = new Map<string, CallSite>();
    for (const call of calls) {
      const key = this.ctx.lineKey(callerFn, call.line, call.column);
      if (!byKey.has(key)) byKey.set(key, call);
    }
    if (byKey.size === 1) {
      const [[key, call]] = byKey;
      return { shares: [{ key, frac: 1, callee: call.calleeText }], inferred: true };
    }
    const key = this.oneOfKey([...byKey.keys()].map((k) => this.ctx.lines.get(k)!));
    return { shares: [{ key, frac: 1, callee: calls[0].calleeText }], inferred: true };
  }

  /** A record for time that belongs to one of several lines of one function (which one, nothing measured). */
  private oneOfKey(candidates: LineAcc[]): string {
    const first = candidates.reduce((a, b) => (b.line < a.line ? b : a));
    const lines = [...new Set(candidates.map((c) => c.line))].sort((a, b) => a - b);
    const key = `${first.file}:${lines.join('|')}`;
    if (!this.ctx.lines.has(key)) {
      this.ctx.lines.set(key, {
        file: first.file,
        line: lines[0],
        fn: first.fn,
        ownUs: 0,
        selfUs: 0,
        totalUs: 0,
        callees: new Map(),
        generated: first.generated,
        oneOf: lines,
      });
    }
    return key;
  }
}

/** Which function a FunctionInfo is, for matching profile nodes with captured frames (see stacks.ts). */
export function identityOf(fn: FunctionInfo): Identity {
  const scope =
    fn.scope && !fn.scope.isProgram
      ? `@${fn.scope.start}`
      : fn.scope
        ? '@top'
        : `#${fn.name.slice(fn.name.lastIndexOf('.') + 1)}`;
  return {
    key: `${fn.generatedFile}\u0000${scope}`,
    workspace: fn.category === 'user',
    file: fn.category === 'native' ? '' : fn.generatedFile,
  };
}

function sum(weights: FrameWeights): number {
  let total = 0;
  for (const w of weights.values()) total += w;
  return total;
}

function normalise(weights: Map<string, number>): LineShare[] {
  let total = 0;
  for (const w of weights.values()) total += w;
  return [...weights].map(([key, w]) => ({ key, frac: w / total }));
}
