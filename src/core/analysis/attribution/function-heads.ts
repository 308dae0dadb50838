// Function start positions for profiles that do not give them as V8 does (pprof: no column, and
// from a Node producer no start line either). The analysis finds a function in its source by its
// head position (callsites.ts), as for V8's call frames; here the lines that ran in a frame (and
// the start line, when the file has one) find the function around them, and only a function whose
// name agrees is taken. Pure: sources come in as data.
import { ScriptIndex } from './callsites.ts';
import { type CpuProfile, fileOfUrl } from '../../profile/index.ts';

/**
 * Whether a profile's function name fits a function of the source: V8 names methods `Class.method`
 * and keys (`'/work': () => …`) in ways the source index may not name at all, so a function the
 * index leaves unnamed fits any; an anonymous frame fits any function.
 */
function sameName(profiled: string, source: string | undefined): boolean {
  return profiled === '' || source === undefined || profiled === source || profiled.endsWith(`.${source}`);
}

/**
 * The profile with a head position (line and column) on each frame whose column is unknown (-1)
 * and whose source holds, at its start line or around a line it ran (`frameLines`, per node id), a
 * function of the same name (anonymous: the innermost). A frame in a file with a source but no
 * such function gets no line: a start line without a column would name the wrong function there.
 */
export function placeFunctionHeads(
  profile: CpuProfile,
  frameLines: ReadonlyMap<number, readonly number[]>,
  sources: ReadonlyMap<string, string>,
): CpuProfile {
  const indexes = new Map<string, ScriptIndex | undefined>();
  const indexOf = (file: string): ScriptIndex | undefined => {
    if (!indexes.has(file)) {
      const text = sources.get(file);
      indexes.set(file, text === undefined ? undefined : ScriptIndex.parse(text));
    }
    return indexes.get(file);
  };
  const nodes = profile.nodes.map((node) => {
    const cf = node.callFrame;
    if (cf.columnNumber >= 0 || cf.url === '') return node;
    const index = indexOf(fileOfUrl(cf.url));
    if (!index) return node;
    const lines = [...(cf.lineNumber >= 0 ? [cf.lineNumber + 1] : []), ...(frameLines.get(node.id) ?? [])];
    for (const line of lines) {
      const scope = index.functionAtLine(line);
      if (!scope || !sameName(cf.functionName, scope.name)) continue;
      const { line0, col0 } = index.headOf(scope);
      return { ...node, callFrame: { ...cf, lineNumber: line0, columnNumber: col0 } };
    }
    return { ...node, callFrame: { ...cf, lineNumber: -1 } };
  });
  return { ...profile, nodes };
}
