// Wrapping a library's method inside the app for as long as a probe is on, and finding the
// library among the loaded CommonJS modules (pool-probe.ts). What wraps must put back.
import { builtin } from './builtins.ts';

/** The loaded CommonJS modules whose file matches `file`, with their exports. */
export function loadedModules(file: RegExp): Array<{ file: string; exports: unknown }> {
  const cache = builtin('module')._cache ?? {};
  return Object.entries(cache)
    .filter(([f, mod]) => file.test(f) && mod !== undefined)
    .map(([f, mod]) => ({ file: f, exports: mod!.exports }));
}

/** The prototype of a module's exported class, when it owns `method` as a function. */
export function ownerOf(exports: unknown, method: string): Record<string, unknown> | undefined {
  const proto = (exports as { prototype?: Record<string, unknown> } | undefined)?.prototype;
  if (!proto || !Object.prototype.hasOwnProperty.call(proto, method)) return undefined;
  return typeof proto[method] === 'function' ? proto : undefined;
}

type Method = (this: never, ...args: unknown[]) => unknown;

/**
 * Replaces `proto[method]` by `make(original)`, keeping its descriptor's other attributes; the
 * returned function puts the original back (unless someone replaced ours meanwhile: theirs stays).
 */
export function wrapMethod(
  proto: Record<string, unknown>,
  method: string,
  make: (original: Method) => Method,
): () => void {
  const own = Object.getOwnPropertyDescriptor(proto, method)!;
  const wrapped = make(own.value as Method);
  Object.defineProperty(proto, method, { ...own, value: wrapped });
  return () => {
    if (proto[method] === wrapped) Object.defineProperty(proto, method, own);
  };
}
