// The mechanical fix of a blocking call: inside an `async` function, `crypto.pbkdf2Sync(…)`
// becomes `await pbkdf2(…)` with `const pbkdf2 = util.promisify(crypto.pbkdf2)` declared once at
// the top, and `fs.readFileSync(…)` becomes `await fs.promises.readFile(…)`. Anywhere else (a
// plain function, whose callers would all have to change) no edit is offered: only the advice.
// Pure: text in, edits out (acorn reads the code; nothing is guessed from regular expressions).
import * as acorn from 'acorn';

export interface TextEdit {
  /** Offsets into the text. */
  start: number;
  end: number;
  newText: string;
}

export interface AsyncFix {
  title: string;
  edits: TextEdit[];
}

type AnyNode = acorn.Node & Record<string, unknown>;

/** Callback APIs whose promise form is util.promisify of the same function, by module. */
const PROMISIFIED: Record<string, readonly string[]> = {
  crypto: ['pbkdf2', 'scrypt', 'randomBytes', 'randomFill', 'generateKeyPair'],
  zlib: [
    'gzip',
    'gunzip',
    'deflate',
    'inflate',
    'deflateRaw',
    'inflateRaw',
    'unzip',
    'brotliCompress',
    'brotliDecompress',
  ],
};
/** fs APIs with the same name in fs.promises. */
const FS_PROMISES = [
  'readFile',
  'writeFile',
  'appendFile',
  'readdir',
  'stat',
  'lstat',
  'access',
  'mkdir',
  'rm',
  'rmdir',
  'rename',
  'unlink',
  'copyFile',
  'realpath',
  'readlink',
];

function parse(text: string): acorn.Program | undefined {
  for (const sourceType of ['module', 'script'] as const) {
    try {
      return acorn.parse(text, {
        ecmaVersion: 'latest',
        sourceType,
        allowHashBang: true,
        allowReturnOutsideFunction: sourceType === 'script',
      });
    } catch {
      // try the other source type; TypeScript or broken code gets no edit
    }
  }
  return undefined;
}

/** Every node with its ancestors, depth first. */
function* walk(node: AnyNode, ancestors: AnyNode[] = []): Generator<{ node: AnyNode; ancestors: AnyNode[] }> {
  yield { node, ancestors };
  const next = [...ancestors, node];
  for (const value of Object.values(node)) {
    const children = Array.isArray(value) ? value : [value];
    for (const child of children) {
      if (child && typeof child === 'object' && typeof (child as AnyNode).type === 'string')
        yield* walk(child as AnyNode, next);
    }
  }
}

const isFunction = (n: AnyNode): boolean =>
  n.type === 'FunctionDeclaration' || n.type === 'FunctionExpression' || n.type === 'ArrowFunctionExpression';

/** Names declared at the top of the program (const/let/var, functions, imports). */
function topLevelNames(program: acorn.Program): Map<string, AnyNode> {
  const names = new Map<string, AnyNode>();
  for (const statement of program.body as AnyNode[]) {
    if (statement.type === 'VariableDeclaration') {
      for (const d of statement.declarations as AnyNode[]) {
        const id = d.id as AnyNode;
        if (id.type === 'Identifier') names.set(id.name as string, d);
        if (id.type === 'ObjectPattern')
          for (const p of id.properties as AnyNode[])
            if ((p.value as AnyNode | undefined)?.type === 'Identifier')
              names.set((p.value as AnyNode).name as string, d);
      }
    } else if (statement.type === 'FunctionDeclaration' && statement.id)
      names.set((statement.id as AnyNode).name as string, statement);
    else if (statement.type === 'ImportDeclaration')
      for (const s of statement.specifiers as AnyNode[]) names.set((s.local as AnyNode).name as string, statement);
  }
  return names;
}

/** The text of `require('node:util')` / `require('util')` or an import of it, when declared as `name`. */
function bindsModule(decl: AnyNode | undefined, module: string): boolean {
  if (!decl) return false;
  const src = (n: AnyNode | undefined): string | undefined =>
    n?.type === 'Literal' && typeof n.value === 'string' ? n.value.replace(/^node:/, '') : undefined;
  if (decl.type === 'ImportDeclaration') return src(decl.source as AnyNode) === module;
  const init = decl.init as AnyNode | undefined;
  return (
    init?.type === 'CallExpression' &&
    (init.callee as AnyNode).type === 'Identifier' &&
    (init.callee as AnyNode).name === 'require' &&
    src((init.arguments as AnyNode[])[0]) === module
  );
}

/**
 * The edit for the call of `api` ("crypto.pbkdf2Sync") on 0-based line `line0` of `text`, or
 * undefined when it is not mechanical (no async function around it, an unknown API, a call
 * written another way).
 */
