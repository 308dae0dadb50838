// The analysis: a CPU profile + the workspace's sources → who spent the time, per function
// and per line of the user's code, and which hints apply. Pure: sources and maps come in as data.
// How time is counted is in design.md ("How time is counted"); the comments below say where.
import type { CpuProfile } from './cpuprofile.ts';
import { buildProfileTree, type ProfileTree } from './profile.ts';
import { CATEGORIES, HOTLINE_SCRIPT_PREFIX, Workspace, categoryOf, fileOfUrl } from './categories.ts';
import { SourceMapper, type SourceMapInput } from './sourcemaps.ts';
import { ScriptIndex, callNamesFor, fileIsModule, type CallSite } from './callsites.ts';
import { FRAME_RULES, GC_FIX, GC_HINT_MIN_PCT, HINT_MIN_PCT, LINE_RULES, gcHintMessage, hintMessage } from './hints.ts';
import {
  buildStackEvidence,
  type FrameWeights,
  type Identity,
  type StackCapturesInput,
  type StackEvidence,
} from './stacks.ts';
import type { Analysis, CategoryTimes, Hint, LineCost } from './model.ts';
import { buildTimeline, type TimelineV1 } from './timeline.ts';
import { functionCosts, lineCosts, ms, pct, type FunctionInfo, type LineAcc } from './costs.ts';

export interface AnalyzeInput {
  profile: CpuProfile;
  /** The app's folder: its files outside node_modules are "your code". */
  root: string;
  /** Text of scripts and original sources by absolute path. Missing ones degrade gracefully. */
  sources?: ReadonlyMap<string, string>;
  sourceMaps?: Iterable<SourceMapInput>;
  /**
   * Stack captures of the same window (stacks.json): exact lines of every frame at random ticks,
   * each tied to a sample. Without them calling lines are read from the source, and a callee
   * called from several lines is "one of" them, never split.
   */
  stacks?: StackCapturesInput;
  limits?: { functions?: number; lines?: number };
}

/** A share of some time that goes to one line. */
interface LineShare {
  key: string;
  frac: number;
  /** The call as written at that line (`zlib.gzipSync`), when the share is a call site. */
  callee?: string;
}

interface CallSiteResolution {
  shares: LineShare[];
  /** Read from the source rather than measured (a name match, or the function's own line). */
  inferred: boolean;
}

/** Below this many ticks on one edge, the same caller→callee pair's ticks from every context are used if there are more. */
const MIN_EDGE_TICKS = 20;

export function analyzeProfile(input: AnalyzeInput): Analysis {
  return new Analyzer(input).run();
}

/** The analysis and its samples in time, attributed the same way (for the heat map; see timeline.ts). */
export function analyzeProfileWithTimeline(input: AnalyzeInput): { analysis: Analysis; timeline?: TimelineV1 } {
  const analyzer = new Analyzer(input);
  const analysis = analyzer.run();
  return { analysis, timeline: analyzer.timeline() };
}

class Analyzer {
  private readonly tree: ProfileTree;
  private readonly workspace: Workspace;
  private readonly notes: string[] = [];
  private readonly mapper: SourceMapper;
  private readonly sources: ReadonlyMap<string, string>;
  private readonly indexes = new Map<string, ScriptIndex | undefined>();
  /** Per frame: the function it is, after source mapping (frames can share one). */
  private readonly frameFn: Int32Array;
  private readonly fns: FunctionInfo[] = [];
  private readonly lines = new Map<string, LineAcc>();
  private readonly execCache = new Map<number, LineShare[]>();
  private readonly callSiteCache = new Map<number, CallSiteResolution>();
  /** Per node: the lines its self time is own time of (see ownTime). */
  private owners: LineShare[][] = [];
  /** The stack captures laid over the tree, when the run has them (see stacks.ts). */
  private readonly evidence: StackEvidence | undefined;
  private readonly capturedFn: FunctionInfo[] = [];

