// What a call expression is named and where it comes from, read from acorn's AST: the names a
// profile frame of its callee may carry, the module a binding was required from, the function
// names an initialiser may hold. Pure helpers of callsites.ts (ScriptIndex).
import type * as acorn from 'acorn';

export type AnyNode = acorn.Node & Record<string, unknown>;

export const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

export function isNode(v: unknown): v is AnyNode {
  return typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string';
}

/** `(x)`, `a?.b` and `(0, x.fn)` (how tsc and esbuild call an import) all call what they end with. */
export function unwrap(node: AnyNode): AnyNode {
  let n = node;
  for (;;) {
    if (n.type === 'ChainExpression' || n.type === 'ParenthesizedExpression') n = n.expression as AnyNode;
    else if (n.type === 'SequenceExpression') n = (n.expressions as AnyNode[])[(n.expressions as AnyNode[]).length - 1];
    else return n;
  }
}

export function memberName(prop: AnyNode, computed: boolean): string | undefined {
  if (!computed && (prop.type === 'Identifier' || prop.type === 'PrivateIdentifier')) return prop.name as string;
  if (computed && prop.type === 'Literal' && typeof prop.value === 'string') return prop.value;
  return undefined;
}

/** `key() {}`, `key: function () {}`, `const key = () => {}`: the function held and its name. */
export function nameGivenTo(node: AnyNode): { fn: AnyNode; name: string } | undefined {
  let target: AnyNode | undefined;
  let value: AnyNode | undefined;
  if (node.type === 'MethodDefinition' || node.type === 'Property' || node.type === 'PropertyDefinition') {
    target = node.key as AnyNode;
    value = node.value as AnyNode | undefined;
  } else if (node.type === 'VariableDeclarator') {
    target = node.id as AnyNode;
    value = node.init as AnyNode | undefined;
  } else if (node.type === 'AssignmentExpression') {
    target = node.left as AnyNode;
    value = node.right as AnyNode;
  }
  if (!target || !value || !FUNCTION_TYPES.has(value.type)) return undefined;
  const name =
    target.type === 'Identifier' || target.type === 'PrivateIdentifier'
      ? (target.name as string)
      : target.type === 'MemberExpression'
        ? memberName(target.property as AnyNode, target.computed as boolean)
        : undefined;
  return name ? { fn: value, name } : undefined;
}

/** `a.b.c` → "a"; `f` → "f". */
export function rootIdentifier(node: AnyNode): string | undefined {
  let n = unwrap(node);
  while (n.type === 'MemberExpression') n = unwrap(n.object as AnyNode);
  return n.type === 'Identifier' ? (n.name as string) : undefined;
}

/** `require('x')`, `require('x').y`, `await import('x')` → "x". */
export function requiredModule(node: AnyNode): string | undefined {
  let n = unwrap(node);
  if (n.type === 'AwaitExpression') n = unwrap(n.argument as AnyNode);
  while (n.type === 'MemberExpression') n = unwrap(n.object as AnyNode);
  if (n.type === 'ImportExpression') {
    const src = n.source as AnyNode;
    return src.type === 'Literal' && typeof src.value === 'string' ? src.value : undefined;
  }
  if (n.type !== 'CallExpression') return undefined;
  const callee = n.callee as AnyNode;
  const arg = (n.arguments as AnyNode[])[0];
  if (
    callee.type === 'Identifier' &&
    callee.name === 'require' &&
    arg?.type === 'Literal' &&
    typeof arg.value === 'string'
  )
    return arg.value;
  return undefined;
}

/** The function names an initialiser may evaluate to: `f`, `a ? f : g`, `f || g`, `obj.f`. */
export function functionNamesOf(node: AnyNode): string[] {
  const n = unwrap(node);
  switch (n.type) {
    case 'Identifier':
      return [n.name as string];
    case 'MemberExpression':
      return n.computed ? [] : [(n.property as AnyNode).name as string];
    case 'ConditionalExpression':
      return [...functionNamesOf(n.consequent as AnyNode), ...functionNamesOf(n.alternate as AnyNode)];
    case 'LogicalExpression':
      return [...functionNamesOf(n.left as AnyNode), ...functionNamesOf(n.right as AnyNode)];
    default:
      return [];
  }
}

/** Does a script (a callFrame's file, after fileOfUrl) belong to the module a call site names? */
export function fileIsModule(file: string, module: string): boolean {
  const bare = module.replace(/^node:/, '');
  if (file.startsWith('node:')) return file === `node:${bare}` || file.startsWith(`node:internal/${bare}`);
  if (bare.startsWith('.') || bare.startsWith('/')) return false;
  const parts = bare.split('/');
  const pkg = bare.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  return file.includes(`/node_modules/${pkg}/`);
}

export function shorten(text: string): string {
  const flat = text.replace(/\s+/g, '');
  return flat.length > 60 ? `…${flat.slice(-59)}` : flat;
}

/**
 * The names a call expression may use for a function that shows in the profile under
 * `functionName`. V8 names methods `Class.method`, accessors `get x`, bound functions
 * `bound f`; some Node APIs run under a shared wrapper whose name no caller writes.
 */
export function callNamesFor(functionName: string): string[] {
  let name = functionName.trim();
  for (const prefix of ['bound ', 'get ', 'set ', 'async '])
    if (name.startsWith(prefix)) name = name.slice(prefix.length);
  if (name === '') return [];
  const last = name.slice(name.lastIndexOf('.') + 1);
  return [last, ...(SHARED_WRAPPERS.get(last) ?? [])];
}

const ZLIB_SYNC = [
  'gzipSync',
  'gunzipSync',
  'deflateSync',
  'inflateSync',
  'deflateRawSync',
  'inflateRawSync',
  'unzipSync',
  'brotliCompressSync',
  'brotliDecompressSync',
];
const ZLIB_ASYNC = ZLIB_SYNC.map((n) => n.slice(0, -4));
/** Node internals that many public APIs share (node:zlib's convenience methods). */
const SHARED_WRAPPERS: ReadonlyMap<string, readonly string[]> = new Map([
  ['syncBufferWrapper', ZLIB_SYNC],
  ['zlibBufferSync', ZLIB_SYNC],
  ['asyncBufferWrapper', ZLIB_ASYNC],
  ['zlibBuffer', ZLIB_ASYNC],
]);
