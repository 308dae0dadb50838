// V8 gives a line only for the top frame of a sample, so the line in a caller that calls the
// hot function is not in the profile. This module reads the caller's source (acorn) to find it:
// the function at a call frame's position, the call expressions directly inside it, and the call
// that receives a callback defined inside it.
import type * as acorn from 'acorn';
import { parseJs } from './parse-js.ts';
import {
  type AnyNode,
  FUNCTION_TYPES,
  functionNamesOf,
  isNode,
  memberName,
  nameGivenTo,
  requiredModule,
  rootIdentifier,
  shorten,
  unwrap,
} from './call-names.ts';

export { callNamesFor, fileIsModule } from './call-names.ts';

export interface CodeRange {
  start: number;
  end: number;
  /** 1-based */
  startLine: number;
  endLine: number;
}

export interface CallSite {
  /** Names a profile frame of the callee may carry (`a.b.c()` → ["c"], `f.call()` → ["call", "f"]). */
  names: readonly string[];
  /** Position of the callee's name: 1-based line, 0-based column. */
  line: number;
  column: number;
  start: number;
  end: number;
  /** The call as written, shortened: `crypto.pbkdf2Sync`. */
  calleeText: string;
  /** The first argument when it is a string literal (a route: `app.post('/login', …)`). */
  firstArg?: string;
  /** The module the callee comes from when the file says so (`const jwt = require('jsonwebtoken')` → `jwt.sign()`). */
  module?: string;
}

export interface FunctionScope extends CodeRange {
  /** Calls directly in this function, not inside functions nested in it. */
  readonly calls: readonly CallSite[];
  /** The whole script (module top level) rather than a function. */
  readonly isProgram: boolean;
  /** The name the source gives it (declaration, method, property or variable), if any. */
  readonly name?: string;
  /** Where its body starts: V8 places a function's call frame in its head, before this. */
  readonly bodyStart?: number;
}

export class ScriptIndex {
  private readonly lineStarts: number[];
  private readonly scopes: FunctionScope[] = [];
  private readonly program: FunctionScope;
  /** For each nested function: the innermost call in its parent function whose range holds it. */
  private readonly receivingCall = new Map<FunctionScope, CallSite>();
  private readonly parentScope = new Map<FunctionScope, FunctionScope>();
  /** Names that declarations give to the function expressions they hold. */
  private readonly givenNames = new WeakMap<AnyNode, string>();

  private constructor(
    private readonly text: string,
    ast: acorn.Program,
  ) {
    this.lineStarts = [0];
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.lineStarts.push(i + 1);
    this.program = this.scope(ast.start, ast.end, true);
    this.walk(ast as unknown as AnyNode, this.program, []);
    this.resolveBindings();
  }

  /** Local names bound to other functions or to modules, file-wide (a heuristic: scopes are ignored). */
  private readonly aliases = new Map<string, string[]>();
  private readonly modules = new Map<string, string>();
  private readonly allCalls: Array<{ site: CallSite; root?: string }> = [];

  /**
   * Names a call may reach through a local binding: `const verify = a ? f : g; verify()` can
   * be f or g; `jwt.sign()` with `const jwt = require('jsonwebtoken')` is jsonwebtoken code.
   */
  private resolveBindings(): void {
    for (const { site, root } of this.allCalls) {
      const extra = site.names.flatMap((n) => this.aliases.get(n) ?? []);
      if (extra.length > 0) (site as { names: readonly string[] }).names = [...new Set([...site.names, ...extra])];
      const mod = root !== undefined ? this.modules.get(root) : undefined;
      if (mod !== undefined) site.module = mod;
    }
  }

  private bind(node: AnyNode): void {
    const id = node.id as AnyNode | undefined;
    const init = node.init ? unwrap(node.init as AnyNode) : undefined;
    if (!id || !init) return;
    const required = requiredModule(init);
    if (id.type === 'Identifier') {
      const name = id.name as string;
      if (required !== undefined) this.modules.set(name, required);
      const targets = functionNamesOf(init);
      if (targets.length > 0) this.aliases.set(name, targets);
      if (init.type === 'MemberExpression') {
        const root = rootIdentifier(init);
        if (root && this.modules.has(root)) this.modules.set(name, this.modules.get(root)!);
      }
    } else if (id.type === 'ObjectPattern' && required !== undefined) {
      // const { sign, verify: check } = require('jsonwebtoken')
      for (const prop of id.properties as AnyNode[]) {
        const value = prop.value as AnyNode | undefined;
        const key = prop.key as AnyNode | undefined;
        if (value?.type !== 'Identifier') continue;
        this.modules.set(value.name as string, required);
        if (key?.type === 'Identifier' && key.name !== value.name)
          this.aliases.set(value.name as string, [key.name as string]);
      }
    }
  }