  constructor(private readonly input: AnalyzeInput) {
    this.tree = buildProfileTree(input.profile);
    this.workspace = new Workspace(input.root);
    this.sources = input.sources ?? new Map();
    this.mapper = new SourceMapper(input.sourceMaps ?? [], this.workspace, this.notes);
    this.frameFn = new Int32Array(this.tree.frames.length);
    const byKey = new Map<string, number>();
    this.tree.frames.forEach((frame, f) => {
      const info = this.describe(frame.functionName, frame.url, frame.line0, frame.col0);
      const key = `${info.name}\u0000${info.file}\u0000${info.line}\u0000${info.column}`;
      let fi = byKey.get(key);
      if (fi === undefined) {
        fi = this.fns.length;
        byKey.set(key, fi);
        this.fns.push(info);
      }
      this.frameFn[f] = fi;
    });
    const stacks = input.stacks;
    if (stacks && stacks.ticks.length > 0) {
      this.capturedFn = stacks.frames.map((f) => this.describe(f.functionName, f.url, f.line - 1, f.column - 1, true));
      this.evidence = buildStackEvidence(
        this.tree,
        stacks,
        (node) => identityOf(this.fnOfNode(node)),
        (frame) => identityOf(this.capturedFn[frame]),
      );
      const used = this.evidence.aligned + this.evidence.misaligned;
      if (used > 0 && this.evidence.misaligned > used / 2) {
        this.notes.push(
          `Only ${this.evidence.aligned} of ${used} stack captures matched the profile: calling lines fall back to reading the source.`,
        );
      }
    }
  }

  run(): Analysis {
    const t = this.tree;
    const n = t.parent.length;
    const categories = Object.fromEntries(CATEGORIES.map((c) => [c, 0])) as CategoryTimes;
    // What runs under Hotline's own scripts (the stack captures' natives too) is the profiler's cost.
    const ours = new Uint8Array(n);
    for (let k = 0; k < n; k++) {
      const i = t.preorder[k];
      ours[i] =
        this.fnOfNode(i).generatedFile.startsWith(HOTLINE_SCRIPT_PREFIX) ||
        (t.parent[i] >= 0 && ours[t.parent[i]] === 1)
          ? 1
          : 0;
      categories[ours[i] ? 'program' : this.fnOfNode(i).category] += t.selfUs[i];
    }
    const nonIdleUs = t.weightedUs - categories.idle;

    const fnSelf = new Float64Array(this.fns.length);
    for (let i = 0; i < n; i++) fnSelf[this.frameFn[t.nodeFrame[i]]] += t.selfUs[i];
    const { fnTotal, edges } = this.functionTotalsAndLineTotals();
    this.ownTime();
    const hints = this.hints(nonIdleUs, categories);

    const limits = this.input.limits ?? {};
    const functions = functionCosts(this.fns, { fnSelf, fnTotal, edges }, nonIdleUs, limits.functions ?? 300, (file) =>
      this.mapper.has(file),
    );
    const lines = lineCosts(this.lines.values(), this.fns, nonIdleUs, limits.lines ?? 2000);
    for (const c of CATEGORIES) categories[c] = ms(categories[c]);
    const changed = this.changedFiles();
    const current = (file: string): boolean => !changed.has(file);
    return {
      durationMs: ms(t.durationUs),
      samples: t.sampleCount,
      intervalUs: Math.round(t.intervalUs),
      nonIdleMs: ms(nonIdleUs),
      categories,
      // Hotline's own capture scripts are the profiler's cost (counted as program), nobody's function.
      functions: functions.filter((f) => current(f.file) && !f.file.startsWith(HOTLINE_SCRIPT_PREFIX)),
      lines: lines
        .filter((l) => current(l.file) && (!l.generated || current(l.generated.file)))
        .map((l) => this.withCode(l)),
      hints: hints.filter((h) => current(h.file)),
      notes: this.notes,
    };
  }

  /** The line with its code (for matching it in a later run: compare.ts), when the source is at hand. */
  private withCode(l: LineCost): LineCost {
    if (l.oneOf) return l;
    const code = this.sourceLines(l.file)?.[l.line - 1]?.trim();
    return code ? { ...l, code: code.length > 160 ? code.slice(0, 160) : code } : l;
  }

  private readonly splitSources = new Map<string, string[] | undefined>();

  private sourceLines(file: string): string[] | undefined {
    if (!this.splitSources.has(file)) this.splitSources.set(file, this.sources.get(file)?.split('\n'));
    return this.splitSources.get(file);
  }