export function asyncFixOf(text: string, line0: number, api: string): AsyncFix | undefined {
  const [moduleName, syncName] = api.split('.');
  if (!syncName?.endsWith('Sync')) return undefined;
  const asyncName = syncName.slice(0, -'Sync'.length);
  const viaFs = moduleName === 'fs' && FS_PROMISES.includes(asyncName);
  if (!viaFs && !PROMISIFIED[moduleName]?.includes(asyncName)) return undefined;
  const program = parse(text);
  if (!program) return undefined;
  const lineStart = text
    .split('\n')
    .slice(0, line0)
    .reduce((n, l) => n + l.length + 1, 0);
  const lineEnd = lineStart + (text.split('\n')[line0]?.length ?? 0);
  const names = topLevelNames(program);

  for (const { node, ancestors } of walk(program as unknown as AnyNode)) {
    if (node.type !== 'CallExpression' || node.start < lineStart || node.start > lineEnd) continue;
    const callee = node.callee as AnyNode;
    if (callee.type !== 'MemberExpression' || callee.computed || (callee.property as AnyNode).name !== syncName)
      continue;
    const object = callee.object as AnyNode;
    if (object.type !== 'Identifier' || !bindsModule(names.get(object.name as string), moduleName)) continue;
    const fn = [...ancestors].reverse().find(isFunction);
    if (!fn || fn.async !== true) return undefined;
    const parent = ancestors[ancestors.length - 1];
    // `crypto.pbkdf2Sync(…).toString()` needs `(await pbkdf2(…)).toString()`.
    const wrap =
      parent !== undefined &&
      ((parent.type === 'MemberExpression' && parent.object === node) ||
        (parent.type === 'CallExpression' && parent.callee === node));
    const moduleVar = object.name as string;
    if (viaFs) {
      return {
        title: `Use await ${moduleVar}.promises.${asyncName}(…) instead of ${api}`,
        edits: awaitCall(node, wrap, `${moduleVar}.promises.${asyncName}`),
      };
    }
    const declared = names.get(asyncName);
    const reuse =
      declared !== undefined &&
      declared.type === 'VariableDeclarator' &&
      /promisify/.test(text.slice(declared.start, declared.end));
    const name = declared === undefined || reuse ? asyncName : `${asyncName}Async`;
    if (!reuse && names.has(name)) return undefined;
    const edits = awaitCall(node, wrap, name);
    if (!reuse) edits.push(declaration(program, text, names, name, `${moduleVar}.${asyncName}`));
    return { title: `Use await ${name}(…) (util.promisify) instead of ${api}`, edits };
  }
  return undefined;
}

/** `crypto.pbkdf2Sync(` → `await pbkdf2(` as one edit (one change in a preview), parenthesised when used as an object. */
function awaitCall(call: AnyNode, wrap: boolean, callee: string): TextEdit[] {
  const calleeNode = call.callee as AnyNode;
  return [
    { start: call.start, end: calleeNode.end, newText: `${wrap ? '(' : ''}await ${callee}` },
    ...(wrap ? [{ start: call.end, end: call.end, newText: ')' }] : []),
  ];
}

/** `const pbkdf2 = util.promisify(crypto.pbkdf2);` after the last top-level require/import. */
function declaration(
  program: acorn.Program,
  text: string,
  names: Map<string, AnyNode>,
  name: string,
  target: string,
): TextEdit {
  const utilName = [...names.entries()].find(([, d]) => bindsModule(d, 'util') && d.type !== 'ImportDeclaration')?.[0];
  const isModule = (program.body as AnyNode[]).some((s) => s.type === 'ImportDeclaration');
  const promisify = utilName
    ? `${utilName}.promisify`
    : names.has('promisify')
      ? 'promisify'
      : isModule
        ? undefined
        : "require('node:util').promisify";
  const line = promisify
    ? `const ${name} = ${promisify}(${target});`
    : `import { promisify as promisify_ } from 'node:util';\nconst ${name} = promisify_(${target});`;
  const requires = (program.body as AnyNode[]).filter(
    (s) =>
      s.type === 'ImportDeclaration' ||
      (s.type === 'VariableDeclaration' &&
        (s.declarations as AnyNode[]).some(
          (d) => [...names.values()].includes(d) && /\brequire\(/.test(text.slice(d.start, d.end)),
        )),
  );
  // Else after 'use strict' and the like: a statement before them would end their meaning.
  const directives = (program.body as AnyNode[]).filter((s) => typeof s.directive === 'string');
  const after = requires[requires.length - 1] ?? directives[directives.length - 1];
  if (!after) return { start: 0, end: 0, newText: `${line}\n` };
  return { start: after.end, end: after.end, newText: `\n${line}` };
}
