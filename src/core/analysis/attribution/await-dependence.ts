// Whether the statement on one line uses what the statement on an earlier line of the same
// function produced: the source side of the `serial-awaits` hint (time/serial-awaits.ts measures
// that two calls ran one after another; this says whether the second needed the first's result).
// acorn reads the code; a name is followed, not a value: the names the first statement assigns,
// then the names assigned by any statement between the two that reads them, and the second is
// dependent when it (or a test that decides whether it runs) reads one of them. What flows through
// an object's methods (`cache.set(rows)` then `cache.get()`) or a side effect the database itself
// orders (a write then a read of the same row) is not seen: the hint says "when independent".
import type * as acorn from 'acorn';
import { parseJs } from './parse-js.ts';

type AnyNode = acorn.Node & Record<string, unknown>;

export type AwaitDependence =
  | { kind: 'independent' }
  | { kind: 'dependent'; names: string[] }
  /** Not told: the code did not parse, a line has no statement, or they are not in one function in order. */
  | { kind: 'unknown'; why: string };

const STATEMENTS = new Set(['ExpressionStatement', 'VariableDeclaration', 'ReturnStatement', 'ThrowStatement']);
const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);
const JUMPS = new Set(['ReturnStatement', 'ThrowStatement', 'BreakStatement', 'ContinueStatement']);

function children(node: AnyNode): AnyNode[] {
  const out: AnyNode[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'loc') continue;
    for (const child of Array.isArray(value) ? value : [value])
      if (child && typeof child === 'object' && typeof (child as AnyNode).type === 'string') out.push(child as AnyNode);
  }
  return out;
}

/** Every node with its innermost enclosing function (or the program), depth first. */
function* walk(
  node: AnyNode,
  fn: AnyNode,
  parent?: AnyNode,
): Generator<{ node: AnyNode; fn: AnyNode; parent?: AnyNode }> {
  yield { node, fn, parent };
  const inner = FUNCTIONS.has(node.type) ? node : fn;
  for (const child of children(node)) yield* walk(child, inner, node);
}

/** The names a binding or assignment target writes: `a`, `{ a, b: [c] }`, `a.b` (its root `a`). */
function targetNames(node: AnyNode | null | undefined, out: Set<string>): void {
  if (!node) return;
  switch (node.type) {
    case 'Identifier':
      out.add(node.name as string);
      break;
    case 'ObjectPattern':
      for (const p of node.properties as AnyNode[])
        targetNames(p.type === 'RestElement' ? p : (p.value as AnyNode), out);
      break;
    case 'ArrayPattern':
      for (const e of node.elements as Array<AnyNode | null>) targetNames(e, out);
      break;
    case 'AssignmentPattern':
      targetNames(node.left as AnyNode, out);
      break;
    case 'RestElement':
      targetNames(node.argument as AnyNode, out);
      break;
    case 'MemberExpression':
      targetNames(node.object as AnyNode, out);
      break;
  }
}

/** The names a piece of code assigns (declarations, assignments, updates, for-of heads), nested functions included. */
function writes(root: AnyNode): Set<string> {
  const out = new Set<string>();
  for (const { node } of walk(root, root)) {
    if (node.type === 'VariableDeclarator') targetNames(node.id as AnyNode, out);
    else if (node.type === 'AssignmentExpression') targetNames(node.left as AnyNode, out);
    else if (node.type === 'UpdateExpression') targetNames(node.argument as AnyNode, out);
    else if (node.type === 'ForOfStatement' || node.type === 'ForInStatement') targetNames(node.left as AnyNode, out);
  }
  return out;
}

/** The names a piece of code reads: identifiers but property names, object keys and plain binding targets. */
function reads(root: AnyNode): Set<string> {
  const out = new Set<string>();
  const skip = new Set<AnyNode>();
  for (const { node } of walk(root, root)) {
    if (node.type === 'MemberExpression' && !node.computed) skip.add(node.property as AnyNode);
    else if (
      (node.type === 'Property' || node.type === 'MethodDefinition' || node.type === 'PropertyDefinition') &&
      !node.computed &&
      !node.shorthand
    )
      skip.add(node.key as AnyNode);
    else if (node.type === 'VariableDeclarator' && (node.id as AnyNode).type === 'Identifier')
      skip.add(node.id as AnyNode);
    else if (
      node.type === 'AssignmentExpression' &&
      node.operator === '=' &&
      (node.left as AnyNode).type === 'Identifier'
    )
      skip.add(node.left as AnyNode);
    else if (node.type === 'Identifier' && !skip.has(node)) out.add(node.name as string);
  }
  return out;
}

const hasJump = (root: AnyNode): boolean =>
  [...walk(root, root)].some(({ node, fn }) => fn === root && JUMPS.has(node.type));

/**
 * Whether the statement on `lineB` (1-based) depends on what the statement on `lineA` produced,
 * both in one function and A's before B's. See the file's head for what is followed.
 */
export function awaitDependence(text: string, lineA: number, lineB: number): AwaitDependence {
  const ast = parseJs(text, { ecmaVersion: 'latest', locations: true });
  if (!ast) return { kind: 'unknown', why: 'the file did not parse' };
  const program = ast as unknown as AnyNode;
  const statementAt = (line: number): { node: AnyNode; fn: AnyNode } | undefined => {
    let best: { node: AnyNode; fn: AnyNode } | undefined;
    for (const w of walk(program, program)) {
      const loc = w.node.loc as acorn.SourceLocation;
      if (!STATEMENTS.has(w.node.type) || loc.start.line > line || loc.end.line < line) continue;
      if (!best || w.node.end - w.node.start < best.node.end - best.node.start) best = w;
    }
    return best;
  };
  const a = statementAt(lineA);
  const b = statementAt(lineB);
  if (!a || !b) return { kind: 'unknown', why: 'no statement on the line' };
  if (a.fn !== b.fn) return { kind: 'unknown', why: 'not in one function' };
  if (a.node.end > b.node.start) return { kind: 'unknown', why: 'not one after the other in the source' };
  const produced = writes(a.node);
  const used = (names: Set<string>): string[] => [...names].filter((n) => produced.has(n));
  // Code between the two: the largest pieces that lie wholly between them, in source order.
  const between: AnyNode[] = [];
  const collect = (node: AnyNode): void => {
    if (node.start >= a.node.end && node.end <= b.node.start) {
      between.push(node);
      return;
    }
    if (node.end <= a.node.end || node.start >= b.node.start) return;
    for (const child of children(node)) collect(child);
  };
  collect(a.fn);
  between.sort((x, y) => x.start - y.start);
  for (const piece of between) {
    const hit = used(reads(piece));
    if (hit.length === 0) continue;
    // A test, a jump or a loop that reads the result decides whether B runs at all.
    if (!STATEMENTS.has(piece.type) || hasJump(piece)) return { kind: 'dependent', names: hit };
    for (const n of writes(piece)) produced.add(n);
  }
  const hit = used(reads(b.node));
  return hit.length > 0 ? { kind: 'dependent', names: hit } : { kind: 'independent' };
}
