// How a function is named for people, shared by the language server and the report page. V8
// names a CommonJS export `module.exports` and many callbacks not at all: without the package it
// came from, "module.exports 812 ms" says nothing.

/** The npm package a file belongs to (`node_modules/@scope/pkg/…` → `@scope/pkg`), or undefined. */
export function packageOf(file: string): string | undefined {
  const parts = file.split(/[\\/]/);
  const i = parts.lastIndexOf('node_modules');
  if (i < 0 || i + 1 >= parts.length) return undefined;
  return parts[i + 1].startsWith('@') && i + 2 < parts.length ? `${parts[i + 1]}/${parts[i + 2]}` : parts[i + 1];
}

const VAGUE = new Set(['', '(anonymous)', 'module.exports', 'exports', 'default', 'anonymous']);

/** `module.exports (jsonwebtoken)`; a name that says what it is stays as it is. */
export function functionLabel(name: string, file: string): string {
  const shown = name || '(anonymous)';
  const pkg = VAGUE.has(name) ? packageOf(file) : undefined;
  return pkg ? `${shown} (${pkg})` : shown;
}
