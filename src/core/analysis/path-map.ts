// Paths of another machine → this workspace: a profile from a fleet names /app/src/x.js where the
// checkout has ~/code/svc/src/x.js. A map is FROM=TO prefixes (`/app/=/home/me/svc/`); the first
// that matches a script's path rewrites it, before sources and source maps are looked up.
import { pathToFileURL } from 'node:url';
import {
  type CallFrame,
  type CpuProfile,
  fileOfUrl,
  type SamplingHeapNode,
  type SamplingHeapProfile,
} from '../profile/index.ts';

export interface PathMapping {
  from: string;
  to: string;
}

export class PathMapError extends Error {}

/** `FROM=TO` → a mapping; a trailing slash on one side is put on the other, so `/app=/w` and `/app/=/w/` agree. */
export function parsePathMapping(spec: string): PathMapping {
  const at = spec.indexOf('=');
  const from = at > 0 ? spec.slice(0, at) : '';
  const to = at > 0 ? spec.slice(at + 1) : '';
  if (from === '' || to === '') throw new PathMapError(`a path map is FROM=TO, e.g. /app/=./ (got "${spec}")`);
  const slash = (p: string): string => (p.endsWith('/') ? p : `${p}/`);
  return { from: slash(from), to: slash(to) };
}

/** The file path a URL or path maps to, or undefined when no mapping applies. */
export function mapPath(file: string, maps: readonly PathMapping[]): string | undefined {
  for (const m of maps) if (file.startsWith(m.from)) return m.to + file.slice(m.from.length);
  return undefined;
}

/** A script URL after the maps: a mapped path comes back as a file:// URL, as V8 writes one. */
function mapUrl(url: string, maps: readonly PathMapping[]): string {
  if (url === '' || maps.length === 0) return url;
  const mapped = mapPath(fileOfUrl(url), maps);
  return mapped === undefined ? url : pathToFileURL(mapped).href;
}

/** The profile with its script URLs mapped (a new profile; the input is left as it is). */
export function mapProfilePaths(profile: CpuProfile, maps: readonly PathMapping[]): CpuProfile {
  if (maps.length === 0) return profile;
  // One mapped frame per frame object: nodes that share a frame (the streaming reader's) still do.
  const mapped = new Map<CallFrame, CallFrame>();
  const nodes = profile.nodes.map((node) => {
    const cf = node.callFrame;
    let to = mapped.get(cf);
    if (to === undefined) {
      const url = mapUrl(cf.url, maps);
      to = url === cf.url ? cf : { ...cf, url };
      mapped.set(cf, to);
    }
    return to === cf ? node : { ...node, callFrame: to };
  });
  return { ...profile, nodes };
}

/** The same for a heap profile. Iterative: a tree can be deeper than the stack. */
export function mapHeapProfilePaths(profile: SamplingHeapProfile, maps: readonly PathMapping[]): SamplingHeapProfile {
  if (maps.length === 0) return profile;
  const copy = (n: SamplingHeapNode): SamplingHeapNode => ({
    ...n,
    callFrame: { ...n.callFrame, url: mapUrl(n.callFrame.url, maps) },
    children: [],
  });
  const head = copy(profile.head);
  const stack: Array<[SamplingHeapNode, SamplingHeapNode]> = [[profile.head, head]];
  while (stack.length > 0) {
    const [from, to] = stack.pop()!;
    for (const child of from.children) {
      const c = copy(child);
      to.children.push(c);
      stack.push([child, c]);
    }
  }
  return { ...profile, head };
}