  private bindImport(node: AnyNode): void {
    const source = (node.source as AnyNode).value;
    if (typeof source !== 'string') return;
    for (const spec of node.specifiers as AnyNode[]) {
      const local = (spec.local as AnyNode).name as string;
      this.modules.set(local, source);
      const imported = spec.imported as AnyNode | undefined;
      if (imported?.type === 'Identifier' && imported.name !== local)
        this.aliases.set(local, [imported.name as string]);
    }
  }

  /** undefined when the text is not JavaScript acorn can read (the analysis then degrades). */
  static parse(text: string): ScriptIndex | undefined {
    const program = parseJs(text, { ecmaVersion: 'latest', allowReserved: true });
    return program ? new ScriptIndex(text, program) : undefined;
  }

  /**
   * The innermost function containing a call frame's position (0-based line and column; V8 puts
   * it at the parameter list), or the top level when none does.
   */
  functionAt(line0: number, col0: number): FunctionScope {
    const offset = this.offsetOf(line0 + 1, Math.max(0, col0));
    let best = this.program;
    for (const s of this.scopes) {
      if (s.start <= offset && offset < s.end && s.end - s.start <= best.end - best.start) best = s;
    }
    return best;
  }

  /**
   * Whether a call frame's position (0-based, as V8 gives a function's) is the head of `scope`,
   * the function functionAt found there: false means the text is not the one the profile ran
   * (the file changed since).
   */
  isFunctionHead(scope: FunctionScope, line0: number, col0: number): boolean {
    if (line0 === 0 && col0 <= 0) return true; // the module's own top-level frame
    if (line0 + 1 > this.lineStarts.length || col0 > this.lineText(line0 + 1).length) return false;
    if (scope.isProgram) return false;
    const offset = this.offsetOf(line0 + 1, Math.max(0, col0));
    return scope.start <= offset && offset <= (scope.bodyStart ?? scope.start);
  }

  /** The innermost function (not the top level) that holds a 1-based line, if any. */
  functionAtLine(line: number): FunctionScope | undefined {
    let best: FunctionScope | undefined;
    for (const s of this.scopes) {
      if (s.startLine <= line && line <= s.endLine && (!best || s.end - s.start < best.end - best.start)) best = s;
    }
    return best;
  }

  /** The call in `outer` that a function nested in it is passed to (`arr.map(x => …)`). */
  receivingCallOf(outer: FunctionScope, inner: FunctionScope): CallSite | undefined {
    let scope: FunctionScope | undefined = inner;
    while (scope && this.parentScope.get(scope) !== outer) scope = this.parentScope.get(scope);
    return scope ? this.receivingCall.get(scope) : undefined;
  }

  /** A readable name for an anonymous function: the call it is passed to (`app.post('/login') callback`). */
  anonymousName(scope: FunctionScope): string | undefined {
    const receiver = this.receivingCall.get(scope);
    if (!receiver) return undefined;
    const arg = receiver.firstArg !== undefined ? `('${receiver.firstArg}')` : '';
    return `${receiver.calleeText}${arg} callback`;
  }

  /** Column of the first non-blank character of a 1-based line, if the line has any. */
  firstCodeColumn(line: number): number | undefined {
    const m = /\S/.exec(this.lineText(line));
    return m ? m.index : undefined;
  }

  /** Where V8 places a function's call frame (0-based line and column): its parameter list, else its start. */
  headOf(scope: FunctionScope): { line0: number; col0: number } {
    const paren = this.text.indexOf('(', scope.start);
    const at = paren >= 0 && paren < (scope.bodyStart ?? scope.start) ? paren : scope.start;
    const line = this.lineOf(at);
    return { line0: line - 1, col0: at - this.lineStarts[line - 1] };
  }

  /** The columns [from, to) of a 1-based line that lie inside `range` (a minified line holds many functions). */
  columnsOn(range: CodeRange, line: number): { from: number; to: number } {
    const start = this.lineStarts[line - 1] ?? 0;
    const lineEnd = start + this.lineText(line).length;
    return { from: Math.max(range.start, start) - start, to: Math.min(range.end, lineEnd) - start };
  }