  /**
   * Files whose text is not the one the profile ran: a function's call frame is no function head
   * in it (lines were added or removed since). Their costs would land on the wrong lines, so
   * they are left out, with a note (a run's own sources.json gives the right text, see sources.ts).
   */
  private changedFiles(): Set<string> {
    const changed = new Set<string>();
    for (const fn of this.fns) {
      if (!fn.stale || changed.has(fn.generatedFile)) continue;
      changed.add(fn.generatedFile);
      for (const other of this.fns) if (other.generatedFile === fn.generatedFile) changed.add(other.file);
      this.notes.push(
        `${fn.generatedFile} is not the text this profile ran (it changed since: \`${fn.name}\` no longer starts at line ${fn.line}): its costs are not shown, they would land on the wrong lines.`,
      );
    }
    return changed;
  }

  // ---- functions and frames -------------------------------------------------------------

  private describe(
    functionName: string,
    url: string,
    line0: number,
    col0: number,
    isCapturedFrame = false,
  ): FunctionInfo {
    const generatedFile = fileOfUrl(url);
    let file = generatedFile;
    let line = line0 >= 0 ? line0 + 1 : 0;
    let column = Math.max(col0, 0);
    if (line0 >= 0) {
      const original = this.mapper.at(generatedFile, line0 + 1, column);
      if (original) ({ file, line, column } = original);
    }
    const category = categoryOf(functionName, url, file, this.workspace);
    const info: FunctionInfo = { name: functionName || '(anonymous)', file, line, column, category, generatedFile };
    if (category === 'user' && line0 >= 0) {
      info.index = this.indexOf(generatedFile);
      info.scope = info.index?.functionAt(line0, col0);
      if (info.index && info.scope && !isCapturedFrame && !info.index.isFunctionHead(info.scope, line0, col0))
        info.stale = true;
      if (functionName === '' && info.scope) {
        info.name = info.scope.isProgram ? '(top level)' : (info.index?.anonymousName(info.scope) ?? info.name);
      }
    }
    return info;
  }

  private indexOf(file: string): ScriptIndex | undefined {
    if (!this.indexes.has(file)) {
      const text = this.sources.get(file);
      const index = text === undefined ? undefined : ScriptIndex.parse(text);
      if (text === undefined) this.notes.push(`No source for ${file}: its call sites are not resolved.`);
      else if (!index) this.notes.push(`Could not parse ${file}: its call sites are not resolved.`);
      this.indexes.set(file, index);
    }
    return this.indexes.get(file);
  }

  private fnOfNode(node: number): FunctionInfo {
    return this.fns[this.frameFn[this.tree.nodeFrame[node]]];
  }

  private isWorkspaceNode(node: number): boolean {
    return this.fnOfNode(node).category === 'user';
  }

  // ---- lines ----------------------------------------------------------------------------

  /** The line record for a generated position of a workspace function, mapped when a map exists. */
  private lineKey(fn: FunctionInfo, rawLine: number, generatedColumn?: number, fnName = fn.name): string {
    // A workspace frame without a valid position (V8's -1, or a corrupt -5) has line 0, "unknown",
    // as native code does: never a negative line for the editor.
    const generatedLine = rawLine >= 0 ? rawLine : 0;
    let file = fn.generatedFile;
    let line = generatedLine;
    let generated: LineAcc['generated'];
    // A whole line (position ticks have no column) maps from its first non-blank character:
    // bundlers often open an indented line with a segment that continues the previous one.
    const column =
      generatedColumn ?? (this.mapper.has(fn.generatedFile) ? fn.index?.firstCodeColumn(generatedLine) : undefined);
    const original =
      column === undefined
        ? this.mapper.line(fn.generatedFile, generatedLine)
        : this.mapper.at(fn.generatedFile, generatedLine, column);
    if (original) {
      file = original.file;
      line = original.line;
      generated = { file: fn.generatedFile, line: generatedLine };
    } else if (this.mapper.has(fn.generatedFile)) {
      // A mapped script whose line has no mapping: keep it on the function's own line.
      file = fn.file;
      line = fn.line;
      generated = { file: fn.generatedFile, line: generatedLine };
    }
    const key = `${file}:${line}`;
    if (!this.lines.has(key)) {
      this.lines.set(key, { file, line, fn: fnName, ownUs: 0, selfUs: 0, totalUs: 0, callees: new Map(), generated });
    }
    return key;
  }

