// The analysis: a CPU profile + the workspace's sources → who spent the time, per function
// and per line of the user's code, and which hints apply. Pure: sources and maps come in as data.
// How time is counted is in docs/architecture.md ("How time is counted"); the comments below say where.
import {
  buildProfileTree,
  type CpuProfile,
  fileOfUrl,
  HOTLINE_SCRIPT_PREFIX,
  MAX_SAMPLE_WEIGHT,
  type ProfileTree,
  withoutOwnFrames,
} from '../profile/index.ts';
import { CATEGORIES, Workspace, categoryOf } from './attribution/categories.ts';
import { packedLine, SourceMapper, type SourceMapInput } from './attribution/sourcemaps.ts';
import { ScriptIndex } from './attribution/callsites.ts';
import { CallLines, identityOf, type LineShare } from './attribution/call-lines.ts';
import { findHints } from './hints/find-hints.ts';
import { buildStackEvidence, type StackCapturesInput, type StackEvidence } from './attribution/stacks.ts';
import type { Analysis, CategoryTimes, LineCost } from './model.ts';
import { buildTimeline, timelineJsonFits, timelineSurelyTooLong, type TimelineV1 } from './time/timeline.ts';
import { functionCosts, lineCosts, ms, type FunctionInfo, type LineAcc } from './attribution/costs.ts';
import { lineAndFunctionIntervals } from './time/line-intervals.ts';
import { SelfFunctions, type FunctionShare } from './attribution/self-functions.ts';
import { pathToFileURL } from 'node:url';

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
  /**
   * The profile is the analysis's to use up (analyzeFile read it for this): its Int32Array of
   * samples becomes the node of each sample and then the timeline's kind of each, in place —
   * two fewer arrays of millions. The profile's `samples` are not ids after the analysis, and its
   * `nodes` are emptied once the tree holds what the analysis needs of them.
   */
  consumeSamples?: boolean;
}

export function analyzeProfile(input: AnalyzeInput): Analysis {
  return new Analyzer(input).run();
}

/**
 * The analysis and its samples in time, attributed the same way (for the heat map; see
 * time/timeline.ts). A timeline whose JSON would be more than `maxTimelineChars` (more than one string
 * holds: the report page could not read it back) is left out, with a note, and is not built when
 * its durations alone say so (~127 M samples, a 2 GB profile: a second or more saved).
 */
export function analyzeProfileWithTimeline(
  input: AnalyzeInput,
  maxTimelineChars = Infinity,
): { analysis: Analysis; timeline?: TimelineV1 } {
  const analyzer = new Analyzer(input);
  const analysis = analyzer.run();
  const timeline = analyzer.timeline(maxTimelineChars);
  if (timeline === 'too long')
    analysis.notes.push(
      `No heat map: the timeline of ${input.profile.samples?.length ?? 0} samples would be more JSON than one JavaScript string holds (~512 MiB).`,
    );
  return { analysis, timeline: timeline === 'too long' ? undefined : timeline };
}

