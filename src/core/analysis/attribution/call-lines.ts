// Which line of the user's code each piece of time belongs to: the line a function was
// executing (V8's position ticks, or the stack captures where other functions were inlined into
// it) and the line of a caller that made a call (measured by the captures, else read from the
// source, "one of lines …" when several calls could be it). Used by analysis/analyze.ts.
import type { ProfileTree } from '../../profile/index.ts';
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
  /** The original lines a generated line's columns [from, to) map to (sourcemaps.ts linesIn). */
  mapOriginals(generatedFile: string, line: number, from: number, to: number): readonly { generatedColumn: number }[];
  /** The line record for a generated position of a workspace function (analysis/analyze.ts). */
  lineKey(fn: FunctionInfo, rawLine: number, generatedColumn?: number, fnName?: string): string;
}

/** A share of some time that goes to one line. */
export interface LineShare {
  key: string;
  frac: number;
  /** The call as written at that line (`zlib.gzipSync`), when the share is a call site. */
  callee?: string;
  /** The function the line is in, when V8 inlined it into the node's own (its self time is that function's). */
  fn?: FunctionInfo;
}

export interface CallSiteResolution {
  shares: LineShare[];
  /** Read from the source rather than measured (a name match, or the function's own line). */
  inferred: boolean;
}

/** The captures that decided who owns the time below a child node (its own, or its caller→callee pair's). */
export interface OwnerPool {
  weights: FrameWeights;
  keyOfFrame: ReadonlyMap<number, string>;
  shares: readonly LineShare[];
}

/** Fewer captures inside a minified function's body than this: its time is "one of" its lines. */
const MIN_MINIFIED_CAPTURES = 10;

/** Captured frames of one function on a node's own samples (frame index → ticks). */
interface SeenFunction {
  fn: FunctionInfo;
  frames: Map<number, number>;
}

/** A function a position tick's line belongs to, and its share of that line's ticks. */
interface LineOwner extends SeenFunction {
  name: string;
  frac: number;
}

/** Below this many ticks on one edge, the same caller→callee pair's ticks from every context are used if there are more. */
const MIN_EDGE_TICKS = 20;

export class CallLines {
  private readonly execCache = new Map<number, LineShare[]>();
  private readonly callSiteCache = new Map<number, CallSiteResolution>();
  /** Per child node whose owners the captures decided: the ticks' pool used, and each frame's line. */
  readonly ownerPools = new Map<number, OwnerPool>();

  constructor(private readonly ctx: LineContext) {}

  /**
   * Where a workspace node's own samples were: V8's position ticks, which come from the program
   * counter of each sample. The stack captures never decide this line by themselves: a capture
   * lands only where V8 services an interrupt (a function's entry, a loop's back edge, the return
   * of a long native call), so its top frame is biased to those points (docs/attribution.md).
   * Captures only tell apart what the line number alone cannot: which function inlined into this
   * one a line belongs to (its number may be of another file), and which original line of a
   * minified line (see minifiedLine).
   */
  execLines(node: number): LineShare[] {
    const cached = this.execCache.get(node);
    if (cached) return cached;
    const shares = this.tickedLines(node);
    this.execCache.set(node, shares);
    return shares;
  }

  private tickedLines(node: number): LineShare[] {
    const fn = this.ctx.fnOfNode(node);
    const frame = this.ctx.tree.frames[this.ctx.tree.nodeFrame[node]];
    const seen = this.capturedSelf(node, fn);
    const weights = new Map<string, number>();
    const inlined = new Map<string, FunctionInfo>();
    const ownKey = identityOf(fn).key;
    for (const t of this.ctx.tree.positionTicks[node] ?? []) {
      if (t.ticks <= 0) continue;
      for (const owner of this.lineOwners(fn, t.line, seen))
        for (const share of this.linesOfTick(owner, t.line)) {
          this.addWeight(weights, share.key, t.ticks * owner.frac * share.frac);
          // A function the captures saw inlined here: the line's self time is its own.
          if (owner.fn !== fn && owner.fn.scope && identityOf(owner.fn).key !== ownKey)
            inlined.set(share.key, owner.fn);
        }
    }
    return weights.size > 0
      ? normalise(weights).map((s) => (inlined.has(s.key) ? { ...s, fn: inlined.get(s.key) } : s))
      : [{ key: this.ctx.lineKey(fn, frame.line0 + 1, Math.max(frame.col0, 0)), frac: 1 }];
  }

  /**
   * The captured top frames of the user's code on a node's own samples, by function: the node's
   * own, or one inlined into it (a recursive function inlined into itself is the same function).
   */
  private capturedSelf(node: number, fn: FunctionInfo): Map<string, SeenFunction> {
    const byFn = new Map<string, SeenFunction>();
    const seen = this.ctx.evidence?.selfOwner.get(node);
    if (!seen) return byFn;
    const ownKey = identityOf(fn).key;
    for (const weights of [seen.own, seen.inlined])
      for (const [frame, w] of weights) {
        const frameFn = this.ctx.capturedFn[frame];
        const key = identityOf(frameFn).key;
        let entry = byFn.get(key);
        if (!entry) byFn.set(key, (entry = { fn: key === ownKey ? fn : frameFn, frames: new Map() }));
        entry.frames.set(frame, (entry.frames.get(frame) ?? 0) + w);
      }
    return byFn;
  }

