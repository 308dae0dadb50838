// Function start positions for profiles that name functions but not where they start (pprof from
// a Node producer: Function.start_line is 0). The analysis finds a function in its source by that
// position (callsites.ts), as it does for V8's call frames; here a line that ran in the frame finds
// the function around it, and only one whose name agrees is taken. Pure: sources come in as data.
import { fileOfUrl } from './categories.ts';
import { ScriptIndex } from './callsites.ts';
import type { CpuProfile } from './cpuprofile.ts';

/**
 * The profile with a head position on each frame that had none and whose source holds, around a
 * line it ran (`frameLines`, per node id), a function of the same name (anonymous: the innermost).
 */
export function placeFunctionHeads(
  profile: CpuProfile,
  frameLines: ReadonlyMap<number, number>,
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
    const line = frameLines.get(node.id);
    if (cf.lineNumber >= 0 || line === undefined) return node;
    const index = indexOf(fileOfUrl(cf.url));
    const scope = index?.functionAtLine(line);
    if (!index || !scope || (cf.functionName !== '' && scope.name !== cf.functionName)) return node;
    const { line0, col0 } = index.headOf(scope);
    return { ...node, callFrame: { ...cf, lineNumber: line0, columnNumber: col0 } };
  });
  return { ...profile, nodes };
}
