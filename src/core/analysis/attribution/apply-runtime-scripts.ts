// Scripts the app ran that are not the file on disk (compiled in memory by a loader: tsx,
// ts-node, a register hook), as the run saved them (store/scripts-file.ts). V8's positions
// are in the code as run, so the profile's frames of such a script are renamed to a generated
// file of their own, whose text is that code and whose map is the runtime's: the analysis then
// maps them like any compiled script, and the original file keeps its own text. A script with
// no usable map keeps its functions and loses its positions: a cost is never put on a line the
// code does not have.
import type { CpuProfile, CpuProfileNode } from '../../profile/index.ts';
import type { SourceMapInput } from './sourcemaps.ts';
import type { StackCapturesInput } from './stacks.ts';

export interface RuntimeScriptInput {
  /** As V8 names it (file:///…). */
  url: string;
  /** The file on disk it came from. */
  file: string;
  /** The code V8 ran. */
  source: string;
  /** The runtime's source map for it (JSON text). */
  map?: string;
  mapProblem?: string;
}

/** The name of the code as run, beside its file: no such file exists, nothing reads it from disk. */
export function asRunPath(file: string): string {
  return `${file} (as run)`;
}

export interface RuntimeScriptsApplied {
  profile: CpuProfile;
  stacks?: StackCapturesInput;
  /** The code as run, by its as-run path (for call sites and function heads). */
  sources: Map<string, string>;
  sourceMaps: SourceMapInput[];
  /** Original files whose positions could not be mapped: their costs stay at function level. */
  unmapped: Map<string, string>;
}

/** A copy of the profile (and stack captures) with each runtime script's frames renamed or unpositioned. */
export function applyRuntimeScripts(
  profile: CpuProfile,
  stacks: StackCapturesInput | undefined,
  scripts: readonly RuntimeScriptInput[],
): RuntimeScriptsApplied {
  const mapped = new Map<string, string>();
  const unmapped = new Map<string, string>();
  const sources = new Map<string, string>();
  const sourceMaps: SourceMapInput[] = [];
  for (const s of scripts) {
    if (s.map !== undefined) {
      const generated = asRunPath(s.file);
      // The profile names a script by URL, the stack captures by path.
      mapped.set(s.url, generated);
      mapped.set(s.file, generated);
      sources.set(generated, s.source);
      // The map's relative sources are relative to the script's own folder.
      sourceMaps.push({ generatedFile: generated, map: s.map, mapFile: s.file });
    } else {
      unmapped.set(s.file, s.mapProblem ?? 'the runtime holds no source map for it');
    }
  }
  const unpositioned = new Set(scripts.filter((s) => s.map === undefined).flatMap((s) => [s.url, s.file]));
  if (mapped.size === 0 && unpositioned.size === 0) return { profile, stacks, sources, sourceMaps, unmapped };
  const nodes = profile.nodes.map((n): CpuProfileNode => {
    const url = n.callFrame.url;
    const renamed = mapped.get(url);
    if (renamed !== undefined) return { ...n, callFrame: { ...n.callFrame, url: renamed } };
    if (!unpositioned.has(url)) return n;
    const { positionTicks: _dropped, ...rest } = n;
    return { ...rest, callFrame: { ...n.callFrame, lineNumber: -1, columnNumber: -1 } };
  });
  const frames = stacks?.frames.map((f) => {
    const renamed = mapped.get(f.url);
    if (renamed !== undefined) return { ...f, url: renamed };
    return unpositioned.has(f.url) ? { ...f, line: 0, column: 0 } : f;
  });
  return {
    profile: { ...profile, nodes },
    stacks: stacks && frames ? { ...stacks, frames } : stacks,
    sources,
    sourceMaps,
    unmapped,
  };
}

/** The one note for the files whose costs stay at function level. */
export function unmappedNote(unmapped: ReadonlyMap<string, string>): string | undefined {
  if (unmapped.size === 0) return undefined;
  const [[file, why]] = unmapped;
  const others = unmapped.size > 1 ? ` (and ${unmapped.size - 1} more file${unmapped.size > 2 ? 's' : ''})` : '';
  return `${file}${others} is transpiled in memory by a loader whose source map could not be read (${why}): its costs are shown per function, on no line. To get lines, let the loader emit source maps (tsx and ts-node do by default; for a register hook, enable inline source maps), or build to JavaScript with maps on disk, or run the .ts with Node 22.18+ (type stripping keeps positions).`;
}