  /**
   * Which function a position tick's line is in. The node's own range, a function inlined into it
   * whose range holds the line (seen in the captures), else a function of the same file at that
   * line. When several could be it, the captures that landed on that line (not at a function's
   * entry) split it; failing those, all captures of each.
   */
  private lineOwners(fn: FunctionInfo, line: number, seen: ReadonlyMap<string, SeenFunction>): LineOwner[] {
    const ownKey = identityOf(fn).key;
    const own = seen.get(ownKey) ?? { fn, frames: new Map<number, number>() };
    const candidates: SeenFunction[] = [];
    if (holdsLine(fn, line)) candidates.push(own);
    for (const [key, s] of seen)
      if (key !== ownKey && s.fn.scope && !s.fn.scope.isProgram && holdsLine(s.fn, line)) candidates.push(s);
    if (candidates.length === 0) {
      const inlined = fn.index?.functionAtLine(line);
      return inlined ? [{ fn, name: inlined.name ?? '(inlined)', frac: 1, frames: new Map() }] : [];
    }
    if (candidates.length === 1) return [{ ...candidates[0], name: candidates[0].fn.name, frac: 1 }];
    const onLine = candidates.map((c) => this.capturesInBodyOnLine(c, line));
    const anyOnLine = onLine.some((w) => w > 0);
    const weights = anyOnLine ? onLine : candidates.map((c) => sum(c.frames));
    const total = weights.reduce((a, b) => a + b, 0);
    return candidates.map((c, i) => ({
      ...c,
      name: c.fn.name,
      frac: total > 0 ? weights[i] / total : c === own ? 1 : 0,
    }));
  }

  /** Captures of function `s` on a generated line, those at its entry (its head, where every call lands) left out. */
  private capturesInBodyOnLine(s: SeenFunction, line: number): number {
    let n = 0;
    for (const [frame, w] of s.frames) {
      const f = this.ctx.stackFrames[frame];
      if (f.line !== line || (s.fn.scope && s.fn.index?.inHead(s.fn.scope, f.line, f.column - 1))) continue;
      n += w;
    }
    return n;
  }

  /**
   * The line record(s) of a position tick's generated line in function `owner`. A line of a
   * minified script (the function's code on one generated line that maps back to several lines)
   * is ambiguous: see minifiedLine.
   */
  private linesOfTick(owner: LineOwner, line: number): LineShare[] {
    const { fn, name } = owner;
    const scope = fn.scope;
    if (scope && fn.index && scope.startLine === scope.endLine) {
      const { from, to } = fn.index.columnsOn(scope, line);
      const originals = this.ctx.mapOriginals(fn.generatedFile, line, from, to);
      if (originals.length === 1)
        return [{ key: this.ctx.lineKey(fn, line, originals[0].generatedColumn, name), frac: 1 }];
      if (originals.length > 1) return this.minifiedLine(owner, line, originals);
    }
    return [{ key: this.ctx.lineKey(fn, line, undefined, name), frac: 1 }];
  }

  /**
   * A minified line: V8 gives the line, not the column, so the program counter cannot tell the
   * original lines apart. Captures that landed inside the function's body (a loop's back edge, the
   * return of a native call; not its entry, where every call lands) place it when there are enough
   * of them; else the time goes to one record "one of lines …", never to a line it may not be on.
   */
  private minifiedLine(owner: LineOwner, line: number, originals: readonly { generatedColumn: number }[]): LineShare[] {
    const { fn, name } = owner;
    const weights = new Map<string, number>();
    for (const [frame, w] of owner.frames) {
      const f = this.ctx.stackFrames[frame];
      if (f.line !== line || (fn.scope && fn.index?.inHead(fn.scope, f.line, f.column - 1))) continue;
      this.addWeight(weights, this.ctx.lineKey(fn, f.line, Math.max(f.column - 1, 0), name), w);
    }
    let total = 0;
    for (const w of weights.values()) total += w;
    if (total >= MIN_MINIFIED_CAPTURES) return normalise(weights);
    const keys = originals.map((o) => this.ctx.lineKey(fn, line, o.generatedColumn, name));
    const candidates = [...new Set(keys)].map((k) => this.ctx.lines.get(k)!);
    return [{ key: candidates.length === 1 ? keys[0] : this.oneOfKey(candidates), frac: 1 }];
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
        const keyOfFrame = new Map<number, string>();
        const callerFn = this.ctx.fnOfNode(caller);
        for (const [frame, w] of weights) {
          const frameFn = this.ctx.capturedFn[frame];
          const fn = identityOf(frameFn).key === identityOf(callerFn).key ? callerFn : frameFn;
          const key = this.frameLineKey(fn, frame);
          keyOfFrame.set(frame, key);
          this.addWeight(byKey, key, w);
        }
        const shares = normalise(byKey);
        this.ownerPools.set(child, { weights, keyOfFrame, shares });
        return shares;
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
    if (childUrl === '' && ticks && ticks.length > 0 && callLinesOf(callerFn, ticks)) {
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

/**
 * A native's position ticks are lines of the JS function that called it. When V8 inlined that
 * function (Node's `scryptSync` wrapper) into the user's, the native hangs under the user's frame
 * with the wrapper's line numbers: no lines of the user's function, and read as such they put time
 * on lines that may never have run. They are the calling lines only when each is a line of the
 * caller's own code that makes a call (or when the caller's source is not at hand to tell).
 */
function callLinesOf(callerFn: FunctionInfo, ticks: readonly { line: number; ticks: number }[]): boolean {
  const scope = callerFn.scope;
  if (!scope) return true;
  return ticks.every(
    (t) => t.ticks <= 0 || (holdsLine(callerFn, t.line) && scope.calls.some((c) => c.line === t.line)),
  );
}

/** A 1-based generated line is inside the function (the top level holds every line). */
function holdsLine(fn: FunctionInfo, line: number): boolean {
  const scope = fn.scope;
  return !scope || scope.isProgram || (line >= scope.startLine && line <= scope.endLine);
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