/** The owners of a node with none: one shared list, not an empty array per node (millions in a big profile). */
const NO_SHARES: ReadonlyArray<LineShare> = Object.freeze([]);

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
  /** Per node: the lines its self time is own time of (see ownTime). */
  private owners: ReadonlyArray<LineShare>[] = [];
  /** Per node: the child node whose captures gave its owners (ownerShares), -1 when none. */
  private ownerEdge = new Int32Array(0);
  /** Per workspace node whose lines include an inlined callee's: its self time by function (attribution/self-functions.ts). */
  private selfShares = new Map<number, FunctionShare[]>();
  /** The stack captures laid over the tree, when the run has them (see attribution/stacks.ts). */
  private readonly evidence: StackEvidence | undefined;
  private readonly capturedFn: FunctionInfo[] = [];
  /** Which line each piece of time belongs to (attribution/call-lines.ts). */
  private readonly calls: CallLines;

  constructor(private readonly input: AnalyzeInput) {
    // Hotline's own stack captures out of the user's code (a run saved before they were cut out).
    this.tree = buildProfileTree(withoutOwnFrames(input.profile), { reuseSamples: input.consumeSamples });
    // The tree holds all the analysis needs of the nodes: millions of objects that every later
    // full collection would mark again go now.
    if (input.consumeSamples === true) input.profile.nodes = [];
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
    this.calls = new CallLines({
      tree: this.tree,
      evidence: this.evidence,
      capturedFn: this.capturedFn,
      stackFrames: input.stacks?.frames ?? [],
      lines: this.lines,
      fnOfNode: (node) => this.fnOfNode(node),
      isWorkspaceNode: (node) => this.isWorkspaceNode(node),
      lineKey: (fn, rawLine, column, fnName) => this.lineKey(fn, rawLine, column, fnName),
      mapOriginals: (file, line, from, to) => this.mapper.linesIn(file, line, from, to),
    });
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

    // A function's self time follows its lines: an inlined callee's lines are its own (adds its row if need be).
    const selfFns = new SelfFunctions(this.fns, (fn) => this.inlinedRow(fn));
    for (let i = 0; i < n; i++) {
      if (t.selfUs[i] <= 0 || !this.isWorkspaceNode(i)) continue;
      const shares = selfFns.sharesOf(this.frameFn[t.nodeFrame[i]], this.calls.execLines(i));
      if (shares) this.selfShares.set(i, shares);
    }
    const fnSelf = new Float64Array(this.fns.length);
    for (let i = 0; i < n; i++) {
      const shares = this.selfShares.get(i);
      if (!shares) fnSelf[this.frameFn[t.nodeFrame[i]]] += t.selfUs[i];
      else for (const s of shares) fnSelf[s.key] += t.selfUs[i] * s.frac;
    }
    const { fnTotal, edges } = this.functionTotalsAndLineTotals();
    // An inlined callee's own time is in its total, and is a call from the function it ran in.
    for (const [i, shares] of this.selfShares) {
      const own = this.frameFn[t.nodeFrame[i]];
      for (const s of shares) {
        if (s.key === own) continue;
        const us = t.selfUs[i] * s.frac;
        fnTotal[s.key] += us;
        const out = edges.get(own) ?? new Map<number, number>();
        out.set(s.key, (out.get(s.key) ?? 0) + us);
        edges.set(own, out);
      }
    }
    this.ownTime();
    const fnPm = this.intervals();
    const hints = findHints(
      {
        tree: this.tree,
        lines: this.lines,
        sources: this.sources,
        fnOfNode: (node) => this.fnOfNode(node),
        isWorkspaceNode: (node) => this.isWorkspaceNode(node),
        callSite: (child) => this.calls.callSite(child),
      },
      nonIdleUs,
      categories,
    );

    const limits = this.input.limits ?? {};
    const functions = functionCosts(
      this.fns,
      { fnSelf, fnTotal, edges, fnPm },
      nonIdleUs,
      limits.functions ?? 300,
      (file) => this.mapper.has(file),
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

  /** The line with its code (for matching it in a later run: verdicts/compare.ts), when the source is at hand. */
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
   * they are left out, with a note (a run's own sources.json gives the right text, see store/sources.ts).
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

  /** The function row of a callee V8 inlined wherever it ran (no frame of its own): its head, as a frame would give it. */
  private inlinedRow(fn: FunctionInfo): FunctionInfo {
    const scope = fn.scope!;
    const text = this.sources.get(fn.generatedFile);
    const col0 = text === undefined ? 0 : scope.start - (text.lastIndexOf('\n', scope.start - 1) + 1);
    const url = fn.generatedFile.startsWith('/') ? pathToFileURL(fn.generatedFile).href : fn.generatedFile;
    return this.describe(scope.name ?? fn.name, url, scope.startLine - 1, col0, true);
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
    // A line without a column on a line that packs many original ones: only the function is known.
    const packed = generatedColumn === undefined && packedLine(this.mapper, fn.generatedFile, generatedLine);
    if (packed) this.notePacked(fn);
    const original = packed
      ? undefined
      : column === undefined
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
    const acc = this.lines.get(key);
    if (!acc) {
      this.lines.set(key, { file, line, fn: fnName, ownUs: 0, selfUs: 0, totalUs: 0, callees: new Map(), generated });
    } else if (acc.fn !== fnName) {
      // One line, several functions (`new Promise((r) => setImmediate(() => r(work())))`): the row
      // is named after the one that owns its time (ownTime), never after whichever was met first.
      acc.fnOwnUs ??= new Map([[acc.fn, 0]]);
      if (!acc.fnOwnUs.has(fnName)) acc.fnOwnUs.set(fnName, 0);
    }
    return key;
  }

  private readonly packedFiles = new Set<string>();

  /** One note for the files whose code as run is packed on few lines (a loader's output: tsx's). */
  private notePacked(fn: FunctionInfo): void {
    if (this.packedFiles.has(fn.file)) return;
    this.packedFiles.add(fn.file);
    const [first] = this.packedFiles;
    const others = this.packedFiles.size > 1 ? ` (and ${this.packedFiles.size - 1} more)` : '';
    const note = `${first}${others} ran as code packed on few lines (a loader's or a minifier's output): V8 gives the line a function was on when sampled, not the column, so time spent in its own code is shown on the function's first line; the lines it calls from are exact.`;
    const at = this.notes.findIndex((n) => n.startsWith(`${first}`) && n.includes('ran as code packed'));
    if (at >= 0) this.notes[at] = note;
    else this.notes.push(note);
  }

  // ---- the passes -----------------------------------------------------------------------

  /**
   * One depth-first walk. A function's total counts each sample once however often the
   * function recurses on the stack; a line's total likewise (its own ticks plus calls made
   * from it). Call edges are summed for callers/callees.
   */
  private functionTotalsAndLineTotals(): { fnTotal: Float64Array; edges: Map<number, Map<number, number>> } {
    const t = this.tree;
    const fnCount = this.fns.length;
    const fnTotal = new Float64Array(fnCount);
    const fnOnPath = new Int32Array(fnCount);
    /** How often a line or a line→callee link is on the current path. */
    const onPath = new Map<string, number>();
    /** How often a call edge is on the current path, by caller × functions + callee (no string per node). */
    const edgeOnPath = new Map<number, number>();
    const edges = new Map<number, Map<number, number>>();
    /** The line keys a node put on the path, for its exit (only nodes called from workspace code have any). */
    const keysOf = new Map<number, string[]>();
    // The walk's stack holds numbers only (a node, or ~node for its exit): millions of nodes, no object each.
    const stack: number[] = [t.root];
    while (stack.length > 0) {
      const entry = stack.pop()!;
      const node = entry < 0 ? ~entry : entry;
      const fi = this.frameFn[t.nodeFrame[node]];
      const parent = t.parent[node];
      const edgeKey = parent >= 0 ? this.frameFn[t.nodeFrame[parent]] * fnCount + fi : -1;
      if (entry < 0) {
        fnOnPath[fi]--;
        if (edgeKey >= 0) edgeOnPath.set(edgeKey, edgeOnPath.get(edgeKey)! - 1);
        const keys = keysOf.get(node);
        if (keys) {
          for (const key of keys) onPath.set(key, onPath.get(key)! - 1);
          keysOf.delete(node);
        }
        continue;
      }
      // Recursion: a function already on the stack neither adds to its total nor to its callers'.
      if (fnOnPath[fi]++ === 0) fnTotal[fi] += t.subtreeUs[node];
      if (parent >= 0) {
        const pfi = this.frameFn[t.nodeFrame[parent]];
        const edgeSeen = edgeOnPath.get(edgeKey) ?? 0;
        if (edgeSeen === 0) {
          const out = edges.get(pfi) ?? new Map<number, number>();
          out.set(fi, (out.get(fi) ?? 0) + t.subtreeUs[node]);
          edges.set(pfi, out);
        }
        edgeOnPath.set(edgeKey, edgeSeen + 1);
        if (this.isWorkspaceNode(parent) && t.subtreeUs[node] > 0) {
          const site = this.calls.callSite(node);
          const keys: string[] = [];
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
          if (keys.length > 0) keysOf.set(node, keys);
        }
      }
      if (this.isWorkspaceNode(node) && t.selfUs[node] > 0) {
        for (const share of this.calls.execLines(node)) {
          const acc = this.lines.get(share.key)!;
          acc.selfUs += t.selfUs[node] * share.frac;
          if (!onPath.get(share.key)) acc.totalUs += t.selfUs[node] * share.frac;
        }
      }
      stack.push(~node);
      for (let c = t.childFrom[node + 1] - 1; c >= t.childFrom[node]; c--) stack.push(t.childList[c]);
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
    this.owners = new Array<ReadonlyArray<LineShare>>(n);
    this.ownerEdge = new Int32Array(n).fill(-1);
    for (let k = 0; k < n; k++) {
      const i = t.preorder[k];
      const p = t.parent[i];
      const workspace = this.isWorkspaceNode(i);
      if (!workspace && p >= 0) edge[i] = this.isWorkspaceNode(p) ? i : edge[p];
      // Only nodes with samples need their lines resolved (and resolving costs source look-ups).
      this.owners[i] =
        t.selfUs[i] <= 0
          ? NO_SHARES
          : workspace
            ? this.calls.execLines(i)
            : edge[i] >= 0
              ? this.calls.ownerShares(edge[i])
              : NO_SHARES;
      if (!workspace && edge[i] >= 0 && t.selfUs[i] > 0) this.ownerEdge[i] = edge[i];
      for (const s of this.owners[i]) {
        const acc = this.lines.get(s.key)!;
        acc.ownUs += t.selfUs[i] * s.frac;
        if (acc.fnOwnUs) {
          // The function executing the line: the node's own (or one V8 inlined there), or the caller's.
          const name = (s.fn ?? this.fnOfNode(workspace ? i : t.parent[edge[i]])).name;
          if (acc.fnOwnUs.has(name)) acc.fnOwnUs.set(name, acc.fnOwnUs.get(name)! + t.selfUs[i] * s.frac);
        }
      }
    }
    for (const acc of this.lines.values()) {
      if (!acc.fnOwnUs) continue;
      let best = acc.fn;
      for (const [name, us] of acc.fnOwnUs) if (us > acc.fnOwnUs.get(best)!) best = name;
      acc.fn = best;
      delete acc.fnOwnUs;
    }
  }

  /**
   * The 95% interval of each line's own share (set on its record) and of each function's self
   * share (returned), from the samples in time and the captures (time/line-intervals.ts).
   */
  private intervals(): Float64Array {
    const t = this.tree;
    const evidence = this.evidence;
    const pairOf = (child: number): string =>
      `${identityOf(this.fnOfNode(t.parent[child])).key}>${identityOf(this.fnOfNode(child)).key}`;
    const { lines, functions } = lineAndFunctionIntervals({
      tree: t,
      timeOrdered: (this.input.profile.samples?.length ?? 0) > 0,
      capUs: MAX_SAMPLE_WEIGHT * t.intervalUs,
      isIdle: (node) => this.fnOfNode(node).category === 'idle',
      owners: this.owners,
      ownerEdge: this.ownerEdge,
      pools: this.calls.ownerPools,
      ownerTicks: evidence?.ownerTicks ?? [],
      poolsOfChild: (child) => [evidence?.owner.get(child), evidence?.ownerByPair.get(pairOf(child))],
      fnSharesOf: (node) => this.selfShares.get(node) ?? [{ key: this.frameFn[t.nodeFrame[node]], frac: 1 }],
      fnCount: this.fns.length,
    });
    for (const [key, pm] of lines) {
      const acc = this.lines.get(key);
      if (acc) acc.ownPm = pm;
    }
    return functions;
  }

  /**
   * The samples in time with the categories and own lines used above, or 'too long' when its
   * JSON would be more than `maxChars`; call after run(), once.
   */
  timeline(maxChars: number): TimelineV1 | 'too long' | undefined {
    if (timelineSurelyTooLong(this.tree.sampleDurationUs, maxChars)) return 'too long';
    const hasSamples = (this.input.profile.samples?.length ?? 0) > 0;
    const timeline = buildTimeline(
      this.tree,
      hasSamples,
      (node) => ({
        category: this.fnOfNode(node).category,
        owners: (this.owners[node] ?? NO_SHARES).map((s) => {
          const l = this.lines.get(s.key)!;
          return { line: { file: l.file, line: l.line, function: l.fn }, frac: s.frac };
        }),
      }),
      { reuseSampleNode: this.input.consumeSamples === true },
    );
    return timeline && maxChars !== Infinity && !timelineJsonFits(timeline, maxChars) ? 'too long' : timeline;
  }
}
