// Lines a source map cannot honestly give (docs/architecture.md: a cost on the wrong line is worse than none).
// Files compiled in memory whose positions could not be mapped (analysis/attribution/apply-runtime-scripts.ts) keep
// their costs at function level: no line of theirs is reported, no hint points into them (a hint
// is a line), and one note says why and what to do. And code a compiler adds (esbuild's module
// helpers under tsx) is mapped to the top of the file, a comment or a blank line: no line either.
import { type Analysis, type SourceMapInput, unmappedNote } from '../analysis/index.ts';

export function withoutUnmappedLines(analysis: Analysis, unmapped: ReadonlyMap<string, string>): void {
  const note = unmappedNote(unmapped);
  if (note === undefined) return;
  analysis.lines = analysis.lines.filter((l) => !unmapped.has(l.file));
  analysis.hints = analysis.hints.filter((h) => !unmapped.has(h.file));
  analysis.notes.push(note);
}

/**
 * Mapped lines whose original text is no code (blank, or a comment), and positions of code as run
 * that its map does not cover (a loader's preamble), are left out, with one note. A function in
 * such code is named in its original file, on no line.
 */
export function withoutMappedNonCode(
  analysis: Analysis,
  sources: ReadonlyMap<string, string>,
  runtimeMaps: readonly SourceMapInput[],
): void {
  const original = new Map(runtimeMaps.map((m) => [m.generatedFile, m.mapFile]));
  for (const f of analysis.functions) {
    const file = original.get(f.file);
    if (file !== undefined) Object.assign(f, { file, line: 0, column: 0 });
  }
  const split = new Map<string, string[] | undefined>();
  const isCode = (file: string, line: number): boolean => {
    if (!split.has(file)) split.set(file, sources.get(file)?.split('\n'));
    const text = split.get(file)?.[line - 1];
    return text === undefined || !/^\s*($|\/\/|\/\*|\*)/.test(text);
  };
  const dropped = analysis.lines.filter(
    (l) => original.has(l.file) || (l.generated && !l.oneOf && !isCode(l.file, l.line)),
  );
  if (dropped.length === 0) return;
  const gone = new Set(dropped);
  analysis.lines = analysis.lines.filter((l) => !gone.has(l));
  analysis.hints = analysis.hints.filter((h) => !dropped.some((l) => l.file === h.file && l.line === h.line));
  const ms = dropped.reduce((t, l) => t + l.ownMs, 0);
  analysis.notes.push(
    `${ms.toFixed(1)} ms of own time ran in code the compiler added (its source map points at no line of code: ${dropped.length === 1 ? 'one place' : `${dropped.length} places`}, e.g. ${dropped[0].file}:${dropped[0].line}): not shown on a line.`,
  );
}