  /**
   * Whether a position (1-based line, 0-based column) is in the function's head, before its body:
   * where V8 services an interrupt at the function's entry.
   */
  inHead(scope: FunctionScope, line: number, column: number): boolean {
    if (scope.isProgram) return false;
    const offset = this.offsetOf(line, column);
    return scope.start <= offset && offset <= (scope.bodyStart ?? scope.start);
  }

  lineText(line: number): string {
    const start = this.lineStarts[line - 1];
    if (start === undefined) return '';
    const end = this.lineStarts[line] ?? this.text.length;
    return this.text.slice(start, end).replace(/\r?\n$/, '');
  }

  private offsetOf(line: number, column: number): number {
    const start = this.lineStarts[Math.min(Math.max(line, 1), this.lineStarts.length) - 1];
    return start + column;
  }

  private lineOf(offset: number): number {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  private scope(start: number, end: number, isProgram: boolean): FunctionScope {
    return {
      start,
      end,
      startLine: this.lineOf(start),
      endLine: this.lineOf(Math.max(start, end - 1)),
      calls: [],
      isProgram,
    };
  }

  /** One pass over the AST; `openCalls` are the calls of the current function we are inside. */
  private walk(node: AnyNode, current: FunctionScope, openCalls: CallSite[]): void {
    if (node.type === 'VariableDeclarator') this.bind(node);
    else if (node.type === 'ImportDeclaration') this.bindImport(node);
    const given = nameGivenTo(node);
    if (given) this.givenNames.set(given.fn, given.name);
    if (FUNCTION_TYPES.has(node.type)) {
      const inner: FunctionScope = {
        ...this.scope(node.start, node.end, false),
        name: ((node.id as AnyNode | null)?.name as string | undefined) ?? this.givenNames.get(node),
        bodyStart: (node.body as AnyNode).start,
      };
      this.scopes.push(inner);
      this.parentScope.set(inner, current);
      const receiver = openCalls[openCalls.length - 1];
      if (receiver) this.receivingCall.set(inner, receiver);
      this.walkChildren(node, inner, []);
      return;
    }
    if (node.type === 'CallExpression' || node.type === 'NewExpression' || node.type === 'TaggedTemplateExpression') {
      const site = this.callSite(node);
      if (site) {
        const callee = unwrap((node.type === 'TaggedTemplateExpression' ? node.tag : node.callee) as AnyNode);
        this.allCalls.push({ site, root: rootIdentifier(callee) });
        (current.calls as CallSite[]).push(site);
        this.walkChildren(node, current, [...openCalls, site]);
        return;
      }
    }
    this.walkChildren(node, current, openCalls);
  }

  private walkChildren(node: AnyNode, current: FunctionScope, openCalls: CallSite[]): void {
    for (const key in node) {
      if (key === 'loc' || key === 'range') continue;
      const value = node[key];
      if (Array.isArray(value)) {
        for (const item of value) if (isNode(item)) this.walk(item, current, openCalls);
      } else if (isNode(value)) {
        this.walk(value, current, openCalls);
      }
    }
  }

  private callSite(node: AnyNode): CallSite | undefined {
    const callee = unwrap((node.type === 'TaggedTemplateExpression' ? node.tag : node.callee) as AnyNode);
    const names: string[] = [];
    let anchor = callee;
    if (callee.type === 'Identifier') {
      names.push(callee.name as string);
    } else if (callee.type === 'MemberExpression') {
      const prop = callee.property as AnyNode;
      const propName = memberName(prop, callee.computed as boolean);
      if (propName) names.push(propName);
      anchor = prop;
      // `fn.call(...)`, `fn.apply(...)`: the frame is fn's.
      if (propName === 'call' || propName === 'apply') {
        const target = unwrap(callee.object as AnyNode);
        const targetName =
          target.type === 'Identifier'
            ? (target.name as string)
            : target.type === 'MemberExpression'
              ? memberName(target.property as AnyNode, target.computed as boolean)
              : undefined;
        if (targetName) names.push(targetName);
      }
    } else if (callee.type === 'Super') {
      names.push('super');
    }
    const line = this.lineOf(anchor.start);
    const args = node.arguments as AnyNode[] | undefined;
    const first = args?.[0];
    const firstArg =
      first && first.type === 'Literal' && typeof first.value === 'string' && first.value.length <= 40
        ? first.value
        : undefined;
    return {
      firstArg,
      names,
      line,
      column: anchor.start - this.lineStarts[line - 1],
      start: node.start,
      end: node.end,
      calleeText: shorten(this.text.slice(callee.start, callee.end)),
    };
  }
}