  /**
   * Where a workspace node's own samples were, from V8's position ticks. Ticks on lines outside
   * the function come from code V8 inlined into it. A line inside another function of the same
   * file is taken as that function inlined (the usual case: a helper of the same module); other
   * lines cannot be placed (the number alone does not say which file), so their share goes to
   * the function's own lines in proportion.
   */
  private execLines(node: number): LineShare[] {
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
    const seen = this.evidence?.selfOwner.get(node);
    if (!seen || seen.inlined.size === 0 || sum(seen.own) + sum(seen.inlined) < 3) return undefined;
    const fn = this.fnOfNode(node);
    const weights = new Map<string, number>();
    for (const [frame, w] of seen.own) this.addWeight(weights, this.frameLineKey(fn, frame), w);
    for (const [frame, w] of seen.inlined) this.addWeight(weights, this.frameLineKey(this.capturedFn[frame], frame), w);
    return normalise(weights);
  }

  private tickedLines(node: number): LineShare[] {
    const fn = this.fnOfNode(node);
    const frame = this.tree.frames[this.tree.nodeFrame[node]];
    const ticks = this.tree.positionTicks[node] ?? [];
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
      ? placed.map((t) => ({ key: this.lineKey(fn, t.line, undefined, t.inlined), frac: t.ticks / total }))
      : [{ key: this.lineKey(fn, frame.line0 + 1, Math.max(frame.col0, 0)), frac: 1 }];
  }

  /** The line record of a captured frame, in function `fn` (the caller's, or the frame's own). */
  private frameLineKey(fn: FunctionInfo, frame: number): string {
    const f = this.input.stacks!.frames[frame];
    return this.lineKey(fn, f.line, Math.max(f.column - 1, 0), this.capturedFn[frame].name);
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
    const pair = byPair.get(`${identityOf(this.fnOfNode(caller)).key}>${identityOf(this.fnOfNode(child)).key}`);
    if (pair && sum(pair) > ownTicks) return pair;
    return own;
  }

  /** The line of `caller` that called `child`, as the captured stacks measured it. */
  private measuredCallSite(caller: number, callerFn: FunctionInfo, child: number): CallSiteResolution | undefined {
    if (!this.evidence) return undefined;
    const weights = this.edgeWeights(this.evidence.callLine, this.evidence.callLineByPair, caller, child);
    if (!weights || weights.size === 0) return undefined;
    const byKey = new Map<string, number>();
    for (const [frame, w] of weights) this.addWeight(byKey, this.frameLineKey(callerFn, frame), w);
    return { shares: normalise(byKey), inferred: false };
  }

  /**
   * Who owns the samples below workspace node `caller` through its child `child`: the deepest
   * frame of the user's code in the captured stacks (a helper inlined into the caller shows
   * there and nowhere in the profile), else the calling line.
   */
  private ownerShares(child: number): LineShare[] {
    const caller = this.tree.parent[child];
    if (this.evidence) {
      const weights = this.edgeWeights(this.evidence.owner, this.evidence.ownerByPair, caller, child);
      if (weights && weights.size > 0) {
        const byKey = new Map<string, number>();
        const callerFn = this.fnOfNode(caller);
        for (const [frame, w] of weights) {
          const frameFn = this.capturedFn[frame];
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
  private callSite(child: number): CallSiteResolution {
    const cached = this.callSiteCache.get(child);
    if (cached) return cached;
    const caller = this.tree.parent[child];
    const callerFn = this.fnOfNode(caller);
    const childFrame = this.tree.frames[this.tree.nodeFrame[child]];
    const resolution = this.resolveCallSite(caller, callerFn, child, childFrame.url);
    this.callSiteCache.set(child, resolution);
    return resolution;
  }

  private resolveCallSite(caller: number, callerFn: FunctionInfo, child: number, childUrl: string): CallSiteResolution {
    const ticks = this.tree.positionTicks[child];
    if (childUrl === '' && ticks && ticks.length > 0) {
      const total = ticks.reduce((s, t) => s + t.ticks, 0);
      if (total > 0)
        return {
          shares: ticks.map((t) => ({ key: this.lineKey(callerFn, t.line), frac: t.ticks / total })),
          inferred: false,
        };
    }
    const measured = this.measuredCallSite(caller, callerFn, child);
    if (measured) return measured;
    const index = callerFn.index;
    const scope = callerFn.scope;
    if (index && scope) {
      const childFn = this.fnOfNode(child);
      if (childFn.index === index && childFn.scope) {
        const receiver = index.receivingCallOf(scope, childFn.scope);
        if (receiver) return this.sharesOf(callerFn, [receiver]);
      }
      for (const candidate of this.calleeChain(child)) {
        const names = callNamesFor(this.tree.frames[this.tree.nodeFrame[candidate]].functionName);
        if (names.length === 0) continue;
        const matches = scope.calls.filter((c) => c.names.some((name) => names.includes(name)));
        if (matches.length > 0) return this.sharesOf(callerFn, matches);
      }
      // No name fits (`module.exports = function …` is called as `jwt.sign()`): the calls into
      // the module the callee's file belongs to.
      const childFile = this.fnOfNode(child).file;
      const fromModule = scope.calls.filter((c) => c.module !== undefined && fileIsModule(childFile, c.module));
      if (fromModule.length > 0) return this.sharesOf(callerFn, fromModule);
    }
    // Nothing in the source says which line: the function's own line, flagged as a guess.
    const frame = this.tree.frames[this.tree.nodeFrame[caller]];
    return {
      shares: [{ key: this.lineKey(callerFn, frame.line0 + 1, Math.max(frame.col0, 0)), frac: 1 }],
      inferred: true,
    };
  }

  /** The child, then down its heaviest path a few frames (wrappers such as zlib's). */
  private calleeChain(child: number): number[] {
    const chain = [child];
    let node = child;
    for (let depth = 0; depth < 6; depth++) {
      const kids = this.tree.children[node];
      if (kids.length === 0) break;
      node = kids.reduce((a, b) => (this.tree.subtreeUs[b] > this.tree.subtreeUs[a] ? b : a));
      if (this.isWorkspaceNode(node)) break;
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
      const key = this.lineKey(callerFn, call.line, call.column);
      if (!byKey.has(key)) byKey.set(key, call);
    }
    if (byKey.size === 1) {
      const [[key, call]] = byKey;
      return { shares: [{ key, frac: 1, callee: call.calleeText }], inferred: true };
    }
    const key = this.oneOfKey([...byKey.keys()].map((k) => this.lines.get(k)!));
    return { shares: [{ key, frac: 1, callee: calls[0].calleeText }], inferred: true };
  }

  /** A record for time that belongs to one of several lines of one function (which one, nothing measured). */
  private oneOfKey(candidates: LineAcc[]): string {
    const first = candidates.reduce((a, b) => (b.line < a.line ? b : a));
    const lines = [...new Set(candidates.map((c) => c.line))].sort((a, b) => a - b);
    const key = `${first.file}:${lines.join('|')}`;
    if (!this.lines.has(key)) {
      this.lines.set(key, {
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

  // ---- the passes -----------------------------------------------------------------------

  /**
   * One depth-first walk. A function's total counts each sample once however often the
   * function recurses on the stack; a line's total likewise (its own ticks plus calls made
   * from it). Call edges are summed for callers/callees.
   */
  private functionTotalsAndLineTotals(): { fnTotal: Float64Array; edges: Map<number, Map<number, number>> } {
    const t = this.tree;
    const fnTotal = new Float64Array(this.fns.length);
    const fnOnPath = new Int32Array(this.fns.length);
    /** How often a line, a call edge or a line→callee link is on the current path. */
    const onPath = new Map<string, number>();
    const edges = new Map<number, Map<number, number>>();
    const stack: Array<{ node: number; exit: boolean; keys?: string[] }> = [{ node: t.root, exit: false }];
    while (stack.length > 0) {
      const item = stack.pop()!;
      const node = item.node;
      const fi = this.frameFn[t.nodeFrame[node]];
      if (item.exit) {
        fnOnPath[fi]--;
        for (const key of item.keys ?? []) onPath.set(key, onPath.get(key)! - 1);
        continue;
      }
      // Recursion: a function already on the stack neither adds to its total nor to its callers'.
      if (fnOnPath[fi]++ === 0) fnTotal[fi] += t.subtreeUs[node];
      const parent = t.parent[node];
      const keys: string[] = [];
      if (parent >= 0) {
        const pfi = this.frameFn[t.nodeFrame[parent]];
        const edgeKey = `${pfi}>${fi}`;
        const edgeSeen = onPath.get(edgeKey) ?? 0;
        if (edgeSeen === 0) {
          const out = edges.get(pfi) ?? new Map<number, number>();
          out.set(fi, (out.get(fi) ?? 0) + t.subtreeUs[node]);
          edges.set(pfi, out);
        }
        onPath.set(edgeKey, edgeSeen + 1);
        keys.push(edgeKey);
        if (this.isWorkspaceNode(parent) && t.subtreeUs[node] > 0) {
          const site = this.callSite(node);
          for (const share of site.shares) {
            const acc = this.lines.get(share.key)!;
            const us = t.subtreeUs[node] * share.frac;
            const lineSeen = onPath.get(share.key) ?? 0;
            if (lineSeen === 0) acc.totalUs += us;
            onPath.set(share.key, lineSeen + 1);
            keys.push(share.key);
            const calleeKey = `${share.key}>${fi}`;
            const calleeSeen = onPath.get(calleeKey) ?? 0;
            if (calleeSeen === 0) {
              const callee = acc.callees.get(fi) ?? { us: 0, inferred: site.inferred };
              callee.us += us;
              acc.callees.set(fi, callee);
            }
            onPath.set(calleeKey, calleeSeen + 1);
            keys.push(calleeKey);
          }
        }
      }
      if (this.isWorkspaceNode(node) && t.selfUs[node] > 0) {
        for (const share of this.execLines(node)) {
          const acc = this.lines.get(share.key)!;
          acc.selfUs += t.selfUs[node] * share.frac;
          if (!onPath.get(share.key)) acc.totalUs += t.selfUs[node] * share.frac;
        }
      }
      stack.push({ node, exit: true, keys });
      const kids = t.children[node];
      for (let c = kids.length - 1; c >= 0; c--) stack.push({ node: kids[c], exit: false });
    }
    return { fnTotal, edges };
  }

  /**
   * Own time: every sample goes to exactly one line of workspace code, the deepest workspace
   * frame on its stack, at the line it was executing (top frame) or calling from (below it).
   */
  private ownTime(): void {
    const t = this.tree;
    const n = t.parent.length;
    // edge[i]: for a node below workspace code, the child of its nearest workspace ancestor on
    // the path to it (the call that ancestor made); -1 for workspace nodes and unowned nodes.
    const edge = new Int32Array(n).fill(-1);
    this.owners = new Array<LineShare[]>(n);
    for (let k = 0; k < n; k++) {
      const i = t.preorder[k];
      const p = t.parent[i];
      const workspace = this.isWorkspaceNode(i);
      if (!workspace && p >= 0) edge[i] = this.isWorkspaceNode(p) ? i : edge[p];
      // Only nodes with samples need their lines resolved (and resolving costs source look-ups).
      this.owners[i] =
        t.selfUs[i] <= 0 ? [] : workspace ? this.execLines(i) : edge[i] >= 0 ? this.ownerShares(edge[i]) : [];
      for (const s of this.owners[i]) this.lines.get(s.key)!.ownUs += t.selfUs[i] * s.frac;
    }
  }

  /** The samples in time with the categories and own lines used above; call after run(). */
  timeline(): TimelineV1 | undefined {
    const hasSamples = (this.input.profile.samples?.length ?? 0) > 0;
    return buildTimeline(this.tree, hasSamples, (node) => ({
      category: this.fnOfNode(node).category,
      owners: (this.owners[node] ?? []).map((s) => {
        const l = this.lines.get(s.key)!;
        return { line: { file: l.file, line: l.line, function: l.fn }, frac: s.frac };
      }),
    }));
  }

  private hints(nonIdleUs: number, categories: CategoryTimes): Hint[] {
    const t = this.tree;
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
        edge[i] = this.isWorkspaceNode(i) ? -1 : this.isWorkspaceNode(p) ? i : edge[p];
        ruleAbove[i] = ruleAbove[p];
      }
      if (ruleAbove[i] !== undefined || edge[i] < 0) continue;
      const frame = t.frames[t.nodeFrame[i]];
      const fnInfo = this.fnOfNode(i);
      for (let r = 0; r < FRAME_RULES.length; r++) {
        const api = FRAME_RULES[r].match(frame, fnInfo.file);
        if (api === undefined) continue;
        ruleAbove[i] = r;
        const site = this.callSite(edge[i]);
        const caller = this.fnOfNode(t.parent[edge[i]]);
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
      const line = this.lines.get(e.key)!;
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
    for (const line of this.lines.values()) {
      const share = pct(line.selfUs, nonIdleUs);
      if (share < HINT_MIN_PCT) continue;
      const text = this.sources.get(line.file)?.split('\n', line.line)[line.line - 1] ?? '';
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
}

/** Which function a FunctionInfo is, for matching profile nodes with captured frames (see stacks.ts). */
function identityOf(fn: FunctionInfo): Identity {
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
